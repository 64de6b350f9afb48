"""Palette (`Ctrl+A p`): every action with its chord, filtered as you type.

Built from zirv_dash.keymap.ACTIONS and the live keymap. Typing filters by fuzzy
subsequence (Textual's fuzzy Matcher; case-insensitive, whitespace ignored) over
label, chord and description, the matched characters underlined; with an empty
query rows are grouped under their sections. Disabled actions stay listed,
dimmed, with the reason. Enter (or a double-click) runs the highlighted action
exactly as its chord would. Textual's command palette is off app-wide (it would
steal Ctrl+P from agents), so this is a dialog of our own. Its rows stay a
hand-drawn list, not an OptionList: section headings sit between the rows, a
disabled row still takes the cursor (Enter on it says why), and ↑/↓ move the
rows while the query keeps the focus and every typed letter (j/k included).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label

from screens.dialog import DialogScreen
from widgets.hint_bar import HintBar
from widgets.palette_list import Entry, PaletteList, fuzzy_match, fuzzy_score
from zirv_dash.keymap import ACTIONS, Keymap, describe_key

__all__ = [
    "Entry",
    "HintBar",
    "PaletteList",
    "PaletteScreen",
    "build_entries",
    "fuzzy_match",
    "fuzzy_score",
]

SECTIONS = ("navigate", "the selected row", "dashboard")


def build_entries(
    keymap: Keymap, unavailable: Callable[[str], str | None], pane_count: int = 9
) -> list[Entry]:
    prefix = describe_key(keymap.prefix)
    out = []
    for section in SECTIONS:
        for action in ACTIONS:
            if action.section != section:
                continue
            if action.id.startswith("focus_") and int(action.id[6:]) > pane_count:
                continue  # one row per pane that exists
            chords = keymap.chords_for(action.id)
            chord = " / ".join(f"{prefix} {describe_key(c)}" for c in chords) or "—"
            out.append(
                Entry(
                    action.id,
                    action.label,
                    section,
                    action.description,
                    chord,
                    unavailable(action.id),
                )
            )
    return out


class PaletteScreen(DialogScreen[str | None]):
    """Returns the id of the action to run, or None."""

    DEFAULT_CSS = """
    PaletteScreen .dialog {
        width: 96%;
        max-width: 110;
        height: auto;
        max-height: 90%;
    }
    PaletteScreen #palette-query {
        margin-bottom: 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", show=False),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("pageup", "move(-10)", show=False, priority=True),
        Binding("pagedown", "move(10)", show=False, priority=True),
    ]

    def __init__(self, entries: list[Entry], title: str = "palette") -> None:
        super().__init__()
        self.entries = entries
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = self.title_text
            query = Input(placeholder="type to filter actions", id="palette-query")
            query.cursor_blink = False  # steady cursor (and stable snapshots)
            yield query
            yield PaletteList(self.entries, id="palette-list")
            yield HintBar(
                [("⏎", "run"), ("↑/↓", "move"), ("esc", "close")],
                classes="dialog-footer",
                id="palette-footer",
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one(PaletteList).set_query(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        entry = self.query_one(PaletteList).current
        if entry is not None:
            self._run(entry)

    def on_hint_bar_clicked(self, message: HintBar.Clicked) -> None:
        message.stop()
        if message.key == "esc":
            self.dismiss(None)
        else:
            entry = self.query_one(PaletteList).current
            if entry is not None:
                self._run(entry)

    def on_palette_list_activated(self, message: PaletteList.Activated) -> None:
        message.stop()
        self._run(message.entry)

    def _run(self, entry: Entry) -> None:
        if entry.disabled:
            self.query_one("#palette-footer", Label).update(
                f"{entry.label}: {entry.disabled}   esc close"
            )
            return
        self.dismiss(entry.action)

    def action_move(self, delta: int) -> None:
        self.query_one(PaletteList).move(delta)

    def action_close(self) -> None:
        self.dismiss(None)
