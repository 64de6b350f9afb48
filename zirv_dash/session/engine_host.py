"""The `Host` the runtime serves: a real `zirv_dash.runtime.Engine`, headless.

A session is an engine pane; its id is the pane's short id (the same id the
session registry, mail addressing and `zirv ctx nudge` use). The engine runs
its own controllers here (mail and nudge delivery, spawn intake, turn signals,
the stop ladder), so they keep working while no client is attached.

Bytes reach clients straight from the engine's output taps, as the child wrote
them and before they are parsed; a `screen()` first parses whatever the pane
has read but not parsed yet, which keeps the host contract (a screen taken
after an output event includes its bytes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from zirv_dash.dash.dashboard import Dashboard, DashError
from zirv_dash.listeners import Listeners
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime import Engine
from zirv_dash.runtime import events as ev
from zirv_dash.runtime.native_pane import NativeSessionPane
from zirv_dash.session import native_host, repaint
from zirv_dash.session.dash_session import DASH_ID, DashFactory, DashSession
from zirv_dash.session.host import (
    HostError,
    HostEvent,
    Listener,
    Pending,
    Screen,
    SessionEvent,
    SessionOutput,
    StartSpec,
    Unsubscribe,
)
from zirv_dash.session.methods import NATIVE_CAPABILITIES
from zirv_dash.session.protocol import ErrorCode, NotResumed, SessionFacts, SessionState
from zirv_dash.session.ptyhost import repo_label
from zirv_dash.session.topology import TopologyWriter

log = logging.getLogger("zirv.session.engine")

SHUTDOWN_WAIT = 30.0
"""Seconds the runtime waits for the engine to end every pane at close."""


class EngineHost:
    """`NativeHost` over an engine; `engine.start()` is the caller's (see `session.runtime`)."""

    capabilities = NATIVE_CAPABILITIES

    @property
    def repo(self) -> Path:
        """The repository whose delegation records `delegation.list/get` read."""
        return self.engine.dash.repo

    def __init__(self, engine: Engine, dashboard: DashFactory | None = None) -> None:
        self.engine = engine
        self._listeners: Listeners[HostEvent] = Listeners()
        self.not_resumed: list[NotResumed] = []
        self._names: dict[str, str] = {}
        self._pending_name = ""
        self._generation: dict[str, int] = {}
        self._child: dict[str, object] = {}
        """The PTY each session's generation was counted for (a swap installs another)."""
        self._tapped: dict[str, int] = {}
        """Bytes each pane's child wrote that clients were sent (for the exit check)."""
        self._published: dict[str, SessionFacts] = {}
        self._ended: dict[str, asyncio.Event] = {}
        self._closed_seen = asyncio.Event()
        self.on_close: list[Callable[[], Awaitable[None]]] = []
        """Run first on close: the links to remote hosts (detached, not ended)."""
        self.topology: TopologyWriter | None = None
        """Writes the roster at every change (`session.topology`), once restored."""
        self.on_restore: Callable[[ev.RestoreOffered], None] | None = None
        """Decides a restore offer (the runtime's Tier 2 rule); skipped when unset."""
        self._unsubscribe = engine.subscribe(self._on_engine_event)
        engine.output_taps.append(self._on_output)
        self.dash_session: DashSession | None = None
        """The hosted dashboard (`dash`), when the runtime was given a UI to host."""
        if dashboard is not None:
            self.dash_session = DashSession(
                lambda link, columns, rows: dashboard(engine, link, columns, rows),
                lambda data: self._emit(SessionOutput(DASH_ID, data)),
                self._publish_dash,
                repo_label(str(engine.dash.repo)),
            )

    def note_client(self, session_id: str, color_system: str) -> None:
        if (hosted := self._hosted(session_id)) is not None:
            hosted.note_client(color_system)

    def bind_detach(self, detach: Callable[[str], None]) -> None:
        """How the hosted dashboard releases its controlling client (the server's)."""
        if self.dash_session is not None:
            self.dash_session.on_detach = lambda: detach(DASH_ID)

    @property
    def dash(self) -> Dashboard:
        return self.engine.dash

    # -- reads --------------------------------------------------------------------------

    def sessions(self) -> list[SessionFacts]:
        # A remote host's pane (zirv_dash.remote) is that host's session, shown in
        # the hosted dashboard; it is never served on as one of this runtime's.
        listed = [self._facts(pane) for pane in self.dash.panes if not pane.remote_host]
        if self.dash_session is not None:
            listed.insert(0, self.dash_session.facts())
        return listed

    def get(self, session_id: str) -> SessionFacts | None:
        if session_id == DASH_ID and self.dash_session is not None:
            return self.dash_session.facts()
        pane = self.engine.pane(session_id)
        return self._facts(pane) if pane is not None and not pane.remote_host else None

    def screen(self, session_id: str) -> Screen:
        if (hosted := self._hosted(session_id)) is not None:
            return hosted.screen()
        if (native := self._native(session_id)) is not None:
            return native_host.screen(native)
        pane = self._terminal(session_id)
        self._catch_up(pane)
        model = pane.model_view
        return Screen(model.columns, model.rows, model.cursor, model.lines(), model.version)

    def repaint(self, session_id: str) -> bytes:
        if (hosted := self._hosted(session_id)) is not None:
            return hosted.repaint()
        if (native := self._native(session_id)) is not None:
            return native_host.text_of(native)
        pane = self._terminal(session_id)
        self._catch_up(pane)
        return repaint.repaint(pane.model_view)

    def subscribe(self, listener: Listener) -> Unsubscribe:
        return self._listeners.add(listener)

    # -- mutations ----------------------------------------------------------------------

    async def start(self, spec: StartSpec) -> SessionFacts:
        if not spec.harness:
            raise HostError(
                ErrorCode.UNSUPPORTED,
                "this runtime opens harnesses by name (harness: shell, demo, claude, …); "
                "a bare argv is not started",
            )
        if spec.argv:
            raise HostError(
                ErrorCode.UNSUPPORTED,
                f"harness {spec.harness!r} runs its own command line; argv must be empty",
            )
        for what, value in (("prompt", spec.prompt), ("model", spec.model)):
            if value.startswith("-"):  # never a harness option
                raise HostError(ErrorCode.BAD_PARAMS, f"a {what} may not begin with '-'")
        dash = self.dash
        saved = dash.pane_columns, dash.pane_rows
        # The child starts at the size asked for (the engine's default size is
        # the one every pane a dashboard shows shares).
        dash.pane_columns, dash.pane_rows = max(2, spec.columns), max(2, spec.rows)
        self._pending_name = spec.name
        # The first session is the repository's orchestrator, as a dashboard's
        # first pane is (it may delegate; a worker may not delegate onward).
        has_orchestrator = any(p.role == "orchestrator" for p in dash.live_panes)
        role = "worker" if has_orchestrator else "orchestrator"
        try:
            pane = self.engine.open_pane(
                spec.harness,
                focus=False,
                cwd=spec.cwd,
                role=role,
                prompt=spec.prompt or None,
                model=spec.model or None,
            )
        except DashError as exc:
            raise HostError(ErrorCode.FAILED, str(exc)) from exc
        finally:
            dash.pane_columns, dash.pane_rows = saved
            self._pending_name = ""
        return self._facts(pane)

    def send_input(self, session_id: str, data: bytes) -> None:
        if (hosted := self._hosted(session_id)) is not None:
            hosted.send_input(data)
            return
        pane = self._live(self._terminal(session_id).short)
        self.engine.send_input(data, short=pane.short)

    def resize(self, session_id: str, columns: int, rows: int) -> SessionFacts:
        if (hosted := self._hosted(session_id)) is not None:
            hosted.resize(max(2, columns), max(2, rows))
            return hosted.facts()
        pane = self._live(self._terminal(session_id).short)
        pane.resize(max(2, columns), max(2, rows))
        self._publish_if_changed(pane)
        return self._facts(pane)

    async def stop(self, session_id: str, grace: float) -> SessionFacts:
        if self._hosted(session_id) is not None:
            raise HostError(
                ErrorCode.UNSUPPORTED,
                "the dashboard is not stopped on its own: detach from it, stop its panes, "
                "or stop the runtime (`zirv session stop --runtime`)",
            )
        pane = self._pane(session_id)
        if not pane.alive:
            return self._facts(pane)
        ended = self._ended.setdefault(pane.short, asyncio.Event())
        if self.engine.stops.stop(pane, grace=max(0.0, grace)):
            self._publish_if_changed(pane)
        await ended.wait()
        # The reply promises nothing of the pane runs: the jobs its leader left
        # are ended by the ladder after the leader itself.
        await self.engine.stops.finished(pane.short)
        return self._facts(pane)

    async def close(self) -> None:
        """End every pane (the termination ladder, verified), write the restore
        roster, and release everything the engine opened."""
        for closing in self.on_close:
            with contextlib.suppress(Exception):
                await closing()
        if self.dash_session is not None:
            await self.dash_session.close()
        if self.topology is not None:
            self.topology.close()
        engine = self.engine
        if not engine.closed:
            engine.shutdown()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SHUTDOWN_WAIT):
                    await self._closed_seen.wait()
            engine.close()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SHUTDOWN_WAIT):
                    await engine.wait_closed()
        self._unsubscribe()
        with contextlib.suppress(ValueError):
            engine.output_taps.remove(self._on_output)

    # -- the native half -------------------------------------------------------------------

    def submit(self, session_id: str, text: str) -> str:
        return native_host.submit(native_host.native_of(self._pane(session_id)), text)

    def interrupt(self, session_id: str) -> bool:
        return native_host.interrupt(native_host.native_of(self._pane(session_id)))

    def pending(self, session_id: str) -> Pending | None:
        return native_host.pending(native_host.native_of(self._pane(session_id)))

    def approve(self, session_id: str, call_id: str, answer: str, guidance: str) -> bool:
        pane = native_host.native_of(self._pane(session_id))
        return native_host.approve(pane, call_id, answer, guidance)

    # -- engine events ----------------------------------------------------------------

    def _on_output(self, pane: Pane, chunk: bytes) -> None:
        if pane.remote_host:
            return
        self._tapped[pane.short] = self._tapped.get(pane.short, 0) + len(chunk)
        self._emit(SessionOutput(pane.short, chunk))

    def _on_engine_event(self, event: ev.EngineEvent) -> None:
        if isinstance(event, ev.PaneAdded):
            pane = self.engine.pane(event.short)
            if pane is None:
                return
            if self._pending_name:
                self._names[pane.short] = self._pending_name
                # The roster keeps it, so a restart reports the session by name.
                self.engine.intake.titles[pane.short] = self._pending_name
            self._child[pane.short] = pane.pty
            if isinstance(pane, NativeSessionPane):
                short = pane.short
                native_host.follow(pane, lambda data: self._emit(SessionOutput(short, data)))
            self._publish(pane, "started")
        elif isinstance(event, ev.PaneEnded):
            pane = self.engine.pane(event.short)
            if pane is not None:
                self._account_final_output(pane)
                self._publish(pane, "exited")
            self._ended.setdefault(event.short, asyncio.Event()).set()
        elif isinstance(event, ev.PaneReplaced | ev.StateChanged):
            pane = self.engine.pane(event.short)
            if pane is not None:
                self._publish_if_changed(pane)
        elif isinstance(event, ev.RestoreOffered):
            if self.on_restore is not None:
                self.on_restore(event)
            else:
                self.engine.intake.restore_done(None)
        elif isinstance(event, ev.ErrorRaised):
            log.error("engine: %s", event.text)
        elif isinstance(event, ev.Notice):
            log.info("engine: %s", event.text)
        elif isinstance(event, ev.Closed):
            self._closed_seen.set()

    def _account_final_output(self, pane: Pane) -> None:
        """What the child wrote after its last readable callback (the exit drain
        reads it directly) reached no client: send them the whole screen instead,
        so a client's view still ends on the child's last lines."""
        self._catch_up(pane)
        written = pane.bytes_in + pane.inbox_bytes
        if self._tapped.get(pane.short, 0) < written:
            self._tapped[pane.short] = written
            self._emit(SessionOutput(pane.short, repaint.repaint(pane.model_view)))

    # -- internals ----------------------------------------------------------------------

    def _native(self, session_id: str) -> NativeSessionPane | None:
        pane = self.engine.pane(session_id)
        return pane if isinstance(pane, NativeSessionPane) and pane.session else None

    def _hosted(self, session_id: str) -> DashSession | None:
        return self.dash_session if session_id == DASH_ID else None

    def _publish_dash(self) -> None:
        if self.dash_session is not None:
            self._emit(SessionEvent("changed", self.dash_session.facts()))

    def _pane(self, session_id: str) -> Pane:
        pane = self.engine.pane(session_id)
        if pane is None or pane.remote_host:
            raise HostError(ErrorCode.NOT_FOUND, f"no session {session_id!r}")
        return pane

    def _terminal(self, session_id: str) -> Pane:
        """A pane with a terminal: a native conversation has none to read or type into."""
        pane = self._pane(session_id)
        if pane.kind != "pty":
            raise HostError(
                ErrorCode.UNSUPPORTED,
                f"session {session_id} is a {pane.kind} conversation: it has no terminal "
                "(session.submit sends it text)",
            )
        return pane

    def _live(self, session_id: str) -> Pane:
        pane = self._pane(session_id)
        if not pane.alive:
            raise HostError(ErrorCode.FAILED, f"session {session_id!r} has ended")
        return pane

    def _catch_up(self, pane: Pane) -> None:
        """Parse everything read so far, then let the engine read on (the pump
        re-arms only panes it parsed itself)."""
        if not pane.inbox:
            return
        while pane.inbox:
            pane.pump(pane.inbox_bytes or 65536)
        # What the pump would have said had it parsed these bytes: the views (the
        # hosted dashboard's) repaint, states are polled. Without it a read that
        # got here first left the dashboard showing the screen before them.
        self.engine.emit(ev.PaneOutput(pane.short))
        self.engine.poll_soon()
        if pane.alive and pane.wants_read:
            self.engine.watch(pane)
            self.engine.ensure_flush(pane)  # query replies the parse produced

    def _generation_of(self, pane: Pane) -> int:
        generation = self._generation.get(pane.short, 1)
        if self._child.get(pane.short, pane.pty) is not pane.pty:
            # A handover installed another child in the pane: a new generation,
            # so a wait pinned to the old one fails `stale_generation`.
            generation += 1
            self._generation[pane.short] = generation
            self._child[pane.short] = pane.pty
            self._tapped[pane.short] = 0
        return generation

    def _facts(self, pane: Pane) -> SessionFacts:
        pty = pane.pty
        return SessionFacts(
            id=pane.short,
            name=self._names.get(pane.short) or pane.title,
            harness=pane.agent,
            state=self._state(pane),
            generation=self._generation_of(pane),
            pid=pty.pid if pty is not None else None,
            started_at=round(pty.started_at, 3) if pty is not None else None,
            exit_code=pane.exit_code,
            columns=pane.model_view.columns,
            rows=pane.model_view.rows,
            repo=repo_label(pane.cwd),
        )

    def _state(self, pane: Pane) -> SessionState:
        if pane.exit_code is None:
            if pane.short in self.engine.stops.ladders:
                return SessionState.STOPPING
            return SessionState.RUNNING
        if pane.spawn_error:
            return SessionState.FAILED
        if Dashboard.was_stopped(pane):
            return SessionState.STOPPED
        return SessionState.EXITED if pane.exit_code == 0 else SessionState.FAILED

    def _publish(self, pane: Pane, kind: str) -> None:
        if pane.remote_host:
            return
        facts = self._facts(pane)
        self._published[pane.short] = facts
        self._emit(SessionEvent(kind, facts))

    def _publish_if_changed(self, pane: Pane) -> None:
        if pane.remote_host:
            return
        facts = self._facts(pane)
        before = self._published.get(pane.short)
        if before == facts:
            return
        self._published[pane.short] = facts
        self._emit(SessionEvent("changed", facts))

    def _emit(self, event: HostEvent) -> None:
        self._listeners.emit(event)
