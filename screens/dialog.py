"""What every dialog shares: the mouse grammar and a clickable footer.

The mouse grammar of every overlay is the one the README promises: a single
click selects (moves the highlight), a double click activates (what Enter
does), the wheel moves through a list, and a footer key hint clicked acts
exactly as pressing that key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from rich._wrap import divide_line
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import OptionList

ResultType = TypeVar("ResultType")

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

        def __init__(self, key: events.Key) -> None:
            super().__init__()
            self.key = key

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
            self.post_message(self.Pressed(key))


def _hint_text(shown: str, label: str) -> Text:
    out = Text()
    out.append(shown, Style(bold=True))
    out.append(f" {label}")
    return out


def hang(line: Text, width: int, indent: int) -> list[Text]:
    """`line` wrapped at word breaks to `width`, its continuation rows indented by
    `indent` (under the column they continue), never back at the left edge."""
    width = max(1, width)
    if line.cell_len <= width:
        return [line]
    first = divide_line(line.plain, width)
    if not first:
        return [line]
    rows = [line[: first[0]]]
    rest = line[first[0] :]
    room = max(8, width - indent)
    offsets = divide_line(rest.plain, room)
    for piece in rest.divide(offsets):
        piece.rstrip()
        rows.append(Text(" " * min(indent, width - 1)) + piece)
    for row in rows:
        row.rstrip()
    return rows


class HangingText(Widget):
    """Lines of text whose long lines wrap with a hanging indent; `source_line(y)`
    says which original line a row belongs to (for mouse hits)."""

    DEFAULT_CSS = """
    HangingText { height: auto; }
    """

    def __init__(self, text: Text, indent: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = text
        self.indent = indent
        self._rows: list[int] = []

    def update(self, text: Text) -> None:
        self.text = text
        self.refresh(layout=True)

    def _layout_rows(self, width: int) -> tuple[list[Text], list[int]]:
        rows: list[Text] = []
        sources: list[int] = []
        for index, line in enumerate(self.text.split("\n", allow_blank=True)):
            for row in hang(line, width, self.indent):
                rows.append(row)
                sources.append(index)
        return rows, sources

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._layout_rows(width)[0])

    def render(self) -> Text:
        rows, self._rows = self._layout_rows(self.content_size.width)
        return Text("\n").join(rows)

    def source_line(self, y: int) -> int | None:
        if not self._rows:
            self._rows = self._layout_rows(self.content_size.width)[1]
        return self._rows[y] if 0 <= y < len(self._rows) else None


class PickList(OptionList):
    """An OptionList where a click highlights and a double click selects.

    Textual's OptionList selects on the first click; in a dialog that means one
    stray click swaps a pane's harness or spawns before the other fields are set.
    The wheel moves the highlight, so a short list still answers it."""

    async def _on_click(self, event: events.Click) -> None:
        event.prevent_default()  # not OptionList's select-on-first-click
        event.stop()
        clicked: int | None = event.style.meta.get("option")
        if clicked is None or self.get_option_at_index(clicked).disabled:
            return
        self.highlighted = clicked
        if event.chain >= 2:
            self.action_select()

    def _on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.prevent_default()
        event.stop()
        self.action_cursor_down()

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.prevent_default()
        event.stop()
        self.action_cursor_up()


class DialogScreen(ModalScreen[ResultType]):
    """A centred modal dialog over the dimmed dashboard: the shared look and footer clicks.

    The look is DEFAULT_CSS scoped to DialogScreen, not an app-wide CSS file:
    a file's rules would reach every ModalScreen (the grid, copy mode) and
    outrank each dialog's own DEFAULT_CSS, which then had to set styles inline."""

    DEFAULT_CLASSES = "dim-behind"
    SCOPED_CSS = False
    """`CSS` is loaded under each subclass's name; scoped, its rule would only
    match screens inside that subclass, never the dialog screen itself."""
    CSS = """
    /* Dim, never hide, what is behind: the app stylesheet's opaque `Screen`
       background outranks any DEFAULT_CSS, so this rule is app-level CSS and
       more specific (type + class) than that `Screen` rule. */
    DialogScreen.dim-behind {
        background: $background 40%;
    }
    """
    DEFAULT_CSS = """
    DialogScreen {
        align: center middle;
    }
    DialogScreen .dialog {
        width: 80%;
        max-width: 100;
        height: auto;
        max-height: 90%;
        border: round $accent 60%;
        border-title-color: $accent;
        border-title-style: bold;
        background: $surface;
        padding: 0 1;
    }
    DialogScreen .dialog-footer {
        color: $text-muted;
        height: auto;
        margin-top: 1;
    }
    /* A dialog is as tall as its content; a long body scrolls inside it. */
    DialogScreen .dialog VerticalScroll {
        height: auto;
        max-height: 70vh;
    }
    /* Labels take the dialog's width, so a long one wraps instead of being cut. */
    DialogScreen .dialog Label {
        width: 100%;
    }
    DialogScreen .dialog-error {
        color: $error;
        height: auto;
    }
    DialogScreen .field-label {
        color: $text-muted;
        height: 1;
    }
    /* Compact fields: a dialog must fit an 80x20 terminal. */
    DialogScreen .dialog Input {
        border: none;
        height: 1;
        padding: 0 1;
        background: $boost;
    }
    DialogScreen .dialog Input:focus {
        background: $primary 30%;
    }
    DialogScreen .dialog OptionList {
        border: none;
        height: auto;
        max-height: 6;
        padding: 0;
        background: $boost;
    }
    """

    def on_key_hints_pressed(self, message: KeyHints.Pressed) -> None:
        message.stop()
        # Through the App, like a typed key: priority bindings, the focused
        # widget, then the dialog's own bindings and key handler.
        self.app.post_message(message.key)
