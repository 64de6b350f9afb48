"""The engine: panes and their I/O, reaping, states, and the controllers.

I/O model. Each pane's PTY fd is watched on the loop (`runtime.pane_io`); the
callback only moves bytes into the pane's inbox. The pump (`runtime.pump`) parses
inboxes in budgeted slices, the focused pane first. States are polled at a
cadence that follows the panes (`runtime.states`).

Commands are plain method calls on the loop; what changed comes out as typed
events (`runtime.events`) to every subscriber. `start()` and `close()` bracket
everything the engine opens: the pump task, the SIGCHLD handler, fd readers and
writers, the file watcher, timers and worker tasks. The controllers see the
engine only through the Protocols of `runtime.host`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from zirv_dash import keys as keycodes
from zirv_dash.dash.dashboard import Dashboard, DashError
from zirv_dash.listeners import Listeners
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime import events as ev
from zirv_dash.runtime.childwatch import ChildWatch
from zirv_dash.runtime.fdwatch import FdWatch
from zirv_dash.runtime.lazy import Lazy, built
from zirv_dash.runtime.native_pane import NativePaneKind, NativeSessionPane
from zirv_dash.runtime.orchestration import fleet_for
from zirv_dash.runtime.pane_io import PaneIO
from zirv_dash.runtime.pump import Pump
from zirv_dash.runtime.scheduling import Scheduling
from zirv_dash.runtime.states import STATE_FRESH, StatePoller
from zirv_dash.runtime.stops import StopController
from zirv_dash.runtime.watch import StateWatcher
from zirv_dash.runtime.worktrees import WorktreeController

if TYPE_CHECKING:
    from zirv_dash.runtime.context_ctl import ContextController
    from zirv_dash.runtime.mail_ctl import MailController
    from zirv_dash.runtime.swaps import SwapScheduler

log = logging.getLogger("zirv.engine")

TICK_SECS = 1.0
"""The fallback tick: exits SIGCHLD did not report, pending writes, retries."""


class Engine(Scheduling):
    # The services: built on first use (`runtime.lazy`), started by
    # `start_services()`. A dashboard starts them after its first frame, so the
    # import graph up to that frame holds none of them (ARCHITECTURE.md, "The
    # first frame's import graph").
    mail: Lazy[MailController] = Lazy("zirv_dash.runtime.mail_ctl", "MailController")
    swaps: Lazy[SwapScheduler] = Lazy("zirv_dash.runtime.swaps", "SwapScheduler")
    context: Lazy[ContextController] = Lazy("zirv_dash.runtime.context_ctl", "ContextController")

    def __init__(self, dash: Dashboard, *, session_ids: list[str] | None = None) -> None:
        self.dash = dash
        self.session_ids = list(session_ids or [])
        self._subscribers: Listeners[ev.EngineEvent] = Listeners()
        self.output_taps: list[Callable[[Pane, bytes], None]] = []
        """Called with each chunk a pane's child wrote, as read (before parsing):
        what a runtime serving clients streams to them."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._fds: FdWatch | None = None
        self.children: ChildWatch | None = None
        """A pidfd per pane's child: its exit is reaped when it happens."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._sigchld = False
        self._reap_pending = False
        self.quitting = False
        self.closed = False
        self.watcher = StateWatcher(self._watch_failed)
        self.states = StatePoller(self, self._state_changed)
        self.pump = Pump(self)
        self.io = PaneIO(self, self.pump, self.states)
        self.stops = StopController(self)
        self.worktrees = WorktreeController(self)
        self.services_started = False
        """Mail, handovers and context windows are running (`start_services`)."""
        # Imported here: the intake controller pulls in the spawn protocol.
        from zirv_dash.runtime.intake_ctl import IntakeController

        self.intake = IntakeController(self)
        dash.listener = self._dash_said
        # The kind lives in this floor, above dash/; `[native]` is the operator's, and
        # its sessions can orchestrate.
        dash.native_panes = NativePaneKind(
            dash.settings.native.require_sandbox, fleet_for=functools.partial(fleet_for, dash)
        )

    # -- subscribers -------------------------------------------------------------------

    def subscribe(self, callback: Callable[[ev.EngineEvent], None]) -> Callable[[], None]:
        """Call `callback` with every event from now on; returns the unsubscribe."""
        return self._subscribers.add(callback)

    def emit(self, event: ev.EngineEvent) -> None:
        self._subscribers.emit(event)

    def mail_badge(self, pane: Pane) -> str:
        """A pane's unread-mail badge; "" while mail is not built (nothing read yet)."""
        return self.mail.badge(pane) if built(self, "mail") else ""

    def swap_note(self, pane: Pane) -> str:
        """A pane's pending-handover note; "" while no handover was ever asked."""
        return self.swaps.note(pane) if built(self, "swaps") else ""

    def _dash_said(self, kind: str, text: str) -> None:
        self.emit(ev.ErrorRaised(text) if kind == "error" else ev.Notice(text))

    def changed(self) -> None:
        """Something the chrome shows changed (badges, notes)."""
        self.emit(ev.ChromeChanged())

    # -- lifetime ----------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self._loop is not None

    def start(self, *, services: bool = True) -> None:
        """Begin serving on the running loop (earlier panes: `runtime.prespawn`).

        `services=False` leaves mail, handovers and context windows to a later
        `start_services()` (a dashboard calls it once its first frame is drawn)."""
        self._loop = asyncio.get_running_loop()
        self._fds = FdWatch(self._loop)
        self.children = ChildWatch(self._loop, self.schedule_reap)
        self.io.bind(self._fds)
        for pane in self.dash.panes:
            self.watch(pane)
        self.pump.start()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            self._loop.add_signal_handler(signal.SIGCHLD, self.schedule_reap)
            self._sigchld = True
        self.call_later("tick", TICK_SECS, self._tick)
        self.states.start()
        self.intake.start()
        if services:
            self.start_services()

    def start_services(self) -> None:
        """Start mail delivery, the handover scheduler and the context watches:
        each catches up on the panes and requests that exist by now."""
        if self.services_started or self.closed or self._loop is None:
            return
        self.services_started = True
        self.mail.start()
        self.swaps.start()
        self.context.start()

    def close(self) -> None:
        """Release everything `start()` and the panes opened on the loop."""
        if self.closed:
            return
        self.closed = True
        self.quitting = True
        self.intake.close()
        if built(self, "context"):
            self.context.close()
        self.watcher.close()
        pump = self.pump.close()
        if pump is not None:
            self._tasks.add(pump)
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        self.stops.release()
        for task in list(self._tasks):
            task.cancel()
        if self._sigchld and self._loop is not None:
            with contextlib.suppress(RuntimeError, ValueError):
                self._loop.remove_signal_handler(signal.SIGCHLD)
            self._sigchld = False
        if self._fds is not None:
            self._fds.close()
        if self.children is not None:
            self.children.close()
        self._subscribers.clear()

    async def wait_closed(self) -> None:
        """After close(): until every task the engine ran has finished."""
        tasks = [*self._tasks, *self.watcher.stopping]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    def _watch_failed(self, reason: str) -> None:
        self.dash.notify("file watching unavailable; checking every second")
        log.warning("watcher: %s", reason)

    def _tick(self) -> None:
        self.call_later("tick", TICK_SECS, self._tick)
        if self.quitting:
            return
        for pane in self.dash.live_panes:
            self.ensure_flush(pane)
        if any(p.exit_code is None and p.pty is not None for p in self.dash.panes):
            # Exits SIGCHLD did not report (another loop in this process may hold
            # the handler); a reap is a waitpid per pane, escapes are rate-limited.
            self.schedule_reap()
        self.intake.tick()
        if self.services_started:
            self.mail.tick()
            self.swaps.tick()

    # -- fds (runtime.pane_io) ---------------------------------------------------------

    def watch(self, pane: Pane) -> None:
        self.io.watch(pane)
        if self.children is not None and not self.quitting:
            self.children.watch(pane)

    def unwatch(self, pane: Pane) -> None:
        self.io.unwatch(pane)

    def ensure_flush(self, pane: Pane) -> None:
        self.io.ensure_flush(pane)

    def pause_hidden_reads(self, until: float) -> None:
        self.io.pause_hidden_reads(until)

    def resume_hidden_reads(self) -> None:
        self.io.resume_hidden_reads()

    # -- panes ---------------------------------------------------------------------------

    def spawn(self, agent: str, *, focus: bool = True, **kw: Any) -> Pane | None:
        """Open a pane; None (and an error in the log) when refused."""
        if "session_id" not in kw and self.session_ids:
            kw["session_id"] = self.session_ids.pop(0)
        try:
            return self.open_pane(agent, focus=focus, **kw)
        except DashError as exc:
            self.dash.error(f"spawn: {exc}")
            return None

    def spawn_for_operator(
        self, agent: str, prompt: str | None, model: str | None, cwd: str
    ) -> Pane | None:
        """A pane from the spawn dialog: refused (said on the error log) when
        another live delegation holds the tree's writer permit; else opened and
        given a delegation record owned by the operator, as `zirv agent` does."""
        refusal = self.intake.operator_refusal(agent, cwd)
        if refusal is not None:
            self.dash.error(f"spawn: {refusal}")
            return None
        pane = self.spawn(agent, prompt=prompt, model=model, cwd=cwd)
        if pane is not None:
            self.intake.operator_pane(pane, prompt, model)
        return pane

    def operator_pane(
        self, pane: Pane, prompt: str | None, model: str | None, worktree: bool = False
    ) -> None:
        self.intake.operator_pane(pane, prompt, model, worktree)

    def open_pane(self, agent: str, *, focus: bool = True, **kw: Any) -> Pane:
        """Dashboard.spawn plus I/O and an event; raises DashError when refused."""
        pane = self.dash.spawn(agent, focus=focus, **kw)
        self.watch(pane)
        self.emit(ev.PaneAdded(pane.short, focus))
        if self.services_started:
            self.context.sync()
        if focus:
            self.emit(ev.FocusChanged(pane.short))
        self.poll_states()
        return pane

    def adopt_pane(self, pane: Pane, *, focus: bool = False) -> None:
        """A pane opened elsewhere (a remote host's session) joins the roster: its
        I/O is watched and shown like any pane's (Dashboard.adopt)."""
        self.dash.adopt(pane, focus=focus)
        self.watch(pane)
        self.emit(ev.PaneAdded(pane.short, focus))
        self.poll_states()

    def pane(self, short: str) -> Pane | None:
        return self.dash.pane_by_short(short)

    def focus(self, index: int) -> bool:
        if not self.dash.focus(index):
            return False
        self._focus_changed()
        return True

    def focus_next(self, step: int = 1) -> None:
        if step >= 0:
            self.dash.next_pane()
        else:
            self.dash.prev_pane()
        self._focus_changed()

    def focus_needing_you(self) -> bool:
        if not self.dash.next_needing_you():
            return False
        self._focus_changed()
        return True

    def _focus_changed(self) -> None:
        self.resume_hidden_reads()  # the pane now shown may be one left unread
        focused = self.dash.focused_pane
        self.emit(ev.FocusChanged(focused.short if focused else None))
        self.poll_states()

    def close_native(self, pane: Pane, reason: str = "closed by the operator") -> bool:
        """End a native pane's session (Ctrl+Q in it, a stop): that pane only; it
        becomes an ended row. False if it is not a live native pane."""
        if not isinstance(pane, NativeSessionPane) or not pane.alive or pane.closing:
            return False

        async def close() -> None:
            await pane.close_session(reason)
            self.schedule_reap()

        self.run_task(close(), f"close {pane.short}")
        return True

    def remove_pane(self, pane: Pane) -> None:
        """A row left the roster (the intake dismissed or replaced it)."""
        self.emit(ev.PaneRemoved(pane.short))

    # -- input ---------------------------------------------------------------------------

    def send_input(self, data: bytes, *, typed: bool = True, short: str | None = None) -> None:
        """Bytes for a pane's child (the focused pane by default)."""
        pane = self.pane(short) if short else self.dash.focused_pane
        if pane is None or not data:
            return
        was_scrolled = pane.scroll_offset
        pane.send(data, typed=typed)
        self.ensure_flush(pane)
        if was_scrolled and not pane.scroll_offset:
            self.emit(ev.PaneReplaced(pane.short))

    def paste(self, text: str, short: str | None = None) -> None:
        pane = self.pane(short) if short else self.dash.focused_pane
        if pane is not None:
            self.send_input(keycodes.bracket_paste(text, pane.model_view.bracketed_paste))

    def resize(self, columns: int, rows: int) -> None:
        if columns > 0 and rows > 0:
            self.dash.resize_panes(columns, rows)

    def set_visible(self, short: str, visible: bool) -> None:
        """What a completed frame showed: only the UI can know it."""
        pane = self.pane(short)
        if pane is not None and pane.tracker.visible != visible:
            pane.set_visible(visible)
            self.poll_states()

    # -- states (runtime.states) -------------------------------------------------------

    def poll_fresh(self, max_age: float = STATE_FRESH) -> None:
        self.states.poll_fresh(max_age)

    def poll_states(self) -> None:
        self.states.poll()

    def poll_soon(self) -> None:
        self.states.poll_soon()

    def _state_changed(self, pane: Pane) -> None:
        """After a pane's StateChanged: what waited for a state may go ahead."""
        if not self.services_started:
            return  # `start_services` catches up on every pane's state
        self.swaps.state_changed(pane)
        self.mail.state_changed()
        self.context.state_changed(pane)

    # -- exits ---------------------------------------------------------------------------

    def schedule_reap(self) -> None:
        if not self._reap_pending and self._loop is not None and not self.closed:
            self._reap_pending = True
            self._loop.call_soon(self.reap)

    def reap(self) -> list[Pane]:
        self._reap_pending = False
        if self.quitting:
            return []  # the shutdown owns the children now
        if built(self, "swaps"):  # none built: no handover ran, no successor to give back
            self.swaps.before_reap()  # a failed successor gives its pane back, not ends it
        for pane in self.dash.panes:
            # Stop watching a finished child's PTY and socket before reaping
            # closes them: a reader left on a closed fd would later swallow the
            # fd number of the next pane opened.
            if pane.exit_code is None and pane.pty is not None and pane.pty.poll() is not None:
                self.unwatch(pane)
                self.io.unwatch_signal(pane)
        ended = self.dash.reap()
        if any(p.exit_code is None and p.inbox for p in self.dash.panes):
            # An exited child's last output, drained by the reap itself (its reader
            # was gone or had not run yet), waits to be parsed before the pane
            # ends: nothing else would wake the pump for it, and the pane stayed
            # running until some other pane's output did. The pump reaps it after.
            self.pump.wake()
        for pane in ended:
            if self.children is not None:
                self.children.forget(pane)
            self.intake.pane_ended(pane)
            self.worktrees.pane_ended(pane)
            self.unwatch(pane)
            self.emit(ev.PaneEnded(pane.short, pane.exit_code))
        if ended:
            self.poll_states()
        self.check_all_ended()
        return ended

    def check_all_ended(self) -> None:
        """Every pane has ended: the UI says so (it stays on them until a quit)."""
        if self.dash.all_ended and not self.quitting and not self.intake.restore_open:
            code = 1 if any((p.exit_code or 0) != 0 for p in self.dash.panes) else 0
            self.emit(ev.AllEnded(code))

    # -- quitting ------------------------------------------------------------------------

    def shutdown(self) -> None:
        """End every pane's session (off the loop), then emit Closed."""
        if self.quitting:
            return
        self.quitting = True
        self.intake.before_quit()
        live = len(self.dash.live_panes)
        self.dash.notify(f"shutting down {live} pane(s)…")
        for pane in self.dash.panes:
            self.unwatch(pane)
            self.io.unwatch_signal(pane)
        self.run_task(self._shutdown(), "shutdown")

    async def _shutdown(self) -> None:
        try:
            # Native sessions end on this loop (their turns are tasks of it);
            # every child is then ended off the loop.
            native = [p for p in self.dash.panes if isinstance(p, NativeSessionPane)]
            await asyncio.gather(*(p.close_session() for p in native), return_exceptions=True)
            await asyncio.to_thread(self.dash.shutdown_all)
            if built(self, "swaps"):  # a kept predecessor exists only after a handover
                await asyncio.to_thread(self.swaps.stop_kept)
        finally:
            # Whatever happened above, the dashboard closes; the caller then
            # makes sure nothing is left running.
            self.emit(ev.Closed())
