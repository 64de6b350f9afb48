"""Help: every binding of the live keymap, grouped by section."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from zirv_dash.keymap import ACTIONS, Keymap, describe_key

SECTIONS = ("navigate", "the selected row", "dashboard")


def help_text(keymap: Keymap) -> Text:
    prefix = describe_key(keymap.prefix)
    out = Text()
    for section in SECTIONS:
        out.append(f"{section}\n", Style(bold=True, color="cyan"))
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
            out.append(f"  {label:<18}", Style(bold=True))
            out.append(f"{keys:<22}")
            description = "focus that pane" if action.id == "focus_1" else action.description
            out.append(f"{description}\n", Style(dim=True))
    out.append("no prefix\n", Style(bold=True, color="cyan"))
    out.append(f"  {'literal prefix':<18}{prefix + ' ' + prefix:<22}", Style(bold=True))
    out.append("send the prefix key itself to the pane\n", Style(dim=True))
    out.append(f"  {'wheel':<18}{'':<22}", Style(bold=True))
    out.append("scroll the pane (or forward to a mouse-aware app)\n", Style(dim=True))
    out.append(f"  {'every other key':<18}{'':<22}", Style(bold=True))
    out.append("goes to the focused pane\n", Style(dim=True))
    out.append(f"\nkeymap: {keymap.source}", Style(dim=True))
    return out


class HelpScreen(ModalScreen[None]):
    CSS_PATH = "overlay.tcss"
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
            yield Label("esc close", classes="dialog-footer")

    def action_close(self) -> None:
        self.dismiss(None)
