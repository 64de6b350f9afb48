"""The sidebar roster: one row per pane with its number, state glyph, name and harness.

Rows carry the number `^A 1-9` focuses (the n-th pane of the roster); rows past
the ninth keep the column blank so names stay aligned. The number is the row's
place among the rows given, so it still names the same pane when a search
hides rows or a group gathers them elsewhere.

Rows may be grouped (`zirv_dash.dash.roster_view`): when the roster spans two groups
or more, each group of two or more panes gets a header `▾ title` (`▸` folded)
at the place of its first member. A search (`/ query` under the title) shows
only the rows that match.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.events import Click, MouseScrollDown, MouseScrollUp
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from widgets.glyphs import STATE_CLASSES, SpinnerStrip, glyph, state_css, state_style
from widgets.roster_paint import RowStyles, header_text, row_text
from widgets.roster_rows import (
    Drawn,
    DrawnHeader,
    DrawnRow,
    RosterRow,
    animated,
    glyph_x,
    roster_lines,
)
from widgets.roster_search import Outcome, RosterSearch
from zirv_dash.dash import roster_view
from zirv_dash.dash.roster_view import HeaderLine, RowGroup


class Sidebar(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "sidebar--badge",
        "sidebar--selected",
        "sidebar--group",
        "sidebar--marker",
        *STATE_CLASSES,
    }
    """`sidebar--badge` the mail badge, `sidebar--selected` the selected row's
    background, `sidebar--group` a group header, `sidebar--marker` a row's mode
    marker, `state--*` each state's glyph and note."""
    DEFAULT_CSS = """
    Sidebar {
        width: 28;
        height: 1fr;
        border-right: vkey $panel-lighten-2;
        background: $surface;
    }
    Sidebar .sidebar--badge { color: ansi_yellow; text-style: bold; }
    Sidebar .sidebar--selected { background: $surface-lighten-2; }
    Sidebar .sidebar--group { color: $text-muted; text-style: bold; }
    Sidebar .sidebar--marker { color: ansi_magenta; text-style: bold; }
    Sidebar RosterSearch { dock: top; margin-top: 1; display: none; background: $surface; }
    """ + state_css("Sidebar")

    class RowClicked(Message):
        """A roster row was clicked (button 1 = left, 3 = right)."""

        def __init__(self, sidebar: Sidebar, key: str, button: int, chain: int) -> None:
            super().__init__()
            self.sidebar = sidebar
            self.key = key
            self.button = button
            self.chain = chain

        @property
        def control(self) -> Sidebar:
            return self.sidebar

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[RosterRow] = []
        self.groups: dict[str, RowGroup] = {}
        self.collapsed: set[str] = set()
        """Keys of the folded groups."""
        self.tick = 0
        self.top = 0
        self.search = RosterSearch(id="roster-search")
        self._drawn: list[Drawn] = []
        self._cache: dict[int, tuple[tuple[object, ...], SpinnerStrip]] = {}

    def compose(self) -> ComposeResult:
        yield self.search

    # -- facts in --------------------------------------------------------------------------

    def update_rows(
        self, rows: list[RosterRow], tick: int, groups: Mapping[str, RowGroup] | None = None
    ) -> None:
        """Refresh only the lines that changed (a spinner frame redraws one cell's line).
        `groups`: row key → group, for the rows that have one (None: no grouping).
        Selection moving onto a row of a folded group unfolds it, as upstream's
        keyboard movement reveals the row it lands on."""
        before = next((r.key for r in self.rows if r.selected), None)
        self.rows, self.tick = rows, tick
        if groups is not None:
            self.groups = dict(groups)
        after = next((r.key for r in rows if r.selected), None)
        if after is not None and after != before:
            group = self.group_of(after)
            self.collapsed.discard(group or "")
        self._relayout()

    def spin(self, tick: int) -> None:
        """A spinner frame: only the working rows are drawn again."""
        if tick == self.tick:
            return
        self.tick = tick
        width = self.size.width
        for index, drawn in enumerate(self._drawn):
            y = index - self.top + self._first_line()
            if animated(drawn) and self._first_line() <= y < self.size.height:
                self.refresh(Region(0, y, width, 1))

    def _relayout(self) -> None:
        old = self._drawn
        self._drawn = self._lines()
        query = self.search.text
        if query:
            found = sum(1 for d in self._drawn if isinstance(d, DrawnRow))
            self.search.matched = (found, len(self.rows))
        if len(old) != len(self._drawn):
            self.refresh()
            return
        changed = {i for i, (a, b) in enumerate(zip(old, self._drawn, strict=True)) if a != b}
        changed.update(i for i, d in enumerate(self._drawn) if animated(d))
        width = self.size.width
        for index in changed:
            y = index - self.top + self._first_line()
            if self._first_line() <= y < self.size.height:
                self.refresh(Region(0, y, width, 1))

    def _lines(self) -> list[Drawn]:
        return roster_lines(self.rows, self.groups, self.collapsed, self.search.text)

    # -- search and groups -----------------------------------------------------------------

    def open_search(self) -> None:
        """Show the field under the title and start editing (the old query kept)."""
        self.search.display = True
        self.search.open()
        self._relayout()
        self.refresh()

    @property
    def searching(self) -> bool:
        """The field takes keys (from the dashboard's router)."""
        return self.search.editing

    def search_key(self, key: str, character: str | None) -> Outcome:
        outcome = self.search.type_key(key, character)
        self._search_changed()
        return outcome

    def search_paste(self, text: str) -> Outcome:
        outcome = self.search.type_paste(text)
        self._search_changed()
        return outcome

    def first_match(self) -> str | None:
        """The key of the first row the search keeps (None without a query or a match)."""
        if not self.search.text:
            return None
        return next((d.row.key for d in self._drawn if isinstance(d, DrawnRow)), None)

    def on_roster_search_changed(self, message: RosterSearch.Changed) -> None:
        self._search_changed()

    def _search_changed(self) -> None:
        self.search.display = self.search.editing or bool(self.search.text)
        self.top = 0
        self._relayout()
        self.refresh()

    def group_of(self, key: str) -> str | None:
        """The key of the group whose header `key`'s row sits under (None: a flat row)."""
        for drawn in self._layout_unfolded():
            if isinstance(drawn, HeaderLine) and key in drawn.members:
                return drawn.group
        return None

    def _layout_unfolded(self) -> list[roster_view.Line]:
        return roster_view.layout([r.key for r in self.rows], self.groups)

    def set_collapsed(self, group: str, folded: bool) -> bool:
        """Fold or unfold `group`; False when it already was so."""
        if (group in self.collapsed) == folded:
            return False
        if folded:
            self.collapsed.add(group)
        else:
            self.collapsed.discard(group)
        self._relayout()
        self.refresh()
        return True

    # -- drawing ---------------------------------------------------------------------------

    def _first_line(self) -> int:
        """Roster lines start under the title, and under the search field when shown."""
        return 2 if self.search.display else 1

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        content = max(10, width - 1)
        if y == 0:
            title = Text(" SESSIONS", Style(bold=True, dim=True), no_wrap=True)
            count = str(len(self.rows))
            title.append(" " * max(1, content - title.cell_len - len(count) - 1))
            title.append(count + " ", Style(dim=True))
            return self._strip(title, width)
        index = self.top + y - self._first_line()
        if index < 0 or index >= len(self._drawn):
            return Strip.blank(width, self.rich_style)
        drawn = self._drawn[index]
        key = (drawn, width)
        cached = self._cache.get(index)
        if cached is None or cached[0] != key:
            # Drawn with the spinner's first frame; a working row's other frames
            # swap that one cell (a spinner frame costs no text layout).
            if isinstance(drawn, DrawnHeader):
                text = self._render_header(drawn, content)
            else:
                text = self._render_row(drawn.row, content, drawn.number, tick=0)
            cached = (key, SpinnerStrip(self._strip(text, width), glyph_x(drawn)))
            self._cache[index] = cached
        return cached[1].frame(self.tick)

    def _strip(self, text: Text, width: int) -> Strip:
        segments = list(text.render(self.app.console))
        return (
            Strip(segments).apply_style(self.rich_style).adjust_cell_length(width, self.rich_style)
        )

    def notify_style_update(self) -> None:
        # Cached rows hold the old theme's colours.
        self._cache.clear()
        super().notify_style_update()

    def _selected_bg(self) -> Style:
        selected = self.get_component_rich_style("sidebar--selected", partial=True, default=Style())
        return Style(bgcolor=selected.bgcolor)

    def _component(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True, default=Style())

    def _render_header(self, header: DrawnHeader, width: int) -> Text:
        style = self.get_component_rich_style(
            "sidebar--group", partial=True, default=Style(dim=True, bold=True)
        )
        selected_bg = self._selected_bg() if header.selected else Style()
        return header_text(header, width, style, selected_bg)

    def _render_row(
        self, row: RosterRow, width: int, number: int | None = None, tick: int | None = None
    ) -> Text:
        # Only the styles the row shows are looked up.
        styles = RowStyles(
            glyph=state_style(self, row.state),
            marker=self._component("sidebar--marker") if row.marker else Style(),
            badge=self._component("sidebar--badge") if row.badge else Style(),
            selected_bg=self._selected_bg() if row.selected else Style(),
        )
        char = glyph(row.state, self.tick if tick is None else tick)[0]
        return row_text(row, width, number, char, styles)

    # -- mouse -----------------------------------------------------------------------------

    def _drawn_at(self, y: int) -> Drawn | None:
        index = self.top + y - self._first_line()
        if y < self._first_line() or index >= len(self._drawn):
            return None
        return self._drawn[index]

    def row_at(self, y: int) -> RosterRow | None:
        drawn = self._drawn_at(y)
        return drawn.row if isinstance(drawn, DrawnRow) else None

    def on_click(self, event: Click) -> None:
        drawn = self._drawn_at(event.y)
        if isinstance(drawn, DrawnHeader):
            event.stop()
            self.set_collapsed(drawn.line.group, not drawn.line.collapsed)
        elif isinstance(drawn, DrawnRow):
            event.stop()
            self.post_message(self.RowClicked(self, drawn.row.key, event.button, event.chain))

    def on_mouse_scroll_down(self, event: MouseScrollDown) -> None:
        event.stop()
        if self.top + self.size.height - self._first_line() < len(self._drawn):
            self.top += 1
            self.refresh()

    def on_mouse_scroll_up(self, event: MouseScrollUp) -> None:
        event.stop()
        if self.top > 0:
            self.top -= 1
            self.refresh()
