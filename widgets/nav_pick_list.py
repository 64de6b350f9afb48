"""A PickList that also answers j/k, for lists that hold the focus alone."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from widgets.pick_list import PickList


class NavPickList(PickList):
    """j/k move like ↓/↑: for a list with no text field beside it to take letters."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", show=False),
        Binding("k", "cursor_up", show=False),
    ]
