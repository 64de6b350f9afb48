"""GridTile: one pane, live, in a tile of the grid view.

The pane's PTY keeps its real size (a grid must never resize children); the
tile shows a crop of its screen: the top-left when the used rows fit, else the
rows that end at the cursor or the last written row, so the newest output is in
view. Rows are rendered like TerminalView's (same style cache) and cached per
(row, version, width).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.events import Click
from textual.filter import LineFilter
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from widgets.glyphs import STATE_CLASSES, glyph, state_css, state_style
from widgets.terminal_style import run_segments, without_theme_colors
from zirv_dash.attention.states import PaneState
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.words import STATE_WORDS


@dataclass(frozen=True)
class TileFacts:
    number: int
    state: PaneState
    tick: int = 0
    focused: bool = False


class GridTile(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = set(STATE_CLASSES)
    """`state--*`: the state glyph in the tile's label."""
    DEFAULT_CSS = """
    GridTile {
        border: round $panel-lighten-2;
        border-title-align: left;
        background: ansi_default;
        color: ansi_default;
        height: 1fr;
        width: 1fr;
    }
    GridTile.-highlight {
        border: round $accent;
    }
    GridTile.-focused-pane {
        border-title-style: bold;
    }
    """ + state_css("GridTile")

    class Chosen(Message):
        """The tile was clicked: focus its pane."""

        def __init__(self, tile: GridTile, short: str) -> None:
            super().__init__()
            self.tile = tile
            self.short = short

        @property
        def control(self) -> GridTile:
            return self.tile

    def get_line_filters(self) -> Sequence[LineFilter]:
        # A tile shows the child's own colours, like the pane does.
        return without_theme_colors(super().get_line_filters())

    def __init__(self, pane: Pane, facts: TileFacts) -> None:
        super().__init__()
        self.pane = pane
        self.facts = facts
        self._cache: dict[int, tuple[tuple[object, ...], Strip]] = {}
        self._seen = (-1, -1)
        self._first = 0
        """The model row on the tile's first line, fixed for one paint."""

    def on_mount(self) -> None:
        # The label's glyph style comes from the stylesheet: there is one now.
        self._set_label()

    def notify_style_update(self) -> None:
        # A new theme or stylesheet: the label and cached rows carry old styles.
        super().notify_style_update()
        self._cache.clear()
        if self.is_mounted:
            self._set_label()

    # -- facts and refresh ---------------------------------------------------------------

    def update_facts(self, facts: TileFacts) -> None:
        if facts != self.facts:
            self.facts = facts
            if self.is_mounted:
                self._set_label()

    def _set_label(self) -> None:
        f = self.facts
        pane = self.pane
        char = glyph(f.state, f.tick)[0]
        gstyle = state_style(self, f.state)
        label = Text()
        label.append(f" {f.number} ", Style(bold=True))
        label.append(char, gstyle)
        label.append(f" {pane.title}", Style(bold=True))
        label.append(f" · {pane.agent}", Style(dim=True))
        label.append(f" · {STATE_WORDS.get(f.state, str(f.state))} ", Style(dim=True))
        self.border_title = label
        self.set_class(f.focused, "-focused-pane")

    def poll(self) -> None:
        """Refresh if the pane's screen changed since the last paint (cheap)."""
        model = self.pane.model_view
        seen = (id(model), model.version)
        if seen != self._seen:
            self._seen = seen
            self.refresh()

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Chosen(self, self.pane.short))

    # -- rendering -----------------------------------------------------------------------

    def first_row(self) -> int:
        """The model row shown on the tile's first line."""
        model = self.pane.model_view
        height = self.size.height
        if model.rows <= height:
            return 0
        used = model.cursor[1] + 1
        lines = model.lines()
        for y in range(model.rows - 1, used - 1, -1):
            if lines[y]:
                used = y + 1
                break
        return max(0, used - height)

    def render_lines(self, crop: Region) -> list[Strip]:
        # One crop decision per paint, so every row of it shows the same window.
        self._first = self.first_row()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        model = self.pane.model_view
        width = self.size.width
        row = self._first + y
        if row >= model.rows:
            return Strip.blank(width, self.rich_style)
        key = (id(model), row, model.row_version(row), width)
        cached = self._cache.get(y)
        if cached is not None and cached[0] == key:
            return cached[1]
        segments = run_segments(model.row_runs(row))
        strip = (
            Strip(segments)
            .apply_style(self.rich_style)
            .crop(0, width)
            .adjust_cell_length(width, self.rich_style)
        )
        self._cache[y] = (key, strip)
        return strip
