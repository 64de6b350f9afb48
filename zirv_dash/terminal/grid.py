"""The grid's state: cells, cursor, margins, tab stops, charsets, saved cursor.

The cursor motions live here too; every other operation builds on this
class (``scroll``, ``erase``, ``draw``, ``resize`` and ``screen``).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from .attr import DEFAULT_ATTR, Attr
from .scrollback import Scrollback


class Grid(Scrollback):
    """Cells, cursor and modes of the grid, and the cursor motions."""

    def __init__(self, columns: int, rows: int, history_limit: int) -> None:
        super().__init__(history_limit)
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        # Rows changed since the model last collected them; ``all_touched`` is
        # set instead of adding every index when the whole screen moves.
        self.touched: set[int] = set()
        self.all_touched = True
        self.alt = False
        # The normal screen while the alternate one is shown: rows, attributes,
        # wrap flags and its size (it is resized, with reflow, on the way back).
        self._main_saved: tuple[list[list[str]], list[list[Attr]], list[bool], int, int] | None = (
            None
        )
        # What ``CSI ? 1049 h`` saved, as tmux keeps it: the position (only
        # 1049 saves it) and the rendition (every switch saves it).  Leaving
        # restores them even when not on the alternate screen, and keeps them
        # for the next leave: dialog(1) and friends rely on both.
        self._alt_cursor: tuple[int, int] | None = None
        self._alt_cell: Attr = DEFAULT_ATTR
        # DECSC state: x, y, attr, origin mode, G0/G1 sets, shift
        self.saved: tuple[int, int, Attr, bool, list[int], int] | None = None
        # ``tabstops`` sorted, for the set object it was made from (a new set
        # replaces the stops on reset/resize; edits in place clear it).
        self._stops: list[int] | None = None
        self._stops_of: set[int] | None = None
        self.reset()

    def reset(self) -> None:
        cols, rows = self.columns, self.rows
        self.chars: list[list[str]] = [[" "] * cols for _ in range(rows)]
        self.attrs: list[list[Attr]] = [[DEFAULT_ATTR] * cols for _ in range(rows)]
        # wrapped[y]: row y continued onto row y+1 by autowrap (tmux's
        # GRID_LINE_WRAPPED); resizing re-wraps such lines.
        self.wrapped: list[bool] = [False] * rows
        if self.alt:
            self.alt = False
            self._main_saved = None
        self.x = 0
        self.y = 0
        self.attr = DEFAULT_ATTR
        self.top = 0
        self.bottom = rows - 1
        self.autowrap = True
        self.insert_mode = False
        self.origin = False
        self.tabstops = set(range(8, cols, 8))
        self.g = [0, 0]  # designated sets for G0, G1: 0 = ASCII, 1 = DEC graphics
        self.shift = 0  # 0 = G0 active (SI), 1 = G1 (SO)
        self.graphics = False  # active set is DEC special graphics
        self.saved = None
        self.last_char = ""
        self.zwj = False  # a zero width joiner is pending
        self.graphemes = False  # mode 2027: grapheme clusters are one unit
        self.all_touched = True

    def _update_charset(self) -> None:
        self.graphics = self.g[self.shift] == 1

    # -- cursor motion ---------------------------------------------------------

    def carriage_return(self) -> None:
        self.x = 0

    def backspace(self) -> None:
        if self.x > 0:
            self.x = min(self.x, self.columns) - 1
        elif self.y > 0 and self.wrapped[self.y - 1]:
            # tmux: back over a wrap, to the end of the previous line
            self.y -= 1
            self.x = self.columns - 1

    def _sorted_stops(self) -> list[int]:
        # Sorted once per change of the stops: a tab is then a bisection, not
        # a scan of every stop per step (CBT 9999 with a stop in every
        # column took ~5 ms a sequence).
        stops = self._stops
        if stops is None or self._stops_of is not self.tabstops:
            stops = self._stops = sorted(self.tabstops)
            self._stops_of = self.tabstops
        return stops

    def tab(self, n: int = 1) -> None:
        cols = self.columns
        if self.x >= cols - 1:
            return  # tmux: no tab beyond the end (a pending wrap stays)
        stops = self._sorted_stops()
        k = bisect_right(stops, self.x) + max(1, n) - 1
        x = stops[k] if k < len(stops) else cols - 1
        self.x = min(x, cols - 1)

    def back_tab(self, n: int = 1) -> None:
        x = min(self.x, self.columns - 1)
        stops = self._sorted_stops()
        k = bisect_left(stops, x) - max(1, n)
        self.x = stops[k] if k >= 0 else 0

    def set_tab_stop(self) -> None:
        if self.x < self.columns:
            self.tabstops.add(self.x)
            self._stops = None

    def clear_tab_stop(self, mode: int) -> None:
        if mode == 0:
            self.tabstops.discard(self.x)
        elif mode == 3:
            self.tabstops.clear()
        self._stops = None

    def _row_limits(self) -> tuple[int, int]:
        if self.origin:
            return self.top, self.bottom
        return 0, self.rows - 1

    def cursor_up(self, n: int) -> None:
        lo = self.top if self.y >= self.top else 0
        self.y = max(lo, self.y - max(1, n))
        self.x = min(self.x, self.columns - 1)

    def cursor_down(self, n: int) -> None:
        hi = self.bottom if self.y <= self.bottom else self.rows - 1
        self.y = min(hi, self.y + max(1, n))
        self.x = min(self.x, self.columns - 1)

    def cursor_forward(self, n: int) -> None:
        self.x = min(self.columns - 1, min(self.x, self.columns - 1) + max(1, n))

    def cursor_back(self, n: int) -> None:
        self.x = max(0, min(self.x, self.columns - 1) - max(1, n))

    def cursor_position(self, row: int = 1, col: int = 1) -> None:
        """CUP with 1-based arguments (0 means 1), relative to the region in
        origin mode."""
        lo, hi = self._row_limits()
        self.y = max(lo, min(hi, lo + max(1, row) - 1))
        self.x = max(0, min(self.columns - 1, max(1, col) - 1))

    def cursor_to_column(self, col: int) -> None:
        self.x = max(0, min(self.columns - 1, max(1, col) - 1))

    def cursor_to_line(self, row: int) -> None:
        lo, hi = self._row_limits()
        self.y = max(lo, min(hi, lo + max(1, row) - 1))

    def set_margins(self, top: int, bottom: int) -> None:
        """DECSTBM with 1-based arguments (0 counts as 1, like tmux); an
        invalid region is ignored, a valid one homes the cursor."""
        t = max(1, top) - 1
        b = min(max(1, bottom), self.rows) - 1
        if t >= b:
            return
        self.top, self.bottom = t, b
        self.x = 0
        self.y = 0

    def save_cursor(self) -> None:
        self.saved = (self.x, self.y, self.attr, self.origin, list(self.g), self.shift)

    def restore_cursor(self) -> None:
        if self.saved is None:
            self.x, self.y, self.attr, self.origin = 0, 0, DEFAULT_ATTR, False
            self.g, self.shift = [0, 0], 0
        else:
            x, y, attr, origin, g, shift = self.saved
            self.x = min(x, self.columns - 1)  # a saved pending wrap is not restored
            self.y = min(y, self.rows - 1)
            self.attr, self.origin, self.g, self.shift = attr, origin, list(g), shift
        self._update_charset()
