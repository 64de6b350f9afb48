"""The sidebar roster: one row per pane with its number, state glyph, name and harness.

Rows carry the number `^A 1-9` focuses (the n-th pane of the roster); rows past
the ninth keep the column blank so names stay aligned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.events import Click, MouseScrollDown, MouseScrollUp
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from widgets.glyphs import STATE_CLASSES, glyph, state_css, state_style
from zirv_dash.pane import PaneState

NUMBERED_ROWS = 9
"""`^A 1` … `^A 9` focus the first nine panes."""


def row_number(index: int, row: RosterRow) -> int | None:
    """The digit that focuses roster row `index` (pane rows come first, in the
    order `^A <n>` counts them), or None past the ninth or for a non-pane row."""
    if index >= NUMBERED_ROWS or row.key.startswith("ended:"):
        return None
    return index + 1


@dataclass(frozen=True)
class RosterRow:
    key: str
    """Pane short id (or `ended:<short>` for retained ended rows)."""
    name: str
    harness: str
    state: PaneState
    tree: str = " "
    badge: str = ""
    focused: bool = False
    selected: bool = False
    dim: bool = False
    note: str = ""
    """A few words after the harness (how an ended row ended)."""


class Sidebar(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "sidebar--badge",
        "sidebar--selected",
        *STATE_CLASSES,
    }
    """`sidebar--badge` the mail badge, `sidebar--selected` the selected row's
    background, `state--*` each state's glyph and note."""
    DEFAULT_CSS = """
    Sidebar {
        width: 28;
        height: 1fr;
        border-right: vkey $panel-lighten-2;
        background: $surface;
    }
    Sidebar .sidebar--badge { color: ansi_yellow; text-style: bold; }
    Sidebar .sidebar--selected { background: $surface-lighten-2; }
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
        self.tick = 0
        self.top = 0
        self._cache: dict[int, tuple[tuple[object, ...], Strip]] = {}

    def update_rows(self, rows: list[RosterRow], tick: int) -> None:
        """Refresh only the rows that changed (a spinner frame redraws one cell's row)."""
        animated = {
            i for i, r in enumerate(rows) if r.state in (PaneState.WORKING, PaneState.STARTING)
        }
        if len(rows) != len(self.rows):
            self.rows, self.tick = rows, tick
            self.refresh()
            return
        width = self.size.width
        changed = [i for i, (a, b) in enumerate(zip(rows, self.rows, strict=True)) if a != b]
        if tick != self.tick:
            changed.extend(animated)
        self.rows, self.tick = rows, tick
        for index in set(changed):
            y = index - self.top + 1
            if 1 <= y < self.size.height:
                self.refresh(Region(0, y, width, 1))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        content = max(10, width - 1)
        if y == 0:
            title = Text(" SESSIONS", Style(bold=True, dim=True), no_wrap=True)
            count = str(len(self.rows))
            title.append(" " * max(1, content - title.cell_len - len(count) - 1))
            title.append(count + " ", Style(dim=True))
            return self._strip(title, width)
        index = self.top + y - 1
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        row = self.rows[index]
        animated = row.state in (PaneState.WORKING, PaneState.STARTING)
        key = (row, self.tick if animated else 0, width, index)
        cached = self._cache.get(index)
        if cached is not None and cached[0] == key:
            return cached[1]
        strip = self._strip(self._render_row(row, content, row_number(index, row)), width)
        self._cache[index] = (key, strip)
        return strip

    def _strip(self, text: Text, width: int) -> Strip:
        segments = list(text.render(self.app.console))
        return (
            Strip(segments).apply_style(self.rich_style).adjust_cell_length(width, self.rich_style)
        )

    def notify_style_update(self) -> None:
        # Cached rows hold the old theme's colours.
        self._cache.clear()
        super().notify_style_update()

    def _render_row(self, row: RosterRow, width: int, number: int | None = None) -> Text:
        char = glyph(row.state, self.tick)[0]
        gstyle = state_style(self, row.state)
        line = Text(no_wrap=True, overflow="crop")
        line.append(str(number) if number is not None else " ", Style(dim=True))
        line.append(row.tree)
        line.append(char, gstyle)
        line.append(" ")
        name_style = Style(bold=row.focused, dim=row.dim)
        # The note ("exit 1", "TERM") and badge must stay whole: the harness
        # column gives way first, then the name.
        extra = (len(row.note) + 1 if row.note else 0) + (len(row.badge) + 1 if row.badge else 0)
        room = width - line.cell_len - extra
        name_width = max(1, min(max(8, len(row.name)), room - 1))
        line.append(f"{row.name[:name_width]:<{name_width}}", name_style)
        harness_width = min(8, room - name_width - 1)
        if harness_width >= 3:
            line.append(" ")
            line.append(f"{row.harness[:harness_width]:<{harness_width}}", Style(dim=True))
        if row.note:
            line.append(" ")
            line.append(row.note, Style(color=gstyle.color, dim=True))
        if row.badge:
            line.append(" ")
            line.append(
                row.badge,
                self.get_component_rich_style("sidebar--badge", partial=True, default=Style()),
            )
        line.truncate(width)
        line.append(" " * max(0, width - line.cell_len))
        if row.selected:
            selected = self.get_component_rich_style(
                "sidebar--selected", partial=True, default=Style()
            )
            line.stylize(Style(bgcolor=selected.bgcolor))
        return line

    def row_at(self, y: int) -> RosterRow | None:
        index = self.top + y - 1
        if y < 1 or index >= len(self.rows):
            return None
        return self.rows[index]

    def on_click(self, event: Click) -> None:
        row = self.row_at(event.y)
        if row is not None:
            event.stop()
            self.post_message(self.RowClicked(self, row.key, event.button, event.chain))

    def on_mouse_scroll_down(self, event: MouseScrollDown) -> None:
        event.stop()
        if self.top + self.size.height - 1 < len(self.rows):
            self.top += 1
            self.refresh()

    def on_mouse_scroll_up(self, event: MouseScrollUp) -> None:
        event.stop()
        if self.top > 0:
            self.top -= 1
            self.refresh()
