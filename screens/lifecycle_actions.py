"""Spawn-request intake, restore roster, ended rows, context menu and inspector (issue 5).

A mixin of DashboardScreen: it may use the screen's `dash`, `views`, `_spawn`,
`_show_focused` and `_update_chrome`. The screen calls the hooks below.

The decisions live in `zirv_dash.intake`; this mixin wires them to the screen:
a watchfiles worker sweeps the channels the moment a request lands (the 1 s tick
is only a fallback), panes it launches get a view like any other, and the
overlays (restore, menu, inspector) are pushed from here.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from textual import work
from textual.timer import Timer

from widgets.sidebar import RosterRow
from zirv_dash.intake import (
    STOP_GRACE,
    Intake,
    dashboard_sections,
    format_sections,
    inspect_sections,
    menu_entries,
)
from zirv_dash.pane import Pane
from zirv_dash.ptysession import Ladder
from zirv_dash.roster import RosterPane

if TYPE_CHECKING:
    from screens.dashboard import DashboardScreen

log = logging.getLogger("zirv.lifecycle")

WATCH_DEBOUNCE_MS = 50
WATCH_STEP_MS = 100
STOP_STEP_SECS = 0.1


class LifecycleActions:
    _intake: Intake
    _intake_stop: asyncio.Event
    _restore_open: bool
    _stop_ladders: dict[str, Ladder]
    _stop_timer: Timer | None = None

    def _lifecycle_mounted(self) -> None:
        """The screen is mounted and the first panes are starting."""
        screen = self._lc_screen
        self._restore_open = False
        self._stop_ladders = {}
        self._intake_stop = asyncio.Event()
        self._intake = Intake(
            screen.dash, spawner=self._lifecycle_spawner, enabled=screen.options.manage_state
        )
        self._intake.start()
        # Queued after the screen's own `_start_initial_panes`: the orchestrator
        # exists (and named the token dir) before the channel is watched and the
        # restore offer counts live panes.
        screen.call_after_refresh(self._lifecycle_started)

    @property
    def _lc_screen(self) -> DashboardScreen:
        return self  # type: ignore[return-value]

    def _lifecycle_started(self) -> None:
        screen = self._lc_screen
        intake = self._intake
        if intake.ensure_channel() is not None:
            self._intake_watch()
        offer = intake.take_restore_offer()
        if offer:
            from screens.restore import RestoreScreen

            self._restore_open = True
            screen.app.push_screen(RestoreScreen(offer), self._lifecycle_restore_done)
        self._lifecycle_sweep()
        screen._update_chrome()

    def _lifecycle_restore_done(self, checked: list[RosterPane] | None) -> None:
        self._restore_open = False
        if checked is None:
            self._intake.skip_restore()
        else:
            self._intake.restore(checked)
        self._lc_screen._update_chrome()
        # The overlay may still be on the stack while its callback runs.
        self._lc_screen.call_after_refresh(self._lifecycle_exit_if_idle)

    def _lifecycle_exit_if_idle(self) -> None:
        """With every pane ended and no dialog open, the dashboard closes as usual."""
        screen = self._lc_screen
        if screen._quitting or screen._overlay_blocks_exit() or screen.dash.live_panes:
            return
        if screen.dash.panes:
            screen._reap()
        else:  # the last retained row was dismissed
            self._intake.on_quit()
            screen._quitting = True
            screen.app.exit(0)

    # -- launching --------------------------------------------------------------------

    def _lifecycle_spawner(self, agent: str, **kw: Any) -> Pane:
        """Dashboard.spawn plus a view, for panes the intake opens."""
        screen = self._lc_screen
        pane = screen.dash.spawn(agent, **kw)
        self._lifecycle_mount(pane)
        return pane

    def _lifecycle_mount(self, pane: Pane) -> None:
        self._lc_screen._mount_view(pane)

    def _lifecycle_sweep(self) -> None:
        """Sweep the spawn channels: claiming, validating and refusing (files and
        `git`) run on a worker thread; only launches and kills come back here."""
        self._intake_sweep_worker()

    @work(exclusive=True, group="intake-sweep", exit_on_error=False)
    async def _intake_sweep_worker(self) -> None:
        screen = self._lc_screen
        if screen._quitting:
            return
        job = self._intake.prepare_sweep()
        if job is None:
            return
        await asyncio.to_thread(job.run)
        if screen._quitting or not screen.is_mounted:
            # What it accepted goes unanswered; the requester sees claimed_no_ack.
            return
        if self._intake.finish_sweep(job):
            screen._update_chrome()

    @work(exclusive=True, group="intake-watch", exit_on_error=False)
    async def _intake_watch(self) -> None:
        """Sweep the moment anything changes in this dashboard's token dir."""
        from watchfiles import awatch

        channel = self._intake.channel
        if channel is None:
            return
        try:
            async for _changes in awatch(
                channel.root,
                watch_filter=None,
                debounce=WATCH_DEBOUNCE_MS,
                step=WATCH_STEP_MS,
                stop_event=self._intake_stop,
                recursive=True,
            ):
                self._lifecycle_sweep()
        except Exception as exc:  # noqa: BLE001 - the 1 s tick still sweeps
            log.warning("channel watch stopped: %s", exc)

    # -- hooks --------------------------------------------------------------------------

    def _lifecycle_tick(self) -> None:
        """Once a second (a fallback; event-driven work should not wait for it)."""
        screen = self._lc_screen
        if screen._quitting:
            return
        if self._intake.tick(sweep=False):
            screen._update_chrome()
        self._lifecycle_sweep()

    def _lifecycle_pane_ended(self, pane: Pane) -> None:
        """A pane's child exited (its last screen is kept)."""
        for old in self._intake.pane_ended(pane):
            self._lifecycle_drop_view(old)
        screen = self._lc_screen
        if not screen.dash.live_panes and not screen._overlay_blocks_exit():
            self._intake.on_quit()

    def _lifecycle_before_quit(self) -> None:
        """The dashboard is about to shut every pane down and exit."""
        self._intake_stop.set()
        self._intake.on_quit()

    def on_unmount(self) -> None:
        # Safety net for exits that bypass the quit path: the token dir goes.
        if hasattr(self, "_intake"):
            self._intake_stop.set()
            self._intake.on_quit()

    def _lifecycle_extra_rows(self) -> list[RosterRow]:
        """Roster rows that are not live panes (retained ended rows, view-only rows).

        Retained ended rows stay in `dash.panes` (dimmed, their last screen
        kept) and are capped by the intake, so nothing is added here.
        """
        return []

    def _lifecycle_drop_view(self, pane: Pane) -> None:
        screen = self._lc_screen
        view = screen.views.pop(pane.short, None)
        if view is not None:
            view.remove()

    # -- actions ------------------------------------------------------------------------

    def _lc_target(self) -> Pane | None:
        return self._lc_screen.dash.focused_pane

    def do_inspect(self, focus: str | None = None) -> None:
        from screens.inspector import InspectorScreen

        screen = self._lc_screen
        pane = self._lc_target()
        if pane is None:
            orch = self._intake.channel.dash_short if self._intake.channel else screen.dash.short
            board = dashboard_sections(self._intake)
            screen.app.push_screen(InspectorScreen(f"dashboard · {orch}", board))
            return
        if not pane.alive:
            pane.tracker.viewed(time.monotonic())  # inspecting an ended ◆ row acknowledges it
        sections = inspect_sections(self._intake, pane, ages=not screen.options.deterministic)
        log.debug("inspect %s: %s", pane.short, format_sections(sections))
        subject = f"{pane.short} · {pane.agent}"
        screen.app.push_screen(InspectorScreen(subject, sections, focus))

    def do_context_menu(self) -> None:
        from screens.menu import MenuScreen

        screen = self._lc_screen
        pane = self._lc_target()
        subject = f"{pane.short} · {pane.role}" if pane is not None else "the dashboard"
        entries = menu_entries(self._intake, pane)

        def done(label: str | None) -> None:
            if label is not None and pane is not None:
                self._lifecycle_menu_action(label, pane)
            elif label in ("inspect", "mail"):
                screen.run_action("inspect" if label == "inspect" else "mail")
            screen._update_chrome()

        screen.app.push_screen(MenuScreen(subject, entries), done)

    def _lifecycle_menu_action(self, label: str, pane: Pane) -> None:
        screen = self._lc_screen
        dash = screen.dash
        if label in ("inspect", "evidence"):
            self.do_inspect("evidence" if label == "evidence" else None)
        elif label == "open worktree":
            dash.notify(f"{pane.short} runs in {pane.cwd}")
            self.do_inspect("identity")
        elif label == "focus":
            if pane in dash.panes:
                screen.do_focus(dash.panes.index(pane))
        elif label == "handover":
            # The menu's row, not necessarily the focused pane.
            screen.open_handover(pane.short)
        elif label in ("nudge", "mail"):
            screen.run_action(label)
        elif label == "stop":
            self._lifecycle_stop(pane)
        elif label in ("restore", "retry"):
            self._lifecycle_relaunch(pane)
        elif label == "dismiss":
            self._lifecycle_dismiss(pane)

    # -- stopping -------------------------------------------------------------------

    def _lifecycle_stop(self, pane: Pane) -> None:
        """The menu's Stop: the same ladder as quit (typed quit only at the input
        prompt, else the harness's clean-quit signals, then SIGKILL to every
        process group of its session), stepped from a timer so the UI never waits."""
        screen = self._lc_screen
        if pane.pty is None or not pane.alive:
            return
        ladders = self._stop_ladders
        if pane.short in ladders:
            return
        ladders[pane.short] = pane.pty.stop_for(
            pane.agent,
            pane.adapter.quit_sequence,
            typed_ok=pane.at_input_prompt(),
            grace=STOP_GRACE,
            defer_submit=pane.adapter.defer_submit,
            drain=False,  # the pane's own reader keeps showing its output
        )
        screen.dash.notify(f"stopping {pane.short}…")
        self._lifecycle_step_stops()
        if ladders and self._stop_timer is None:
            self._stop_timer = screen.set_interval(STOP_STEP_SECS, self._lifecycle_step_stops)

    def _lifecycle_step_stops(self) -> None:
        ladders = self._stop_ladders
        for short, ladder in list(ladders.items()):
            if ladder.step():
                del ladders[short]
                self._lc_screen._schedule_reap()
        timer = self._stop_timer
        if not ladders and timer is not None:
            timer.stop()
            self._stop_timer = None

    def do_restore_row(self) -> None:
        pane = self._lc_target()
        if pane is None:
            return
        entries = {e.label: e for e in menu_entries(self._intake, pane)}
        why = entries["restore"].disabled
        if why is not None:
            self._lc_screen.dash.notify(f"restore {pane.short}: {why}")
            self._lc_screen._update_chrome()
            return
        self._lifecycle_relaunch(pane)

    def _lifecycle_relaunch(self, pane: Pane) -> None:
        screen = self._lc_screen
        new = self._intake.relaunch(pane)
        if new is None:
            screen._update_chrome()
            return
        self._lifecycle_drop_view(pane)
        if new in screen.dash.panes:
            screen.dash.focus(screen.dash.panes.index(new))
        screen._show_focused()

    def _lifecycle_dismiss(self, pane: Pane) -> None:
        screen = self._lc_screen
        if self._intake.dismiss(pane):
            self._lifecycle_drop_view(pane)
            screen._show_focused()
            screen.call_after_refresh(self._lifecycle_exit_if_idle)
