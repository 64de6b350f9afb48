"""The sidebar roster: one row per pane with its state glyph, name and harness."""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual.events import Click, MouseScrollDown, MouseScrollUp
from textual.message import Message
from textual.widget import Widget

from widgets.glyphs import glyph
from zirv_dash.pane import PaneState


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


class Sidebar(Widget):
    DEFAULT_CSS = """
    Sidebar {
        width: 28;
        height: 1fr;
        border-right: vkey $panel-lighten-2;
        background: $surface;
    }
    """

    class RowClicked(Message):
        """A roster row was clicked (button 1 = left, 3 = right)."""

        def __init__(self, key: str, button: int, chain: int) -> None:
            super().__init__()
            self.key = key
            self.button = button
            self.chain = chain

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[RosterRow] = []
        self.tick = 0
        self.top = 0

    def update_rows(self, rows: list[RosterRow], tick: int) -> None:
        animated = any(r.state in (PaneState.WORKING, PaneState.STARTING) for r in rows)
        if rows != self.rows or (animated and tick != self.tick):
            self.rows = rows
            self.tick = tick
            self.refresh()

    def render(self) -> Text:
        width = max(10, self.size.width - 1)
        height = self.size.height
        out = Text(no_wrap=True, overflow="crop")
        title = Text(" SESSIONS", Style(bold=True, dim=True))
        count = str(len(self.rows))
        title.append(" " * max(1, width - title.cell_len - len(count) - 1))
        title.append(count + " ", Style(dim=True))
        out.append_text(title)
        visible = self.rows[self.top : self.top + max(0, height - 1)]
        for row in visible:
            out.append("\n")
            out.append_text(self._render_row(row, width))
        return out

    def _render_row(self, row: RosterRow, width: int) -> Text:
        char, gstyle = glyph(row.state, self.tick)
        line = Text(no_wrap=True, overflow="crop")
        line.append(row.tree)
        line.append(char, gstyle)
        line.append(" ")
        name_style = Style(bold=row.focused, dim=row.dim)
        line.append(f"{row.name:<8}", name_style)
        line.append(" ")
        line.append(f"{row.harness[:8]:<8}", Style(dim=True))
        if row.badge:
            line.append(" ")
            line.append(row.badge, Style(color="yellow", bold=True))
        line.truncate(width)
        line.append(" " * max(0, width - line.cell_len))
        if row.selected:
            line.stylize(Style(bgcolor="grey23"))
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
            self.post_message(self.RowClicked(row.key, event.button, event.chain))

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
