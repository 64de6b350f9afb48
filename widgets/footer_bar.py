"""The one-row footer: facts about the focused pane and a key hint."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widget import Widget


class FooterBar(Widget):
    DEFAULT_CSS = """
    FooterBar {
        height: 1;
        width: 1fr;
        background: $panel;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.segments: tuple[str, ...] = ()
        self.hint = ""

    def update_footer(self, segments: tuple[str, ...], hint: str) -> None:
        if (segments, hint) != (self.segments, self.hint):
            self.segments, self.hint = segments, hint
            self.refresh()

    def render(self) -> Text:
        width = self.size.width
        hint = Text(self.hint + " ", Style(dim=True))
        body = Text(" " + "   ".join(self.segments), no_wrap=True, overflow="ellipsis")
        body.truncate(max(0, width - hint.cell_len), overflow="ellipsis")
        pad = max(0, width - body.cell_len - hint.cell_len)
        return Text.assemble(body, " " * pad, hint)
