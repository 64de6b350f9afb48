"""A checkbox for dialogs: Space ticks it, Enter is the dialog's, and a plain
capture tells ticked from not.

Textual's Checkbox binds Enter to toggle, so Enter on a focused box in a form
whose footer promises `⏎ spawn` ticked it instead; and it draws `X` in both
states (only the colour differs), so without colours a ticked box looked the
same as an empty one.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Checkbox

TICKED = "X"
EMPTY = " "


class TickBox(Checkbox, inherit_bindings=False):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_button", "toggle", show=False),
    ]

    def watch_value(self) -> None:
        # The glyph itself follows the value, not only its colour.
        self.BUTTON_INNER = TICKED if self.value else EMPTY
        super().watch_value()
        self.refresh()

    def on_mount(self) -> None:
        self.BUTTON_INNER = TICKED if self.value else EMPTY
