"""The handover picker (`Ctrl+A o`); the swap itself is the engine's scheduler."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zirv_dash.harnesses import catalogue

if TYPE_CHECKING:
    from screens.host import DashboardHost


class HandoverActions:
    def __init__(self, screen: DashboardHost) -> None:
        self._screen = screen

    def action_handover(self) -> None:
        screen = self._screen
        pane = screen.dash.focused_pane
        if pane is None:
            screen.dash.notify("handover: no focused pane")
            return
        self.open(pane.short)

    def open(self, short: str) -> None:
        """The handover picker for pane `short` (the context menu's `handover`)."""
        from screens.handover import HandoverChoice, HandoverScreen
        from zirv_dash.handover import swap  # not before the first frame (ARCHITECTURE.md)

        screen = self._screen
        pane = screen.dash.pane_by_short(short)
        if pane is None or not pane.alive:
            screen.dash.notify(f"handover: pane {short} has no running child to hand over")
            return
        gate = screen.dash.gate
        rows = catalogue.picker_rows(
            screen.options.settings, gate.enabled, pane.agent, pane.model, gate.refusal
        )
        book = screen.engine.swaps.book
        note = ""
        if book.busy(short):
            note = f"a handover of pane {short} is in progress"
        elif short in book.pending:
            queued = book.pending[short]
            note = (
                f"⤓ switching to {swap.describe(queued.agent, queued.model)} when idle; "
                "a new choice replaces it"
            )

        def done(choice: HandoverChoice | None) -> None:
            if choice is not None:
                screen.engine.swaps.request(
                    short, choice.agent, choice.model, force=choice.force, fresh=choice.fresh
                )

        overlay = HandoverScreen(short, rows, idle=pane.is_idle(), busy_note=note)
        screen.app.push_screen(overlay, done)
