"""The sidebar's one-line search field: `/ query█`.

The dashboard hands every key to its router, so the field never takes Textual
focus there: the router gives it keys through `type_key`/`type_paste` while
it is editing. Standing alone (a test app, a future screen), it can be focused
and reads keys itself. It says what happened with messages; the sidebar filters
on `Changed` and the dashboard focuses the first match on `Submitted`.
"""

from __future__ import annotations

from enum import Enum

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

QUERY_MAX = 64
"""Characters kept: a roster row's fields are short, a longer query matches nothing."""


class Outcome(Enum):
    EDITED = "edited"
    SUBMITTED = "submitted"
    CANCELLED = "cancelled"
    IGNORED = "ignored"


class RosterSearch(Widget, can_focus=True):
    DEFAULT_CSS = """
    RosterSearch { height: 1; }
    """

    text: reactive[str] = reactive("", layout=False)
    editing: reactive[bool] = reactive(False, layout=False)
    matched: reactive[tuple[int, int]] = reactive((0, 0), layout=False)
    """(matches, rows) shown at the right of the field."""

    class Changed(Message):
        def __init__(self, search: RosterSearch, query: str) -> None:
            super().__init__()
            self.search = search
            self.text = query

        @property
        def control(self) -> RosterSearch:
            return self.search

    class Submitted(Changed):
        """Enter: the query stays applied, the field stops editing."""

    class Cancelled(Changed):
        """Esc: the query is cleared."""

    def open(self) -> None:
        self.editing = True

    def type_key(self, key: str, character: str | None) -> Outcome:
        """One key while editing: text, Backspace, Ctrl+U, Enter or Esc."""
        if not self.editing:
            return Outcome.IGNORED
        if key == "escape":
            self.editing = False
            self.text = ""
            self.post_message(self.Cancelled(self, ""))
            return Outcome.CANCELLED
        if key == "enter":
            self.editing = False
            self.post_message(self.Submitted(self, self.text))
            return Outcome.SUBMITTED
        if key == "backspace":
            return self._set(self.text[:-1])
        if key == "ctrl+u":
            return self._set("")
        if character and len(character) == 1 and character.isprintable():
            return self._set(self.text + character)
        return Outcome.IGNORED

    def type_paste(self, text: str) -> Outcome:
        if not self.editing:
            return Outcome.IGNORED
        line = "".join(ch for ch in text.replace("\n", " ") if ch.isprintable())
        return self._set(self.text + line)

    def _set(self, query: str) -> Outcome:
        query = query[:QUERY_MAX]
        if query != self.text:
            self.text = query
            self.post_message(self.Changed(self, query))
        return Outcome.EDITED

    def on_key(self, event: events.Key) -> None:
        if self.type_key(event.key, event.character) is not Outcome.IGNORED:
            event.stop()
            event.prevent_default()

    def on_paste(self, event: events.Paste) -> None:
        if self.type_paste(event.text) is not Outcome.IGNORED:
            event.stop()

    def render(self) -> Text:
        width = self.size.width
        found, total = self.matched
        count = f"{found}/{total} " if self.text else ""
        line = Text(no_wrap=True, overflow="crop")
        line.append(" / ", Style(bold=True, color="cyan") if self.editing else Style(dim=True))
        room = max(1, width - line.cell_len - len(count) - 1)
        shown = self.text[-room:] if len(self.text) >= room else self.text
        line.append(shown, Style(dim=not self.editing))
        if self.editing:
            line.append("█")
        line.append(" " * max(1, width - line.cell_len - len(count)))
        line.append(count, Style(dim=True))
        return line
