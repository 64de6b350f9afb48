"""The palette's rows: headings, a cursor drawn reversed, click / double-click."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from rich.style import Style
from rich.text import Text
from textual import events
from textual.fuzzy import FuzzySearch, Matcher
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


Match = tuple[int, float, tuple[int, ...]]
"""(field rank, -score, matched offsets in that field): lower sorts first."""


COMBINATIONS = 2_000
"""Above this many ways to place the query in a field, the fuzzy search (which
tries them all) would stall a keystroke for seconds (`eeeeee` over a long
description): the leftmost placement is scored instead."""


def _leftmost(needle: str, hay: str) -> list[int]:
    offsets: list[int] = []
    for ch in needle:
        at = hay.find(ch, offsets[-1] + 1 if offsets else 0)
        if at < 0:
            return []
        offsets.append(at)
    return offsets


def _field_match(search: FuzzySearch, needle: str, field: str) -> tuple[float, Sequence[int]]:
    hay, low = field.lower(), needle.lower()
    ways = 1
    for ch in low:
        ways *= max(1, hay.count(ch))
    if ways <= COMBINATIONS:
        return search.match(needle, field)
    offsets = _leftmost(low, hay)
    return (search.score(hay, offsets), offsets) if offsets else (0.0, ())


def fuzzy_best(query: str, *fields: str) -> Match | None:
    """The best match of `query` (case-insensitive, whitespace ignored) in `fields`
    by Textual's fuzzy Matcher: an earlier field wins (a label beats a chord beats
    a description), then the higher score; None when no field matches."""
    needle = "".join(query.split())
    if not needle:
        return (0, 0.0, ())
    matcher = Matcher(needle)
    for rank, field in enumerate(fields):
        score, offsets = _field_match(matcher.fuzzy_search, needle, field)
        if score:
            return (rank, -score, tuple(offsets))
    return None


def fuzzy_score(query: str, *fields: str) -> tuple[int, float] | None:
    """How well `query` matches one of `fields`: lower is better (earlier
    field, then higher score); None when it matches none."""
    best = fuzzy_best(query, *fields)
    return None if best is None else best[:2]


def fuzzy_match(query: str, *fields: str) -> bool:
    return fuzzy_best(query, *fields) is not None


class PaletteList(Widget):
    """The rows: a cursor drawn reversed, headings, click / double-click."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"palette-list--heading", "palette-list--match"}
    """`palette-list--heading`: a section's heading row (empty query only);
    `palette-list--match`: the characters the query matched."""
    DEFAULT_CSS = """
    PaletteList {
        height: 1fr;
        min-height: 3;
        background: $surface;
    }
    PaletteList .palette-list--heading { color: ansi_cyan; text-style: bold; }
    PaletteList .palette-list--match { text-style: bold underline; }
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
        self.matches: dict[Entry, Match] = {}
        """Under a query: how each shown entry matched (for highlighting)."""
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
        self.matches = {}
        if query.strip():
            for e in self.entries:
                found = fuzzy_best(query, e.label, e.chord, e.description)
                if found is not None:
                    self.matches[e] = found
            order = {e: i for i, e in enumerate(self.entries)}
            ranked = sorted(self.matches, key=lambda e: (self.matches[e][:2], order[e]))
            rows = list(ranked)
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
        heading = self.get_component_rich_style("palette-list--heading", partial=True)
        match = self.get_component_rich_style("palette-list--match", partial=True)
        chord_width = max(14, *(len(e.chord) for e in self.entries)) + 2
        for i, row in enumerate(self.rows[self.top : self.top + height]):
            if i:
                out.append("\n")
            if isinstance(row, str):
                out.append(row, heading)
                continue
            line = Text(no_wrap=True, overflow="crop")
            dim = row.disabled is not None and row is not current
            starts = [2]  # where the label, chord and description start
            line.append(f"  {row.label:<18}", Style(bold=not dim, dim=dim))
            starts.append(line.cell_len)
            line.append(row.chord.ljust(chord_width), Style(dim=dim))
            starts.append(line.cell_len)
            if row.disabled:
                line.append(f"disabled: {row.disabled}", Style(dim=dim, italic=True))
            else:
                line.append(row.description, Style(dim=row is not current))
            found = self.matches.get(row)
            if found is not None and not (found[0] == 2 and row.disabled):
                for offset in found[2]:
                    at = starts[found[0]] + offset
                    line.stylize(match, at, at + 1)
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
