"""Chords and overlays for a pane's lifecycle: restore, inspect, the context menu, stop.

The decisions live in `zirv_dash.intake` and the engine's intake controller;
this pushes the overlays (restore, menu, inspector) and acts on their answers.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from zirv_dash.dash.roster import RosterPane
from zirv_dash.intake import dashboard_sections, format_sections, inspect_sections, menu_entries
from zirv_dash.keymap import describe_key
from zirv_dash.panes.pane import Pane

if TYPE_CHECKING:
    from screens.host import DashboardHost

log = logging.getLogger("zirv.lifecycle")

ACTS_ON_FOCUSED = ("inspect", "evidence", "open worktree", "nudge", "mail")
"""Menu entries that act on the focused pane: the menu's row becomes it first."""


class LifecycleActions:
    def __init__(self, screen: DashboardHost) -> None:
        self._screen = screen

    def offer_restore(self, offer: tuple[RosterPane, ...]) -> None:
        from screens.restore import RestoreScreen

        self._screen.app.push_screen(RestoreScreen(list(offer)), self._restore_done)

    def _restore_done(self, checked: list[RosterPane] | None) -> None:
        screen = self._screen
        screen.engine.intake.restore_done(checked)
        # The overlay may still be on the stack while its callback runs.
        screen.call_after_refresh(self.exit_if_idle)

    def all_ended(self) -> None:
        """Every pane has ended: say so and how to go on (the focused pane's
        header and footer show its exit status); nothing closes by itself."""
        screen = self._screen
        keymap = screen.keys.keymap
        prefix = describe_key(keymap.prefix)

        def chord(action: str) -> str:
            chords = keymap.chords_for(action)
            return f"{prefix} {describe_key(chords[0])}" if chords else action

        screen.dash.notify(
            f"every pane has ended · {chord('restore_row')} restarts it · {chord('quit')} quits"
        )

    def exit_if_idle(self) -> None:
        """With no row left (the last one dismissed) and no dialog open, the
        dashboard closes; with ended rows it stays on them (`all_ended`)."""
        screen = self._screen
        engine = screen.engine
        if engine.quitting or screen.overlay_open() or screen.dash.live_panes:
            return
        if screen.dash.panes:
            engine.reap()
        else:  # the last retained row was dismissed
            if not screen.hosted:  # the runtime writes its own roster when it stops
                engine.intake.before_quit()
            screen.close_app(0)

    # -- chords ----------------------------------------------------------------------

    def action_inspect(self, focus: str | None = None) -> None:
        from screens.inspector import InspectorScreen

        screen = self._screen
        intake = screen.engine.intake.intake
        pane = screen.dash.focused_pane
        if pane is None:
            orch = intake.channel.dash_short if intake.channel else screen.dash.short
            board = dashboard_sections(intake)
            screen.app.push_screen(InspectorScreen(f"dashboard · {orch}", board))
            return
        if not pane.alive:
            pane.tracker.viewed(time.monotonic())  # inspecting an ended ◆ row acknowledges it
        sections = inspect_sections(intake, pane, ages=not screen.options.deterministic)
        log.debug("inspect %s: %s", pane.short, format_sections(sections))
        screen.app.push_screen(InspectorScreen(f"{pane.short} · {pane.agent}", sections, focus))

    def action_context_menu(self, pane: Pane | None = None, *, keep_focus: bool = False) -> None:
        """The focused pane's menu, or (right-click) a row's, leaving focus where it is."""
        from screens.menu import MenuScreen

        screen = self._screen
        target = pane if pane is not None else screen.dash.focused_pane
        subject = f"{target.short} · {target.role}" if target is not None else "the dashboard"
        entries = menu_entries(screen.engine.intake.intake, target)

        def done(label: str | None) -> None:
            if label is not None and target is not None:
                if keep_focus and label in ACTS_ON_FOCUSED and target in screen.dash.panes:
                    screen.engine.focus(screen.dash.panes.index(target))
                self.menu_action(label, target)
            elif label in ("inspect", "mail"):
                screen.run_chord(label)
            screen.chrome.schedule()

        screen.app.push_screen(MenuScreen(subject, entries), done)

    def menu_action(self, label: str, pane: Pane) -> None:
        screen = self._screen
        dash = screen.dash
        if label in ("inspect", "evidence"):
            self.action_inspect("evidence" if label == "evidence" else None)
        elif label == "open worktree":
            dash.notify(f"{pane.short} runs in {pane.cwd}")
            self.action_inspect("identity")
        elif label == "focus":
            if pane in dash.panes:
                screen.engine.focus(dash.panes.index(pane))
        elif label == "handover":
            # The menu's row, not necessarily the focused pane.
            screen.handover.open(pane.short)
        elif label in ("nudge", "mail"):
            screen.run_chord(label)
        elif label == "stop":
            screen.engine.stops.stop(pane)
        elif label in ("restore", "retry"):
            screen.engine.intake.relaunch(pane)
        elif label == "dismiss":
            if screen.engine.intake.dismiss(pane):
                screen.call_after_refresh(self.exit_if_idle)

    def action_restore_row(self) -> None:
        screen = self._screen
        pane = screen.dash.focused_pane
        if pane is None:
            return
        entries = {e.label: e for e in menu_entries(screen.engine.intake.intake, pane)}
        why = entries["restore"].disabled
        if why is not None and screen.engine.intake.restartable(pane):
            # No request kept (the orchestrator, a pane opened without a task):
            # the same harness, model, directory and role again.
            screen.engine.intake.restart(pane)
            return
        if why is not None:
            screen.dash.notify(f"restore {pane.short}: {why}")
            return
        screen.engine.intake.relaunch(pane)
