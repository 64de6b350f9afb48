"""A multi-line draft where Enter sends and Shift/Alt+Enter starts a new line."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import TextArea

NEWLINE_KEYS = ("shift+enter", "alt+enter", "ctrl+j")


class DraftArea(TextArea):
    """A multi-line draft where Enter sends and Shift/Alt+Enter (or a trailing
    backslash before Enter) starts a new line."""

    DEFAULT_CSS = """
    DraftArea {
        height: 5;
        border: none;
        padding: 0 1;
        background: $boost;
    }
    DraftArea:focus {
        background: $primary 20%;
    }
    """

    class Submitted(Message):
        def __init__(self, area: DraftArea, text: str) -> None:
            super().__init__()
            self.area = area
            self.text = text

        @property
        def control(self) -> DraftArea:
            return self.area

    def __init__(self, *, placeholder: str = "", id: str | None = None) -> None:
        super().__init__(
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
            compact=True,
            placeholder=placeholder,
            id=id,
        )
        self.cursor_blink = False  # steady cursor (and stable snapshots)

    async def _on_key(self, event: events.Key) -> None:
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            row, column = self.cursor_location
            line = self.document[row]
            if column == len(line) and line.endswith("\\"):
                self.delete((row, column - 1), (row, column))
                self.insert("\n")
                return
            self.post_message(self.Submitted(self, self.text))
            return
        await super()._on_key(event)
