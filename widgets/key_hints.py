"""A dialog footer of `key label` hints; a click on one presses its key."""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

KEY_NAMES = {
    "⏎": "enter",
    "enter": "enter",
    "esc": "escape",
    "tab": "tab",
    "space": "space",
    "?": "question_mark",
}
"""How a hint shows a key -> the key's Textual name."""
HINT_GAP = "   "


def key_event(shown: str) -> events.Key | None:
    """The key press a hint stands for, or None (`j/k`, `↑↓`, `a-z`: not one key)."""
    name = KEY_NAMES.get(shown)
    if name is not None:
        return events.Key(name, "\r" if name == "enter" else None)
    if len(shown) == 1 and shown.isprintable() and not shown.isspace():
        return events.Key(shown, shown)
    return None


def _hint_text(shown: str, label: str) -> Text:
    out = Text()
    out.append(shown, Style(bold=True))
    out.append(f" {label}")
    return out


class KeyHints(Widget):
    """A dialog footer of `key label` hints; a click on one presses its key.

    Lines break between hints, never inside one, so a narrow dialog wraps the
    footer onto a second line instead of cutting a word."""

    DEFAULT_CSS = """
    KeyHints {
        height: auto;
        color: $text-muted;
        margin-top: 1;
    }
    """

    class Pressed(Message):
        """A hint was clicked: the dialog handles `key` as if it were typed."""

        def __init__(self, hints: KeyHints, key: events.Key) -> None:
            super().__init__()
            self.hints = hints
            self.key = key

        @property
        def control(self) -> KeyHints:
            return self.hints

    def __init__(
        self, hints: Sequence[tuple[str, str]], *, id: str | None = None, classes: str = ""
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.hints = list(hints)
        self.note = ""
        """Shown before the hints (e.g. why an action is disabled)."""
        self.spans: list[tuple[int, int, int, str]] = []
        """(line, start, end, shown key) of each clickable hint, for mouse hits."""

    def set_hints(self, hints: Sequence[tuple[str, str]], note: str = "") -> None:
        self.hints, self.note = list(hints), note
        self.refresh(layout=True)

    def _lines(self, width: int) -> tuple[list[Text], list[tuple[int, int, int, str]]]:
        width = max(1, width)
        lines: list[Text] = [Text()]
        spans: list[tuple[int, int, int, str]] = []
        pieces: list[tuple[str, str] | None] = [None] if self.note else []
        pieces += self.hints
        for piece in pieces:
            text = Text(self.note) if piece is None else _hint_text(*piece)
            line = lines[-1]
            gap = HINT_GAP if line.cell_len else ""
            if line.cell_len and line.cell_len + len(gap) + text.cell_len > width:
                lines.append(Text())
                line, gap = lines[-1], ""
            line.append(gap)
            start = line.cell_len
            line.append_text(text)
            if piece is not None and key_event(piece[0]) is not None:
                # The key and its label both count: `esc close` is one target.
                spans.append((len(lines) - 1, start, start + text.cell_len, piece[0]))
        return lines, spans

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width)[0])

    def render(self) -> Text:
        lines, self.spans = self._lines(self.content_size.width)
        return Text("\n").join(lines)

    def key_at(self, x: int, y: int) -> str | None:
        for line, start, end, shown in self.spans:
            if line == y and start <= x < end:
                return shown
        return None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        shown = self.key_at(offset.x, offset.y)
        key = key_event(shown) if shown is not None else None
        if key is not None:
            event.stop()
            self.post_message(self.Pressed(self, key))
