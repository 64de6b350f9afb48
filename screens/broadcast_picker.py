"""Broadcast picker: choose the live panes typing is copied to.

One row per live pane, `[x]` when chosen. Space toggles the highlighted row (a
double click starts, as Enter does), `a` toggles them all, Enter
starts broadcasting to the chosen ones (the highlighted one when none is
chosen), Esc cancels. The focused pane starts chosen: it gets the typing anyway.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label
from textual.widgets.option_list import Option

from screens.dialog import DialogScreen
from widgets.key_hints import KeyHints
from widgets.pick_list import PickList

EMPTY_TEXT = "no live pane to broadcast to"
TITLE = "broadcast · type into several panes"


@dataclass(frozen=True)
class PickRow:
    short: str
    label: str
    """`orch claude`, `1a2b3c4d codex`: the name and harness shown."""
    focused: bool = False


def row_text(row: PickRow, chosen: bool) -> Text:
    """The row as plain text: a `str` prompt would be read as Rich markup, and
    `[x]` (like any `[...]` in a label) would vanish as a tag."""
    mark = "[x]" if chosen else "[ ]"
    return Text(f"{mark} {row.label}" + ("  (focused)" if row.focused else ""))


class BroadcastPicker(DialogScreen[list[str] | None]):
    """Returns the chosen short ids (in roster order), or None when cancelled."""

    DEFAULT_CSS = """
    BroadcastPicker .dialog { max-width: 60; }
    BroadcastPicker #broadcast-rows { max-height: 14; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", show=False),
    ]

    def __init__(self, rows: Sequence[PickRow], chosen: Sequence[str] = ()) -> None:
        super().__init__()
        self.rows = list(rows)
        self.chosen: set[str] = set(chosen) & {r.short for r in self.rows}

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = TITLE
            if not self.rows:
                yield Label(EMPTY_TEXT, id="broadcast-empty")
                yield KeyHints([("esc", "close")], classes="dialog-footer")
                return
            options = [Option(row_text(r, r.short in self.chosen), id=r.short) for r in self.rows]
            yield PickList(*options, id="broadcast-rows")
            yield Label("", id="broadcast-count", markup=False)
            keys = [("space", "choose"), ("a", "all"), ("⏎", "start"), ("esc", "cancel")]
            yield KeyHints(keys, classes="dialog-footer")

    def on_mount(self) -> None:
        if self.rows:
            self.query_one("#broadcast-rows", PickList).focus()
            self._count()

    def _count(self) -> None:
        count = len(self.chosen)
        text = f"{count} chosen" if count else "none chosen: ⏎ takes the highlighted pane"
        self.query_one("#broadcast-count", Label).update(text)

    def toggle(self, index: int) -> None:
        row = self.rows[index]
        self.chosen.symmetric_difference_update({row.short})
        options = self.query_one("#broadcast-rows", PickList)
        options.replace_option_prompt_at_index(index, row_text(row, row.short in self.chosen))
        self._count()

    def toggle_all(self) -> None:
        everyone = {r.short for r in self.rows}
        self.chosen = set() if self.chosen == everyone else everyone
        options = self.query_one("#broadcast-rows", PickList)
        for index, row in enumerate(self.rows):
            options.replace_option_prompt_at_index(index, row_text(row, row.short in self.chosen))
        self._count()

    def on_key(self, event: events.Key) -> None:
        if not self.rows or event.key not in ("space", "a"):
            return
        event.stop()
        event.prevent_default()
        if event.key == "a":
            self.toggle_all()
            return
        highlighted = self.query_one("#broadcast-rows", PickList).highlighted
        if highlighted is not None:
            self.toggle(highlighted)

    @on(PickList.OptionSelected, "#broadcast-rows")
    def _start(self, message: PickList.OptionSelected) -> None:
        message.stop()
        picked = [r.short for r in self.rows if r.short in self.chosen]
        if not picked:
            picked = [self.rows[message.option_index].short]
        self.dismiss(picked)

    def action_cancel(self) -> None:
        self.dismiss(None)
