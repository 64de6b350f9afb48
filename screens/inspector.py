"""The inspector (`Ctrl+A i`): what the dashboard knows about one row.

Title `inspect · {subject}`; sections of `{key:<12}{value}` lines. Read-only.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from screens.dialog import DialogScreen
from widgets.key_hints import KeyHints
from widgets.pane_header import shorten_home
from zirv_dash.intake import Section


def sections_text(sections: list[Section], focus: str | None = None) -> Text:
    if not any(rows for _, rows in sections):
        return Text("(nothing recorded for this row)", Style(dim=True))
    out = Text()
    for n, (title, rows) in enumerate(sections):
        if n:
            out.append("\n")
        heading = Style(bold=True, color="cyan", underline=title == focus)
        out.append(f"{title}\n", heading)
        for key, value in rows:
            out.append(f"{key:<12}", Style(dim=True))
            # A path under HOME reads `~/…`, as the pane header shows it.
            out.append(f"{shorten_home(value) if key in ('cwd', 'file') else value}\n")
    out.rstrip()
    return out


class InspectorScreen(DialogScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter", "close", "close", show=False),
        Binding("j,down", "scroll(1)", show=False),
        Binding("k,up", "scroll(-1)", show=False),
    ]

    def __init__(self, subject: str, sections: list[Section], focus: str | None = None) -> None:
        super().__init__()
        self.subject = subject
        self.sections = sections
        self.focus_section = focus

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = f"inspect · {self.subject}"
            with VerticalScroll(id="inspect-scroll"):
                yield Static(sections_text(self.sections, self.focus_section), id="inspect-body")
            yield KeyHints([("j", "down"), ("k", "up"), ("esc", "close")], classes="dialog-footer")

    def on_mount(self) -> None:
        if self.focus_section:
            line = 0
            for title, rows in self.sections:
                if title == self.focus_section:
                    break
                line += len(rows) + 2
            self.query_one("#inspect-scroll", VerticalScroll).scroll_to(y=line, animate=False)

    def action_scroll(self, lines: int) -> None:
        scroll = self.query_one("#inspect-scroll", VerticalScroll)
        scroll.scroll_relative(y=lines, animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
