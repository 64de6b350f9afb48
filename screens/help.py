"""Help: every binding of the live keymap, grouped by section."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from screens.dialog import DialogScreen
from widgets.key_hints import KeyHints
from zirv_dash.keymap import ACTIONS, Keymap, describe_key

SECTIONS = ("navigate", "the selected row", "dashboard")


def help_rows(keymap: Keymap) -> list[tuple[str, str, str] | str]:
    """Section headings (str) and (label, keys, description) rows."""
    prefix = describe_key(keymap.prefix)
    rows: list[tuple[str, str, str] | str] = []
    for section in SECTIONS:
        rows.append(section)
        for action in ACTIONS:
            if action.section != section:
                continue
            label = action.label
            chords = keymap.chords_for(action.id)
            if action.id.startswith("focus_"):
                # Nine near-identical rows read better as one.
                if action.id != "focus_1":
                    continue
                digits = [n for n in range(1, 10) if keymap.chords_for(f"focus_{n}")]
                if not digits:
                    continue
                label, chords = "jump to pane", [f"{digits[0]}-{digits[-1]}"]
            if not chords:
                continue
            keys = " / ".join(f"{prefix} {describe_key(c)}" for c in chords)
            description = "focus that pane" if action.id == "focus_1" else action.description
            rows.append((label, keys, description))
    rows.append("no prefix")
    rows.append(("literal prefix", f"{prefix} {prefix}", "send the prefix key itself to the pane"))
    rows.append(("wheel", "", "scroll the pane (or forward to a mouse-aware app)"))
    rows.append(("every other key", "", "goes to the focused pane"))
    return rows


def help_text(keymap: Keymap) -> Table:
    """A grid whose description column wraps within itself: a long description
    continues under its own first word, never at the dialog's left edge."""
    table = Table.grid(padding=(0, 2, 0, 0))
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column(ratio=1)
    for row in help_rows(keymap):
        if isinstance(row, str):
            table.add_row(Text(row, Style(bold=True, color="cyan")))
            continue
        label, keys, description = row
        table.add_row(
            Text(f"  {label}", Style(bold=True)), Text(keys), Text(description, Style(dim=True))
        )
    table.add_row("")
    table.add_row(Text(f"keymap: {keymap.source}", Style(dim=True), overflow="fold"))
    return table


class HelpScreen(DialogScreen[None]):
    DEFAULT_CSS = """
    HelpScreen .dialog { width: 96%; max-width: 110; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter,question_mark", "close", "close", show=False),
    ]

    def __init__(self, keymap: Keymap) -> None:
        super().__init__()
        self.keymap = keymap

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "help"
            with VerticalScroll():
                yield Static(help_text(self.keymap), id="help-body")
            yield KeyHints([("esc", "close")], classes="dialog-footer")

    def action_close(self) -> None:
        self.dismiss(None)
