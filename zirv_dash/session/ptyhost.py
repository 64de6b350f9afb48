"""A host that runs real PTY children on the server's event loop.

Each session is a `PtySession` (the child on its own PTY) and a `TerminalModel`
fed with everything it writes. The master fd is watched with `add_reader`, so no
thread is involved and the host's listeners run on the loop thread, as the
`Host` interface requires. This is the reference host the protocol tests run
against; the engine replaces it behind the same interface.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from zirv_dash.listeners import Listeners
from zirv_dash.panes.ladder import quit_signals
from zirv_dash.panes.ptysession import PtySession, SpawnError
from zirv_dash.session import repaint
from zirv_dash.session.host import (
    HostError,
    HostEvent,
    Listener,
    Screen,
    SessionEvent,
    SessionOutput,
    StartSpec,
    Unsubscribe,
)
from zirv_dash.session.methods import CAPABILITIES
from zirv_dash.session.protocol import (
    ENDED_STATES,
    ErrorCode,
    NotResumed,
    SessionFacts,
    SessionState,
)
from zirv_dash.terminal import TerminalModel

FEED_SLICE = 16 * 1024
"""Bytes fed to a terminal model per loop turn. The model's parser is the costly
part of a flood; fed in slices, one turn stays short and another session's
keystroke or another client's frame waits for one slice, not for a backlog."""
BACKLOG_MAX = 256 * 1024
"""Unparsed bytes at which a session's PTY is no longer read: the child then
blocks on its full terminal, as it would under any terminal, and the runtime's
memory stays bounded."""
REAP_INTERVAL = 0.02
SCROLLBACK_BYTES = 2 * 1024 * 1024


@dataclass
class _Entry:
    facts: SessionFacts
    pty: PtySession
    model: TerminalModel
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    reading: bool = True
    paused: bool = False
    writing: bool = False
    backlog: bytearray = field(default_factory=bytearray)
    feeding: bool = False
    pidfd: int | None = None
    """Readable once the child exits (its jobs may keep the PTY open: no EOF)."""


def repo_label(cwd: str | None) -> str:
    """The working directory's last component, never the path (snapshots are redacted)."""
    name = Path(cwd or os.getcwd()).name
    return re.sub(r"[^A-Za-z0-9._-]", "-", name)[:64]


class PtyHost:
    """`Host` over real PTY children; ended sessions stay listed until closed."""

    capabilities = CAPABILITIES

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self._entries: dict[str, _Entry] = {}
        self.not_resumed: list[NotResumed] = []  # its children never outlive it
        self._listeners: Listeners[HostEvent] = Listeners()
        self._counter = 0
        self._env = dict(os.environ if env is None else env)
        self._env.setdefault("TERM", "xterm-256color")

    # -- reads ------------------------------------------------------------------------

    def sessions(self) -> list[SessionFacts]:
        return [entry.facts for entry in self._entries.values()]

    def get(self, session_id: str) -> SessionFacts | None:
        entry = self._entries.get(session_id)
        return entry.facts if entry else None

    def screen(self, session_id: str) -> Screen:
        entry = self._entry(session_id)
        self._catch_up(entry)
        model = entry.model
        return Screen(model.columns, model.rows, model.cursor, model.lines(), model.version)

    def repaint(self, session_id: str) -> bytes:
        entry = self._entry(session_id)
        self._catch_up(entry)
        return repaint.repaint(entry.model)

    def backlog(self, session_id: str) -> int:
        """Bytes read from the session's PTY and not yet parsed (bounded)."""
        return len(self._entry(session_id).backlog)

    def note_client(self, session_id: str, color_system: str) -> None:
        """Nothing to do: a PTY child draws for itself, whatever the client's colours."""

    def bind_detach(self, detach: Callable[[str], None]) -> None:
        """Nothing to do: no UI of this host ends an attach."""

    def subscribe(self, listener: Listener) -> Unsubscribe:
        return self._listeners.add(listener)

    # -- mutations ----------------------------------------------------------------------

    async def start(self, spec: StartSpec) -> SessionFacts:
        if not spec.argv:
            raise HostError(ErrorCode.BAD_PARAMS, "argv is empty")
        if spec.prompt or spec.model:
            raise HostError(ErrorCode.UNSUPPORTED, "this runtime takes no prompt or model")
        columns, rows = max(2, spec.columns), max(2, spec.rows)
        try:
            pty = PtySession(spec.argv, cwd=spec.cwd, env=self._env, columns=columns, rows=rows)
        except SpawnError as exc:
            raise HostError(ErrorCode.FAILED, str(exc)) from exc
        self._counter += 1
        session_id = f"s{self._counter}"
        facts = SessionFacts(
            id=session_id,
            name=spec.name or session_id,
            harness=spec.harness or "shell",
            state=SessionState.RUNNING,
            pid=pty.pid,
            started_at=round(pty.started_at, 3),
            columns=columns,
            rows=rows,
            repo=repo_label(spec.cwd),
        )
        entry = _Entry(facts, pty, TerminalModel(columns, rows, SCROLLBACK_BYTES))
        self._entries[session_id] = entry
        loop = asyncio.get_running_loop()
        loop.add_reader(pty.fd, self._on_readable, entry)
        opener = getattr(os, "pidfd_open", None)
        if opener is not None:
            with contextlib.suppress(OSError):
                entry.pidfd = opener(pty.pid)
                loop.add_reader(entry.pidfd, self._on_child_exit, entry)
        self._emit(SessionEvent("started", facts))
        return facts

    def send_input(self, session_id: str, data: bytes) -> None:
        entry = self._live(session_id)
        entry.pty.write(data)
        self._watch_writes(entry)

    def resize(self, session_id: str, columns: int, rows: int) -> SessionFacts:
        entry = self._live(session_id)
        columns, rows = max(2, columns), max(2, rows)
        entry.pty.resize(columns, rows)
        entry.model.resize(columns, rows)
        self._update(entry, "changed", columns=columns, rows=rows)
        return entry.facts

    async def stop(self, session_id: str, grace: float) -> SessionFacts:
        entry = self._entry(session_id)
        if entry.facts.state in ENDED_STATES:
            return entry.facts
        if entry.facts.state is not SessionState.STOPPING:
            self._update(entry, "changed", state=SessionState.STOPPING)
            harness = entry.facts.harness
            ladder = entry.pty.ladder(
                b"", 0.0, quit_signals(harness), drain=False, term_grace=max(0.0, grace)
            )
            while not ladder.step():
                await asyncio.sleep(REAP_INTERVAL)
            if not entry.ended.is_set():
                # Everything is dead (the ladder verified it) but the PTY may
                # not have reported EOF yet: reap now rather than wait for it.
                self._finish(entry)
        await entry.ended.wait()
        return entry.facts

    async def close(self) -> None:
        """Stop every live session: this host's children end with the runtime."""
        live = [sid for sid, e in self._entries.items() if e.facts.state not in ENDED_STATES]
        await asyncio.gather(*(self.stop(sid, 1.0) for sid in live))

    # -- internals ------------------------------------------------------------------------

    def _entry(self, session_id: str) -> _Entry:
        entry = self._entries.get(session_id)
        if entry is None:
            raise HostError(ErrorCode.NOT_FOUND, f"no session {session_id!r}")
        return entry

    def _live(self, session_id: str) -> _Entry:
        entry = self._entry(session_id)
        if entry.facts.state in ENDED_STATES:
            raise HostError(ErrorCode.FAILED, f"session {session_id!r} has ended")
        return entry

    def _emit(self, event: HostEvent) -> None:
        self._listeners.emit(event)

    def _update(self, entry: _Entry, kind: str, **changes: object) -> None:
        entry.facts = msgspec.structs.replace(entry.facts, **changes)
        self._emit(SessionEvent(kind, entry.facts))

    def _on_readable(self, entry: _Entry) -> None:
        data = entry.pty.read()
        if data:
            # Clients get the bytes now; the model parses them in slices.
            self._emit(SessionOutput(entry.facts.id, data))
            entry.backlog += data
            if not entry.feeding:
                entry.feeding = True
                asyncio.get_running_loop().call_soon(self._feed_slice, entry)
            if len(entry.backlog) >= BACKLOG_MAX and not entry.paused:
                entry.paused = True
                asyncio.get_running_loop().remove_reader(entry.pty.fd)
        if entry.pty.eof and entry.reading:
            entry.reading = False
            if not entry.paused:
                asyncio.get_running_loop().remove_reader(entry.pty.fd)
            self._catch_up(entry)
            self._reap(entry)

    def _feed(self, entry: _Entry, size: int) -> None:
        chunk = bytes(entry.backlog[:size])
        del entry.backlog[:size]
        entry.model.feed(chunk)
        replies = entry.model.take_replies()
        if replies:
            entry.pty.write(replies)
            self._watch_writes(entry)

    def _feed_slice(self, entry: _Entry) -> None:
        if entry.backlog:
            self._feed(entry, FEED_SLICE)
        loop = asyncio.get_running_loop()
        if entry.paused and len(entry.backlog) < BACKLOG_MAX // 2 and entry.reading:
            entry.paused = False
            loop.add_reader(entry.pty.fd, self._on_readable, entry)
        if entry.backlog:
            loop.call_soon(self._feed_slice, entry)
        else:
            entry.feeding = False

    def _catch_up(self, entry: _Entry) -> None:
        """Parse everything read so far (a screen must include every byte sent)."""
        if entry.backlog:
            self._feed(entry, len(entry.backlog))

    def _watch_writes(self, entry: _Entry) -> None:
        if entry.pty.has_pending_writes and not entry.writing:
            entry.writing = True
            asyncio.get_running_loop().add_writer(entry.pty.fd, self._on_writable, entry)

    def _on_writable(self, entry: _Entry) -> None:
        if entry.pty.flush() or entry.pty.eof:
            entry.writing = False
            asyncio.get_running_loop().remove_writer(entry.pty.fd)

    def _on_child_exit(self, entry: _Entry) -> None:
        """The child exited (its jobs may hold the PTY, so no EOF may come):
        what it wrote last is read, then it is reaped."""
        self._release_pidfd(entry)
        while entry.reading and not entry.pty.eof:
            data = entry.pty.read()
            if not data:
                break
            self._emit(SessionOutput(entry.facts.id, data))
            entry.backlog += data
        self._reap(entry)

    def _release_pidfd(self, entry: _Entry) -> None:
        if entry.pidfd is not None:
            fd, entry.pidfd = entry.pidfd, None
            with contextlib.suppress(ValueError, OSError):
                asyncio.get_running_loop().remove_reader(fd)
            os.close(fd)

    def _reap(self, entry: _Entry) -> None:
        if entry.ended.is_set():
            return
        if entry.pty.poll() is None:
            asyncio.get_running_loop().call_later(REAP_INTERVAL, self._reap, entry)
            return
        self._finish(entry)

    def _finish(self, entry: _Entry) -> None:
        loop = asyncio.get_running_loop()
        self._release_pidfd(entry)
        if entry.reading:
            entry.reading = False
            if not entry.paused:
                loop.remove_reader(entry.pty.fd)
        self._catch_up(entry)
        if entry.writing:
            entry.writing = False
            loop.remove_writer(entry.pty.fd)
        code = entry.pty.poll()
        entry.pty.finish()
        if entry.pty.stopped or (code is not None and code > 128):
            state = SessionState.STOPPED
        else:
            state = SessionState.EXITED if code == 0 else SessionState.FAILED
        entry.ended.set()
        self._update(entry, "exited", state=state, exit_code=code)
