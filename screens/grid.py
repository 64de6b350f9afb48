"""Grid view (`Ctrl+A g`): every live pane tiled at once, each live-rendered.

Tiles crop their pane (see widgets/grid_tile.py); no PTY is resized. A click on
a tile, its digit, or the arrows plus Enter focus that pane and return to the
normal layout; Esc (or `g`, `q`) returns without changing focus.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid
from textual.screen import ModalScreen
from textual.widgets import Label

from widgets.grid_tile import GridTile, TileFacts
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.panes.pane import Pane

POLL_INTERVAL = 1 / 20


def grid_shape(count: int, width: int, height: int) -> tuple[int, int]:
    """(columns, rows) of tiles: near-square, wider than tall on wide terminals."""
    if count <= 1:
        return (1, 1)
    best: tuple[float, int, int] | None = None
    for cols in range(1, count + 1):
        rows = math.ceil(count / cols)
        # Terminal cells are about twice as tall as wide: aim for tiles ~3:1 in cells.
        tile_w, tile_h = width / cols, max(1.0, height / rows)
        waste = cols * rows - count
        score = abs(math.log((tile_w / tile_h) / 3.0)) + 0.3 * waste
        if best is None or score < best[0]:
            best = (score, cols, rows)
    assert best is not None
    return (best[1], best[2])


def grid_step(cursor: int, dx: int, dy: int, cols: int, count: int) -> int:
    """The tile an arrow moves to from `cursor` in a row-major grid of `cols` columns."""
    if count <= 0:
        return 0
    cols = max(1, cols)
    row, col = divmod(cursor, cols)
    rows = math.ceil(count / cols)
    row = max(0, min(rows - 1, row + dy))
    col = max(0, min(cols - 1, col + dx))
    target = row * cols + col
    return target if target < count else cursor


class GridScreen(ModalScreen[str | None]):
    """Returns the short id of the pane to focus, or None."""

    DEFAULT_CSS = """
    GridScreen {
        background: $background;
        align: left top;
    }
    GridScreen #grid-title {
        height: 1;
        width: 1fr;
        background: $panel;
        color: $text-muted;
    }
    GridScreen Grid {
        height: 1fr;
        width: 1fr;
        grid-gutter: 0 0;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,g,q", "close", "back", show=False),
        Binding("left", "move(-1, 0)", show=False),
        Binding("right", "move(1, 0)", show=False),
        Binding("up", "move(0, -1)", show=False),
        Binding("down", "move(0, 1)", show=False),
        Binding("tab", "next", show=False),
        Binding("enter", "choose", show=False),
        *(Binding(str(n), f"digit({n})", show=False) for n in range(1, 10)),
    ]

    def __init__(self, dash: Dashboard, tick: Callable[[], int] | None = None) -> None:
        super().__init__()
        self.dash = dash
        self._tick = tick or (lambda: 0)
        panes = dash.live_panes or list(dash.panes)
        from widgets.native_tile import make_tile

        self.tiles = [make_tile(p, self._facts(p)) for p in panes]
        focused = dash.focused_pane
        self.cursor = next((i for i, p in enumerate(panes) if p is focused), 0)

    def _facts(self, pane: Pane) -> TileFacts:
        number = self.dash.panes.index(pane) + 1 if pane in self.dash.panes else 0
        return TileFacts(
            number=number,
            state=self.dash.state_of(pane, time.monotonic()),
            tick=self._tick(),
            focused=pane is self.dash.focused_pane,
        )

    def compose(self) -> ComposeResult:
        count = len(self.tiles)
        yield Label(
            f" grid · {count} pane{'s' if count != 1 else ''}"
            " · click or 1-9 to focus · arrows + ⏎ · esc back",
            id="grid-title",
        )
        yield Grid(*self.tiles, id="grid")

    def on_mount(self) -> None:
        self._layout()
        self._highlight()
        self.set_interval(POLL_INTERVAL, self._poll, name="grid-poll")
        self.set_interval(0.5, self._update_labels, name="grid-labels")

    def on_resize(self, event: events.Resize) -> None:
        self._layout()

    def _layout(self) -> None:
        cols, rows = grid_shape(len(self.tiles), self.size.width, max(1, self.size.height - 1))
        grid = self.query_one(Grid)
        grid.styles.grid_size_columns = cols
        grid.styles.grid_size_rows = rows
        self._cols = cols

    def _poll(self) -> None:
        for tile in self.tiles:
            tile.poll()

    def _update_labels(self) -> None:
        shown = {tile.pane.short for tile in self.tiles}
        new = [p for p in self.dash.live_panes if p.short not in shown]
        if new:
            # A pane spawned while the grid is open gets a tile too.
            from widgets.native_tile import make_tile

            tiles = [make_tile(p, self._facts(p)) for p in new]
            self.tiles += tiles
            self.query_one(Grid).mount(*tiles)
            self._layout()
        for tile in self.tiles:
            tile.update_facts(self._facts(tile.pane))

    def _highlight(self) -> None:
        for i, tile in enumerate(self.tiles):
            tile.set_class(i == self.cursor, "-highlight")

    # -- actions ------------------------------------------------------------------------

    def action_close(self) -> None:
        self.dismiss(None)

    def action_move(self, dx: int, dy: int) -> None:
        """Arrows move to the neighbouring tile on screen; at an edge, or where
        the last row has no tile, they stay (no wrapping to the far side)."""
        self.cursor = grid_step(self.cursor, dx, dy, getattr(self, "_cols", 1), len(self.tiles))
        self._highlight()

    def action_next(self) -> None:
        """Tab cycles through every tile in order."""
        if self.tiles:
            self.cursor = (self.cursor + 1) % len(self.tiles)
            self._highlight()

    def action_choose(self) -> None:
        if self.tiles:
            self.dismiss(self.tiles[self.cursor].pane.short)

    def action_digit(self, number: int) -> None:
        if 1 <= number <= len(self.dash.panes):
            pane = self.dash.panes[number - 1]
            if pane.alive:
                self.dismiss(pane.short)

    def on_grid_tile_chosen(self, message: GridTile.Chosen) -> None:
        message.stop()
        self.dismiss(message.short)
