"""An OptionList for dialogs: a click highlights, a double click selects."""

from __future__ import annotations

from textual import events
from textual.widgets import OptionList


class PickList(OptionList):
    """An OptionList where a click highlights and a double click selects.

    Textual's OptionList selects on the first click; in a dialog that means one
    stray click swaps a pane's harness or spawns before the other fields are set.
    The wheel moves the highlight, so a short list still answers it."""

    async def _on_click(self, event: events.Click) -> None:
        event.prevent_default()  # not OptionList's select-on-first-click
        event.stop()
        clicked: int | None = event.style.meta.get("option")
        if clicked is None or self.get_option_at_index(clicked).disabled:
            return
        self.highlighted = clicked
        if event.chain >= 2:
            self.action_select()

    def _on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.prevent_default()
        event.stop()
        self.action_cursor_down()

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.prevent_default()
        event.stop()
        self.action_cursor_up()
