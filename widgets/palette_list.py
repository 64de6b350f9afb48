"""The palette's rows: headings, a cursor drawn reversed, click / double-click."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Self

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

DOUBLE_CLICK = 0.4


@dataclass(frozen=True)
class Entry:
    action: str
    label: str
    section: str
    description: str
    chord: str
    disabled: str | None = None
    """Why the action cannot run now, or None."""


def fuzzy_score(query: str, *fields: str) -> tuple[int, int, int] | None:
    """How well `query` matches as a subsequence (case-insensitive, whitespace
    ignored) of one of `fields`: lower is better (earlier field, earlier start,
    tighter span); None when it matches none."""
    needle = "".join(query.lower().split())
    if not needle:
        return (0, 0, 0)
    best: tuple[int, int, int] | None = None
    for rank, field in enumerate(fields):
        hay = field.lower()
        start = hay.find(needle[0])
        while start >= 0:
            pos = start + 1
            for ch in needle[1:]:
                pos = hay.find(ch, pos)
                if pos < 0:
                    break
                pos += 1
            if pos < 0:
                break
            score = (rank, start, pos - start)
            if best is None or score < best:
                best = score
            start = hay.find(needle[0], start + 1)
    return best


def fuzzy_match(query: str, *fields: str) -> bool:
    return fuzzy_score(query, *fields) is not None


class PaletteList(Widget):
    """The rows: a cursor drawn reversed, headings, click / double-click."""

    DEFAULT_CSS = """
    PaletteList {
        height: 1fr;
        min-height: 3;
        background: $surface;
    }
    """

    class Activated(Message):
        """A row was double-clicked: run its action."""

        def __init__(self, palette_list: PaletteList, entry: Entry) -> None:
            super().__init__()
            self.palette_list = palette_list
            self.entry = entry

        @property
        def control(self) -> PaletteList:
            return self.palette_list

    def __init__(self, entries: list[Entry], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries = entries
        self.filter_text = ""
        self.rows: list[Entry | str] = []
        self.cursor = 0
        self.top = 0
        self._last_click: tuple[int, float] | None = None
        self.set_query("")

    @property
    def visible_entries(self) -> list[Entry]:
        return [r for r in self.rows if isinstance(r, Entry)]

    @property
    def current(self) -> Entry | None:
        entries = self.visible_entries
        return entries[self.cursor] if 0 <= self.cursor < len(entries) else None

    def set_query(self, query: str) -> None:
        self.filter_text = query
        rows: list[Entry | str] = []
        if query.strip():
            scored = [
                (score, i, e)
                for i, e in enumerate(self.entries)
                if (score := fuzzy_score(query, e.label, e.chord, e.description)) is not None
            ]
            rows = [e for _, _, e in sorted(scored, key=lambda t: (t[0], t[1]))]
        else:
            section = ""
            for e in self.entries:
                if e.section != section:
                    section = e.section
                    rows.append(section)
                rows.append(e)
        self.rows = rows
        entries = self.visible_entries
        self.cursor = next((i for i, e in enumerate(entries) if not e.disabled), 0)
        self.top = 0
        self._scroll_to_cursor()
        self.refresh()

    def move(self, delta: int) -> None:
        count = len(self.visible_entries)
        if count:
            self.cursor = max(0, min(count - 1, self.cursor + delta))
            self._scroll_to_cursor()
            self.refresh()

    def _row_of_cursor(self) -> int:
        seen = -1
        for i, row in enumerate(self.rows):
            if isinstance(row, Entry):
                seen += 1
                if seen == self.cursor:
                    return i
        return 0

    def _scroll_to_cursor(self) -> None:
        if not self.size.height:
            return  # not laid out yet: on_resize calls again
        height = self.size.height
        row = self._row_of_cursor()
        if row < self.top:
            self.top = max(0, row - 1 if row and isinstance(self.rows[row - 1], str) else row)
        elif row >= self.top + height:
            self.top = row - height + 1

    def render(self) -> Text:
        width = max(10, self.size.width)
        height = max(1, self.size.height)
        out = Text(no_wrap=True, overflow="crop")
        if not self.rows:
            out.append("(nothing matches)", Style(dim=True))
            return out
        current = self.current
        chord_width = max(14, *(len(e.chord) for e in self.entries)) + 2
        for i, row in enumerate(self.rows[self.top : self.top + height]):
            if i:
                out.append("\n")
            if isinstance(row, str):
                out.append(row, Style(bold=True, color="cyan"))
                continue
            line = Text(no_wrap=True, overflow="crop")
            dim = row.disabled is not None and row is not current
            line.append(f"  {row.label:<18}", Style(bold=not dim, dim=dim))
            line.append(row.chord.ljust(chord_width), Style(dim=dim))
            if row.disabled:
                line.append(f"disabled: {row.disabled}", Style(dim=dim, italic=True))
            else:
                line.append(row.description, Style(dim=row is not current))
            line.truncate(width, overflow="ellipsis")  # a cut word shows it was cut
            line.append(" " * max(0, width - line.cell_len))
            if row is current:
                line.stylize(Style(reverse=True))
            out.append_text(line)
        return out

    def indicator(self) -> str:
        """`3–12 of 40` when the rows overflow the list, else ""."""
        height = self.size.height
        total = len(self.rows)
        if not height or total <= height:
            return ""
        last = min(total, self.top + height)
        return f"{self.top + 1}–{last} of {total}"

    def refresh(self, *args: Any, **kwargs: Any) -> Self:
        if isinstance(self.parent, Widget):
            self.parent.border_subtitle = self.indicator()
        return super().refresh(*args, **kwargs)

    def on_resize(self) -> None:
        self._scroll_to_cursor()
        self.refresh()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.move(3)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.move(-3)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        index = self.top + event.y
        if not 0 <= index < len(self.rows) or not isinstance(self.rows[index], Entry):
            return
        entry = self.rows[index]
        assert isinstance(entry, Entry)
        self.cursor = self.visible_entries.index(entry)
        self.refresh()
        now = time.monotonic()
        last = self._last_click
        self._last_click = (index, now)
        if event.chain >= 2 or (
            last is not None and last[0] == index and now - last[1] < DOUBLE_CLICK
        ):
            self._last_click = None
            self.post_message(self.Activated(self, entry))
