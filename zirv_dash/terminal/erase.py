"""Erasing, inserting and deleting cells: EL, ED, ECH, ICH, DCH, DECALN."""

from __future__ import annotations

from .attr import DEFAULT_ATTR, Attr, erase_attr
from .scroll import ScrollOps

# Blank cells by count, as the sources of slice assignments (an EL blanks
# half a row a time; building the two lists cost more than copying them):
# tuples, so no row can ever be one of them.
_BLANKS: dict[int, tuple[tuple[str, ...], tuple[Attr, ...]]] = {}
_BLANKS_LIMIT = 1024


def _blanks(n: int) -> tuple[tuple[str, ...], tuple[Attr, ...]]:
    blank = ((" ",) * n, (DEFAULT_ATTR,) * n)
    if n <= _BLANKS_LIMIT:
        _BLANKS[n] = blank
    return blank


class EraseOps(ScrollOps):
    """Blanking cells and rows, and shifting cells within a row."""

    def _blank(self, y: int, a: int, b: int) -> None:
        """Blank cells ``[a, b)`` of row ``y`` with the erase attribute."""
        if a >= b:
            return
        n = b - a
        blank = _BLANKS.get(n)
        if blank is None:
            blank = _blanks(n)
        row = self.chars[y]
        row[a:b] = blank[0]
        if a == 0 and b >= len(row):
            self.wrapped[y] = False  # a wholly cleared line no longer wraps (tmux)
        ea = erase_attr(self.attr)
        self.attrs[y][a:b] = blank[1] if ea is DEFAULT_ATTR else [ea] * n
        self.touched.add(y)

    def _blank_rows(self, a: int, b: int) -> None:
        cols = self.columns
        ea = erase_attr(self.attr)
        for y in range(a, b):
            self.chars[y] = [" "] * cols
            self.attrs[y] = [ea] * cols
            self.wrapped[y] = False
        self.touched.update(range(a, b))

    def erase_in_line(self, mode: int) -> None:
        x = min(self.x, self.columns)
        if mode == 0:
            self._blank(self.y, x, self.columns)
        elif mode == 1:
            self._blank(self.y, 0, min(x + 1, self.columns))
        elif mode == 2:
            self._blank(self.y, 0, self.columns)

    def erase_in_display(self, mode: int) -> None:
        if mode == 0:
            self.erase_in_line(0)
            self._blank_rows(self.y + 1, self.rows)
        elif mode == 1:
            self._blank_rows(0, self.y)
            self.erase_in_line(1)
        elif mode == 2:
            if erase_attr(self.attr) is DEFAULT_ATTR and self._is_filled(" "):
                return  # nothing to erase: keeps a flood of clears/RIS cheap
            if not self.alt and self.history_limit > 0:
                # tmux scrolls the used part of the screen into the history
                # instead of discarding it, so `clear` keeps earlier output.
                last = self._last_used_row()
                n = last + 1
                self._push_rows(self.chars[:n], self.attrs[:n], self.wrapped[:n])
            self._blank_rows(0, self.rows)
        elif mode == 3:
            self.clear_history()

    def _is_filled(self, ch: str) -> bool:
        """Whether every cell is ``ch`` in the default rendition and no row is
        wrapped -- what erasing the screen (``" "``) or DECALN (``"E"``) would
        leave.  ``list.count`` compares whole rows in C, one call per screen."""
        cols, rows = self.columns, self.rows
        return (
            self.chars.count([ch] * cols) == rows
            and self.attrs.count([DEFAULT_ATTR] * cols) == rows
            and not any(self.wrapped)
        )

    def _last_used_row(self) -> int:
        for y in range(self.rows - 1, -1, -1):
            row, arow = self.chars[y], self.attrs[y]
            n = len(row)
            if row.count(" ") + row.count("") != n or arow.count(DEFAULT_ATTR) != n:
                return y
        return -1

    def erase_characters(self, n: int) -> None:
        x = self.x
        if x >= self.columns:
            return  # pending wrap: nothing right of the cursor (tmux)
        self._blank(self.y, x, min(self.columns, x + max(1, n)))

    def insert_characters(self, n: int) -> None:
        """ICH, moving cells exactly as tmux 3.3 does: cells ``[x, x+m)``
        go to ``[x+n, cols)`` (``m = cols - x - n``) and only the vacated
        source cells are blanked, so nothing at all happens when ``n``
        reaches the right margin."""
        cols = self.columns
        x = self.x
        if x >= cols:
            return
        n = min(max(1, n), cols - x)
        m = cols - x - n
        if m <= 0:
            return
        row = self.chars[self.y]
        arow = self.attrs[self.y]
        row[x + n : x + n + m] = row[x : x + m]
        arow[x + n : x + n + m] = arow[x : x + m]
        k = min(x + m, x + n) - x
        row[x : x + k] = [" "] * k
        arow[x : x + k] = [erase_attr(self.attr)] * k
        self.touched.add(self.y)

    def delete_characters(self, n: int) -> None:
        cols = self.columns
        x = self.x
        if x >= cols:
            return
        n = min(max(1, n), cols - x)
        row = self.chars[self.y]
        arow = self.attrs[self.y]
        del row[x : x + n]
        del arow[x : x + n]
        row.extend([" "] * n)
        arow.extend([erase_attr(self.attr)] * n)
        self.touched.add(self.y)

    def alignment_display(self) -> None:
        """DECALN: fill the screen with 'E'."""
        self.top, self.bottom = 0, self.rows - 1
        self.x = self.y = 0
        if self._is_filled("E"):
            return  # already so: a flood of DECALN stays cheap
        for y in range(self.rows):
            self.chars[y] = ["E"] * self.columns
            self.attrs[y] = [DEFAULT_ATTR] * self.columns
            self.wrapped[y] = False
        self.x = self.y = 0
        self.all_touched = True
