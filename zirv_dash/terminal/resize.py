"""Resizing (with reflow of wrapped lines) and the alternate screen."""

from __future__ import annotations

from .attr import DEFAULT_ATTR, Attr, erase_attr
from .cells import heal_end
from .draw import DrawOps
from .reflow import logical_lines, rewrap
from .scrollback import HistLine

# Keep a resize cheap and bounded whatever the widths: a width change re-wraps
# only the newest scrollback lines, whole logical lines while they fit all
# three budgets (rows read, cells read, rows written -- ~2000 rows, tmux's
# default history); older lines are cut or padded when shown, and keep their
# wrap flags, so a later widening joins them again.  Narrowing 2000 lines of
# 200 cells to one column thus writes ~4000 rows, not 400,000.
_REFLOW_ROWS = 20_000
_REFLOW_CELLS = 1_000_000
_REFLOW_OUT = 4000


def _row_cells(line: HistLine) -> int:
    """Cells a scrollback row brings to a reflow: a wrapped one is stored
    whole, at the width it was written at."""
    return line[2]


class ResizeOps(DrawOps):
    """Changing the size like tmux, and switching to and from the alternate screen."""

    def alternate_on(self, save_cursor: bool) -> None:
        """Switch to a fresh alternate buffer (tmux clears it on entry for 47,
        1047 and 1049 alike; only 1049 saves the cursor)."""
        if self.alt:
            return
        if save_cursor:
            self._alt_cursor = (self.x, self.y)
        self._alt_cell = self.attr
        self._main_saved = (self.chars, self.attrs, self.wrapped, self.columns, self.rows)
        cols = self.columns
        ea = erase_attr(self.attr)
        self.chars = [[" "] * cols for _ in range(self.rows)]
        self.attrs = [[ea] * cols for _ in range(self.rows)]
        self.wrapped = [False] * self.rows
        self.alt = True
        self.all_touched = True

    def alternate_off(self, restore_cursor: bool) -> None:
        if restore_cursor and self._alt_cursor is not None:
            x, y = self._alt_cursor
            self.x, self.y = min(x, self.columns - 1), min(y, self.rows - 1)
            self.attr = self._alt_cell
        if not self.alt or self._main_saved is None:
            # tmux clamps the cursor even when there is nothing to switch
            # back from (a pending wrap is cancelled).
            self.x = min(self.x, self.columns - 1)
            return
        cols, rows = self.columns, self.rows
        self.chars, self.attrs, self.wrapped, self.columns, self.rows = self._main_saved
        self._main_saved = None
        self.alt = False
        self.x = min(self.x, self.columns - 1)
        self.y = min(self.y, self.rows - 1)
        if (self.columns, self.rows) != (cols, rows):
            self.resize(cols, rows)  # resized while away: catch up, reflowing
        self.all_touched = True

    # -- resize ----------------------------------------------------------------------

    def resize(self, columns: int, rows: int) -> None:
        """Resize like tmux: the height first (blank rows below the cursor
        go first, then rows to the scrollback; growing pulls them back),
        then the width -- re-wrapping wrapped lines (screen and recent
        scrollback) on the normal screen, cutting/padding on the alternate
        one."""
        columns, rows = max(1, columns), max(1, rows)
        if rows < self.rows:
            self._shrink_rows(rows)
        elif rows > self.rows:
            self._grow_rows(rows)
        if columns != self.columns:
            if self.alt:
                self._cut_columns(columns)
            else:
                self._reflow(columns)
            self.columns = columns
            self.tabstops = set(range(8, columns, 8))
        self.top, self.bottom = 0, self.rows - 1
        self.x = min(self.x, self.columns - 1)
        self.y = min(self.y, self.rows - 1)
        self.all_touched = True

    def _cut_columns(self, columns: int) -> None:
        old = self.columns
        for row, arow in zip(self.chars, self.attrs, strict=True):
            if columns < old:
                del row[columns:]
                del arow[columns:]
                heal_end(row)
            else:
                row.extend([" "] * (columns - old))
                arow.extend([DEFAULT_ATTR] * (columns - old))

    def _reflow(self, columns: int) -> None:
        """Re-wrap logical lines (rows joined by their wrap flags) at the new
        width; the cursor keeps its place in its logical line."""
        old = self.columns
        k = self._reflow_window(columns)
        src_c: list[list[str]] = []
        src_a: list[list[Attr]] = []
        src_w: list[bool] = []
        for _ in range(k):
            c, a, w = self._pop_history_row_at()
            src_c.append(c)
            src_a.append(a)
            src_w.append(w)
        src_c.reverse()
        src_a.reverse()
        src_w.reverse()
        cur_row = len(src_c) + self.y
        cur_x = min(self.x, old)
        src_c += self.chars
        src_a += self.attrs
        src_w += self.wrapped
        lines, cur_line, cur_off = logical_lines(src_c, src_a, src_w, cur_row, cur_x)
        (out_c, out_a, out_w), cur = rewrap(lines, columns, cur_line, cur_off)
        # place: the last screenful on screen, the rest into the scrollback
        height = self.rows
        total = len(out_c)
        split = max(0, total - height)
        for i in range(split):
            self._push_history(out_c[i], out_a[i], out_w[i])
        self.chars = out_c[split:]
        self.attrs = out_a[split:]
        self.wrapped = out_w[split:]
        while len(self.chars) < height:
            self.chars.append([" "] * columns)
            self.attrs.append([DEFAULT_ATTR] * columns)
            self.wrapped.append(False)
        if cur[0] < split:
            self.x, self.y = 0, 0  # the cursor's line went to the scrollback (tmux)
        else:
            self.x, self.y = cur[1], min(cur[0] - split, height - 1)

    def _reflow_window(self, columns: int) -> int:
        """How many of the newest scrollback rows a change to ``columns``
        re-wraps: whole logical lines, newest first, within the
        budgets; a newest line too big for them alone gives its newest rows."""
        hist = self.history
        rows = cells = out = 0
        i = len(hist) - 1
        while i >= 0:
            j = i  # the logical line is rows j..i
            line_cells = _row_cells(hist[i])
            while j > 0 and hist[j - 1][4] and i - j < _REFLOW_ROWS:
                j -= 1
                line_cells += _row_cells(hist[j])
            height = max(1, -(-line_cells // columns))
            if (
                rows + i - j + 1 > _REFLOW_ROWS
                or cells + line_cells > _REFLOW_CELLS
                or out + height > _REFLOW_OUT
            ):
                return rows if rows else self._reflow_suffix(i, j, columns)
            rows += i - j + 1
            cells += line_cells
            out += height
            i = j - 1
        return rows

    def _reflow_suffix(self, i: int, j: int, columns: int) -> int:
        """The newest rows of the logical line ``j..i`` that fit the budgets."""
        hist = self.history
        cells = out = 0
        for r in range(i, j - 1, -1):
            c = _row_cells(hist[r])
            h = max(1, -(-c // columns))
            if i - r + 1 > _REFLOW_ROWS or cells + c > _REFLOW_CELLS or out + h > _REFLOW_OUT:
                return i - r
            cells += c
            out += h
        return i - j + 1

    def _shrink_rows(self, rows: int) -> None:
        # Like tmux: first drop blank rows below the cursor, then push rows off
        # the top (into the scrollback on the normal screen).
        excess = self.rows - rows
        chars, attrs, wrapped = self.chars, self.attrs, self.wrapped
        while excess and len(chars) - 1 > self.y:
            last = len(chars) - 1
            if "".join(chars[last]).strip(" ") or attrs[last].count(DEFAULT_ATTR) != self.columns:
                break
            chars.pop()
            attrs.pop()
            wrapped.pop()
            excess -= 1
        if excess:
            for k in range(excess):
                if not self.alt and self.history_limit > 0:
                    self._push_history(chars[k], attrs[k], wrapped[k])
            del chars[:excess]
            del attrs[:excess]
            del wrapped[:excess]
            self.y = max(0, self.y - excess)
        self.rows = rows

    def _grow_rows(self, rows: int) -> None:
        cols = self.columns
        need = rows - self.rows
        if not self.alt:
            pulled = 0
            while need and self.history:
                c, a, w = self._pop_history_row()
                self.chars.insert(0, c)
                self.attrs.insert(0, a)
                self.wrapped.insert(0, w)
                need -= 1
                pulled += 1
            self.y += pulled
        for _ in range(need):
            self.chars.append([" "] * cols)
            self.attrs.append([DEFAULT_ATTR] * cols)
            self.wrapped.append(False)
        self.rows = rows
