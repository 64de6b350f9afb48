"""The native pane as a pane kind of the dashboard: no PTY, a `NativeSession`.

`NativeSessionPane` is a `Pane` whose child is zirv's own conversation session.
It keeps the `Pane` surface the engine, the chrome and the controllers use (an
empty terminal model, no PTY), and maps the session's presentation states onto
`PaneState` with the same visibility rule as every pane: a turn that completes
while the pane is not on screen at the live view is done-unseen (◆) until a
completed frame shows it.

Text from outside (mail, nudges, a quit) never becomes typed bytes: it goes
through the session's submit path, as the operator's Enter does.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from zirv_dash.attention.states import PaneState, ended_state
from zirv_dash.attention.tracker import AttentionTracker
from zirv_dash.dash.control_field import CONTROL_FIELD
from zirv_dash.harnesses.native_kind import NATIVE
from zirv_dash.panes import registry
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.spec import PaneSpec

if TYPE_CHECKING:
    from zirv_dash.native.engine import NativeSession
    from zirv_dash.native.orchestration_tools import Fleet


BUSY = frozenset({"generating", "executing"})
RECORD_COALESCE_SECS = 0.25
"""How long a state change waits before the registry record is rewritten."""


class NativeAttention(AttentionTracker):
    """`AttentionTracker`'s bookkeeping (time in state, transitions, visibility)
    fed with the session's own facts instead of terminal output."""

    def __init__(self, started_at: float) -> None:
        super().__init__(NATIVE, started_at=started_at)
        self.session_state = "idle"
        self.pending_tool: str | None = None
        self.error = ""
        self._completed_at: float | None = None

    def update(self, t: float, state: str, pending_tool: str | None, error: str) -> None:
        """The session changed: its state word, the tool awaiting approval, the
        latest error line."""
        self._settle(t)
        if state == "completed" and self.session_state != "completed":
            self._completed_at = t
            self._turn_since = t
        if state in BUSY and self.session_state not in BUSY:
            self._last_input = t
        self.session_state = state
        self.pending_tool = pending_tool
        self.error = error
        self._mark(t)

    def state(self, t: float) -> PaneState:
        if self._exit_code is not None:
            return ended_state(self._exit_code)
        if self.pending_tool is not None:
            return PaneState.NEEDS_YOU
        if self.session_state in BUSY:
            return PaneState.WORKING
        if self.session_state == "failed":
            return PaneState.FAILED
        if self.session_state == "completed" and self._completed_at is not None:
            seen = t if self._visible else self._last_viewed
            if seen < self._completed_at:
                return PaneState.DONE_UNSEEN
        return PaneState.IDLE

    def reason(self, t: float) -> str | None:
        state = self.state(t)
        if state is PaneState.NEEDS_YOU and self._exit_code is None:
            return f"approval: {self.pending_tool}"
        if state is PaneState.FAILED and self._exit_code is None:
            return self.error or "the turn failed"
        return super().reason(t)

    def idle_since(self, t: float) -> float | None:
        if self.state(t) in (PaneState.IDLE, PaneState.DONE_UNSEEN):
            return self.state_since(t)
        return None

    def next_deadline(self, t: float) -> float | None:
        return None  # every change is an event from the session


class NativeSessionPane(Pane):
    """A dashboard pane conducting a native conversation (see the module doc)."""

    kind = NATIVE

    def __init__(
        self,
        spec: PaneSpec,
        columns: int,
        rows: int,
        open_session: Callable[[Path, str], NativeSession],
    ) -> None:
        super().__init__(spec, columns, rows, scrollback_bytes=64 * 1024)
        self.tracker: NativeAttention = NativeAttention(self.started_mono)
        self._open = open_session
        self.session: NativeSession | None = None
        self.wake: Callable[[bool], None] | None = None
        """Told after every session change, with whether the pane's state changed
        (the engine then polls states at once; otherwise soon)."""
        self.closing = False
        self.on_record: Callable[[], None] | None = None
        """Rewrites the pane's session-registry record (set by the dashboard that
        registered it); called when the state word the record carries changed."""
        self.recorded_state = ""
        self._record_timer: asyncio.TimerHandle | None = None
        self._saved_queue: tuple[str, ...] = ()
        """The queue as last saved by a delivery (kept in step until it drains)."""

    # -- lifecycle ------------------------------------------------------------------------

    def start(self, env: Mapping[str, str]) -> bool:
        """Open (or reopen: the journal is replayed) the session named after the
        pane's short id. A bad route configuration fails the pane, naming why."""
        try:
            session = self._open(Path(self.cwd), self.short)
        except (OSError, ValueError) as exc:  # RouteError, JournalError, a bad name
            self.fail(str(exc))
            return False
        self.session = session
        route = session.route
        self.model = route.label
        self.spec.model = route.label
        session.listeners.append(self._changed)
        self._changed()
        return True

    def fail(self, reason: str) -> None:
        super().fail(reason)
        self.model_view.feed(b"\x1b[2J\x1b[H")
        message = (
            "\x1b[1;31mzirv: the native session could not start\x1b[0m\r\n"
            f"{reason}\r\n\r\n"
            "\x1b[2mFix ~/.zirv/native.toml (or remove it for the offline demo route), "
            "then spawn a new pane (Ctrl+A s).\x1b[0m\r\n"
        )
        self.model_view.feed(message.encode())

    def _changed(self) -> None:
        session = self.session
        if session is None:
            return
        snap = session.snapshot()
        pending = snap.pending.tool if snap.pending is not None else None
        errors = [i.text for i in snap.transcript.items if i.tone == "err"]
        now = self.last_output_at = time.monotonic()
        before = self.tracker.state(now)
        self.tracker.update(now, snap.state, pending, errors[-1] if errors else "")
        if self.wake is not None:
            self.wake(self.tracker.state(now) is not before)
        if self.on_record is not None and self.record_state() != self.recorded_state:
            self._record_soon()
        if self._saved_queue and tuple(session.queued) != self._saved_queue:
            self._save_queue()  # a held delivery was sent (or joined): the file follows

    # -- registry ---------------------------------------------------------------------------

    def record_state(self) -> str:
        """The state word `zirv ctx status` shows: idle, generating, executing,
        blocked (an approval is open), cancelled, failed or completed."""
        session = self.session
        if session is None:
            return "failed"
        if session.pending is not None:
            return "blocked"
        return session.state

    def _record_soon(self) -> None:
        """Rewrite the record shortly: a tool call's generating → executing →
        generating within a moment is one write (each is an fsync on the loop)."""
        if self._record_timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a synchronous caller): write now
            self.flush_record()
            return
        self._record_timer = loop.call_later(RECORD_COALESCE_SECS, self.flush_record)

    def flush_record(self) -> None:
        self._record_timer = None
        if self.on_record is None or not self.alive or self.closing:
            return  # an ended pane's record is removed, never rewritten
        if self.record_state() != self.recorded_state:
            self.on_record()

    async def close_session(self, reason: str = "closed") -> None:
        """End the conversation (its turn is stopped, the end journaled); the pane
        then reads as ended cleanly."""
        session = self.session
        self.closing = True
        if self._record_timer is not None:
            self._record_timer.cancel()
            self._record_timer = None
        if session is not None and not session.closed:
            await session.close(reason)
        if self.exit_code is None:
            self.exit_code = 0
            self.exited_at = time.time()
            self.tracker.exited(0, time.monotonic())
        if session is not None and self._changed in session.listeners:
            session.listeners.remove(self._changed)

    def poll_exit(self) -> int | None:
        return self.exit_code

    def stop(self, grace: float = 5.0) -> None:
        """Nothing to signal: the engine ends the session on its loop."""

    @property
    def fd(self) -> int | None:
        return None

    def read_available(self, limit: int = 65536) -> int:
        return 0

    # -- input ------------------------------------------------------------------------------

    def send(self, data: bytes, typed: bool = True) -> None:
        """A native pane takes no bytes: its keys reach the composer widget."""

    def deliver(self, text: str) -> str:
        """Mail, a nudge: through the submit path (sent, steer, queued or empty);
        never a /command or a !shell line, never an approval answer."""
        session = self.session
        if session is None or self.exit_code is not None:
            return "empty"
        self.last_input_at = time.monotonic()
        outcome = session.submit(text, commands=False)
        if outcome == "queued":
            self._save_queue()
        return outcome

    def queues_input_durably(self) -> bool:
        """Blocked on an approval: a delivery joins the session's queue (saved at
        once), is never taken as the answer, and is sent at the next idle boundary."""
        session = self.session
        return (
            session is not None
            and not session.closed
            and self.exit_code is None
            and session.pending is not None
        )

    def _save_queue(self) -> None:
        """The session's queue on disk now, beside the draft (a kill before the pane
        is unmounted keeps it; the pane's view restores it when it opens again)."""
        from zirv_dash.native.drafts import PersistedDraft, QueuedInput, load_draft, save_draft

        session = self.session
        if session is None:
            return
        queued = [QueuedInput(text=t, queued_at_ms=int(time.time() * 1000)) for t in session.queued]
        self._saved_queue = tuple(session.queued)
        try:
            save_draft(session.name, PersistedDraft(draft=load_draft(session.name).draft,
                                                    queued=queued))  # fmt: skip
        except OSError:
            pass  # the queue still lives in the session; only a crash would lose it

    def resize(self, columns: int, rows: int) -> None:
        columns, rows = max(1, columns), max(1, rows)
        if (columns, rows) != (self.model_view.columns, self.model_view.rows):
            self.model_view.resize(columns, rows)

    # -- state ----------------------------------------------------------------------------

    def check_screen(self, now: float | None = None) -> None:
        """No screen to match: the session states its needs itself."""

    def at_input_prompt(self) -> bool:
        """True only when a submitted line would start a turn now (not steer a
        running one, not wait in the queue behind an approval)."""
        session = self.session
        if session is None or session.closed or self.exit_code is not None:
            return False
        return session.submit_mode() == "send"

    def last_screen_line(self) -> str:
        session = self.session
        if session is None:
            return super().last_screen_line()
        items = session.snapshot().transcript.items
        return items[-1].text.strip().splitlines()[-1][:160] if items and items[-1].text else ""

    def report_lines(self) -> list[str]:
        session = self.session
        if session is None:
            return super().report_lines()
        lines: list[str] = []
        for item in session.snapshot().transcript.items[-20:]:
            if item.kind in ("assistant", "notice") and item.text:
                lines.extend(item.text.splitlines())
        return lines

    def unknown_tool_outcomes(self) -> list[str]:
        session = self.session
        if session is None:
            return []
        items = session.snapshot().transcript.items
        return [
            f"{i.name}({i.args})"[:200]
            for i in items
            if i.kind == "tool" and i.outcome is not None and i.outcome.kind == "unknown"
        ][-16:]

    def ended_words(self) -> str:
        if self.exit_code is None:
            return ""
        if self.spawn_error:
            return "could not start"
        return "session closed"


class NativePaneKind:
    """The native pane kind, as the dashboard opens and records it
    (`zirv_dash.dash.pane_kinds.NativePanes`; the engine installs it, with the
    operator's `[native] require_sandbox`)."""

    def __init__(
        self,
        require_sandbox: bool = False,
        fleet_for: Callable[[NativeSessionPane], Fleet | None] | None = None,
    ) -> None:
        self.require_sandbox = require_sandbox
        self.fleet_for = fleet_for
        """The orchestration backend of a started pane's session (None: no tools)."""

    def new_pane(self, spec: PaneSpec, columns: int, rows: int) -> NativeSessionPane:
        from zirv_dash.native import open_session  # the providers pull in the HTTP client

        role, headless, session_id = spec.role, spec.headless, spec.session_id
        strict = self.require_sandbox

        def opener(workdir: Path, name: str) -> NativeSession:
            return open_session(
                workdir,
                name,
                role=role,
                headless=headless,
                session_id=session_id,
                require_sandbox=strict,
            )

        return NativeSessionPane(spec, columns, rows, opener)

    def started(self, pane: Pane, prompt: str | None, rewrite: Callable[[], None] | None) -> None:
        if not isinstance(pane, NativeSessionPane):
            return
        if rewrite is not None:
            pane.on_record = rewrite
        if self.fleet_for is not None and pane.session is not None:
            pane.session.fleet = self.fleet_for(pane)
        if prompt and pane.session is not None:
            pane.session.submit(prompt, commands=False)

    def record(self, pane: Pane, repo: Path, channel: str | None) -> registry.SessionRecord | None:
        return native_record(pane, repo, channel)


NATIVE_PANES = NativePaneKind()


def native_record(pane: Pane, repo: Path, channel: str | None) -> registry.SessionRecord | None:
    """A native pane's registry record. Its session runs inside the dashboard, so
    `pid` (and `owner_pid`) is the dashboard's: liveness follows the dashboard, and
    `zirv ctx kill` must never signal it; it asks the pane's own spawn channel
    (`dash_requests`, a kill request for itself) instead. It is reachable: the
    dashboard claims its nudge markers and submits its mail. `state` is the
    session's state word, rewritten as it changes; `started_at` stays the pane's."""
    if not isinstance(pane, NativeSessionPane) or pane.session is None:
        return None
    record = registry.SessionRecord.new(
        pane.session_id,
        pane.agent,
        repo,
        "chat" if pane.role == "orchestrator" else "dash",
        os.getpid(),
        reachable=True,
        owner_pid=os.getpid(),
        role=pane.role,
        runtime=NATIVE,
    )
    record = msgspec.structs.replace(record, started_at=int(pane.created_at))
    state = pane.record_state()
    pane.recorded_state = state
    record.extra["state"] = state
    if pane.model:
        record.extra["model"] = pane.model
    if channel:
        record.extra[CONTROL_FIELD] = channel
    return record
