"""The scrollback: rows that scrolled off the top, within a byte budget.

A line is stored compactly (see :meth:`Scrollback._push_history`) and charged
what it really costs in memory, so the budget bounds the process, not just
the text.
"""

from __future__ import annotations

import sys
from collections import deque
from itertools import repeat
from operator import itemgetter

from . import accel
from .attr import DEFAULT_ATTR, Attr
from .cells import Run, heal_end, make_runs, render_cells, render_runs
from .widths import narrow_run_full, strip_marks

# A scrollback line: cell text, attribute(s), cells, bytes it costs, and
# whether it wrapped onto the next line (for reflow).
HistLine = tuple[str | tuple[str, ...], Attr | tuple[Attr, ...], int, int, bool]

# What a scrollback line costs beyond its text and attributes (CPython,
# 64-bit): its 5-tuple, its slot in the deque, and the int objects holding
# its cell count and cost.  Every line is charged this even when its record
# is shared (blank lines), so the budget also bounds the number of lines.
_LINE_OVERHEAD = sys.getsizeof(("", DEFAULT_ATTR, 0, 0, False)) + 8 + 2 * sys.getsizeof(1 << 40)
_EMPTY_LINE: HistLine = ("", DEFAULT_ATTR, 0, _LINE_OVERHEAD, False)
_getsizeof = sys.getsizeof
_cost_of = itemgetter(3)


def line_cost(body: str | tuple[str, ...], attrs: Attr | tuple[Attr, ...]) -> int:
    """Bytes a scrollback line really holds: the overhead, its text (a
    ``str``, or a tuple of cell strings, each a separate object unless it is
    one of CPython's cached one-character Latin-1 strings) and its attributes
    (one interned :class:`Attr` costs nothing more; a tuple costs 8 a cell)."""
    cost = _LINE_OVERHEAD + sys.getsizeof(body)
    if isinstance(body, tuple):
        cost += sum([sys.getsizeof(c) for c in body if len(c) > 1 or c > "\xff"])
    if isinstance(attrs, tuple):
        cost += sys.getsizeof(attrs)
    return cost


def _rstrip_blanks(text: str) -> str:
    """``text.rstrip(" ")``, faster: ``rstrip(" ")`` tests every character
    it strips with a search of its argument, plain ``rstrip()`` with a table
    -- the same result when everything it strips is a space."""
    stripped = text.rstrip()
    tail = len(text) - len(stripped)
    if tail and text.count(" ", len(stripped)) != tail:
        return text.rstrip(" ")  # other white space (a tab, NBSP) at the end
    return stripped


class Scrollback:
    """Scrollback state and operations; the grid that owns it sets ``columns``."""

    columns: int

    def __init__(self, history_limit: int) -> None:
        self.history_limit = max(0, history_limit)
        self.history: deque[HistLine] = deque()
        self.history_bytes = 0

    def _push_history(self, chars: list[str], attrs: list[Attr], wrapped: bool = False) -> None:
        """Append a row to the scrollback and drop the oldest lines past the
        byte budget (the record: :meth:`_row_line`)."""
        self._keep_line(self._row_line(chars, attrs, wrapped))

    def _push_rows(
        self, chars: list[list[str]], attrs: list[list[Attr]], wrapped: list[bool]
    ) -> None:
        """:meth:`_push_history` of each row, the history trimmed once after
        them all (which leaves the same lines as trimming after each)."""
        if accel.row_lines is not None:
            # Rows of ASCII cells in C, the same records; None for the others.
            recs = accel.row_lines(chars, attrs, wrapped, DEFAULT_ATTR, _LINE_OVERHEAD, _EMPTY_LINE)
            for k, rec in enumerate(recs):
                if rec is None:
                    recs[k] = self._row_line(chars[k], attrs[k], wrapped[k])
        else:
            recs = list(map(self._row_line, chars, attrs, wrapped))
        self._keep_lines(recs, sum(map(_cost_of, recs)))

    def _row_line(self, chars: list[str], attrs: list[Attr], wrapped: bool) -> HistLine:
        """The scrollback record of a row.

        A line is stored as ``(text, attrs, cells, cost, wrapped)`` with the
        trailing default blanks cut off.  ``text`` is a ``str`` whose
        characters map 1:1 to cells, or -- when the line has wide or
        combining characters -- the tuple of cell strings.  ``attrs`` is one
        :class:`Attr` when the whole line shares it, else a tuple with one per
        cell.  ``cost`` is what the line really takes in memory (see
        :func:`line_cost`), so the budget bounds the process, not just the
        text.  This costs ~2 us a line; grouping into runs happens only when a
        line is displayed.
        """
        cols = len(chars)
        a0 = attrs[0]
        # One rendition for the whole row (the commonest case; cheap reject first).
        uniform = attrs[-1] is a0 and attrs.count(a0) == cols
        plain = uniform and a0 is DEFAULT_ATTR
        line: HistLine
        if plain and not wrapped and chars[0] == " " == chars[-1] and chars.count(" ") == cols:
            line = _EMPTY_LINE  # a blank line (a flood's commonest): one shared record
        else:
            text = "".join(chars)
            stripped = _rstrip_blanks(text)
            keep = cols - (len(text) - len(stripped))
            if keep < cols and (
                wrapped or (not plain and attrs[keep:].count(DEFAULT_ATTR) != cols - keep)
            ):
                # Coloured trailing blanks are visible; a wrapped row's blanks
                # belong to its logical line (a reflow at any width joins it).
                keep = cols
            if keep == 0:
                line = _EMPTY_LINE
            else:
                flat = stripped if keep < cols else text
                body: str | tuple[str, ...] = flat
                if len(flat) != keep or not (flat.isascii() or narrow_run_full(flat)):
                    body = tuple(chars[:keep])  # wide or combining characters: keep cells
                if uniform:
                    cost = _LINE_OVERHEAD + _getsizeof(body)
                    if type(body) is tuple:
                        cost = line_cost(body, a0)
                    line = (body, a0, keep, cost, wrapped)
                else:
                    cell_attrs = tuple(attrs[:keep]) if keep < cols else tuple(attrs)
                    if type(body) is str:  # line_cost(), inlined for the common case
                        cost = _LINE_OVERHEAD + _getsizeof(body) + _getsizeof(cell_attrs)
                    else:
                        cost = line_cost(body, cell_attrs)
                    line = (body, cell_attrs, keep, cost, wrapped)
        return line

    def _keep_line(self, line: HistLine) -> None:
        """Add one line to the history and drop the oldest past the budget."""
        hist = self.history
        hist.append(line)
        self.history_bytes += line[3]
        if self.history_bytes > self.history_limit:
            limit = self.history_limit
            while self.history_bytes > limit and hist:
                self.history_bytes -= hist.popleft()[3]

    def _push_narrow(self, text: str, cells: list[Attr], s: int) -> None:
        """What :meth:`_push_history` makes of a row holding single-width
        ``text`` (at most a row wide) with the attributes ``cells[s : s +
        len(text)]``, blank and default past it, not wrapped -- without the
        row (a highlighted log line scrolling straight through)."""
        self._keep_line(self._narrow_line(text, cells, s))

    def _push_narrow_lines(self, lines: list[str], cells: list[Attr], starts: list[int]) -> None:
        """:meth:`_push_narrow` of each line (line ``k``'s attributes from
        ``cells[starts[k]]``), the history trimmed once after them all: the
        same lines are left as trimming after each (the newest that fit)."""
        if accel.narrow_lines is not None:
            args = (len(lines), self.columns, DEFAULT_ATTR, _LINE_OVERHEAD, _EMPTY_LINE)
            recs, cost = accel.narrow_lines(lines, cells, starts, *args)
        else:
            recs = list(map(self._narrow_line, lines, repeat(cells), starts))
            cost = sum(map(_cost_of, recs))
        self._keep_lines(recs, cost)

    def _keep_lines(self, lines: list[HistLine], cost: int) -> None:
        """Add lines costing ``cost`` together to the history and drop the
        oldest past the budget."""
        hist = self.history
        hist.extend(lines)
        self.history_bytes += cost
        limit = self.history_limit
        while self.history_bytes > limit and hist:
            self.history_bytes -= hist.popleft()[3]

    def _narrow_line(self, text: str, cells: list[Attr], s: int) -> HistLine:
        """The record :meth:`_push_narrow` keeps (``_accel.narrow_lines``
        makes the same in C)."""
        cols = self.columns
        w = len(text)
        e = s + w
        stripped = _rstrip_blanks(text)
        keep = len(stripped)
        line: HistLine
        if w < cols:
            # The default blanks past the text: uniform only in the default.
            uniform = (w == 0 or cells[s] is DEFAULT_ATTR) and cells[s:e].count(DEFAULT_ATTR) == w
            a0 = DEFAULT_ATTR
        else:
            a0 = cells[s]
            uniform = cells[e - 1] is a0 and cells[s:e].count(a0) == cols
        plain = uniform and a0 is DEFAULT_ATTR
        if keep < w and not plain and cells[s + keep : e].count(DEFAULT_ATTR) != w - keep:
            keep = cols  # coloured trailing blanks are visible
        if keep == 0:
            line = _EMPTY_LINE
        else:
            body = stripped if keep < cols else text.ljust(cols)
            if uniform:
                line = (body, a0, keep, _LINE_OVERHEAD + _getsizeof(body), False)
            else:
                if keep <= w:
                    cell_attrs = tuple(cells[s : s + keep])
                else:
                    cell_attrs = (*cells[s:e], *[DEFAULT_ATTR] * (cols - w))
                cost = _LINE_OVERHEAD + _getsizeof(body) + _getsizeof(cell_attrs)
                line = (body, cell_attrs, keep, cost, False)
        return line

    def _push_text_lines(self, lines: list[str]) -> None:
        """Append lines of single-width text in the default rendition, not
        wrapped -- what :meth:`_push_history` makes of such rows, without the
        rows."""
        if accel.text_lines is not None:
            recs, cost = accel.text_lines(lines, DEFAULT_ATTR, _LINE_OVERHEAD, _EMPTY_LINE)
            self._keep_lines(recs, cost)
            return
        hist = self.history
        total = self.history_bytes
        overhead = _LINE_OVERHEAD
        for text in lines:
            body = text.rstrip(" ")
            line: HistLine = (body, DEFAULT_ATTR, len(body), overhead + _getsizeof(body), False)
            if not body:
                line = _EMPTY_LINE
            hist.append(line)
            total += line[3]
        self.history_bytes = total
        limit = self.history_limit
        while self.history_bytes > limit and hist:
            self.history_bytes -= hist.popleft()[3]

    def clear_history(self) -> None:
        self.history.clear()
        self.history_bytes = 0

    def _history_cells(self, i: int) -> tuple[list[str], list[Attr]]:
        body, attrs, cells, _, _ = self.history[i]
        chars = list(body)
        alist = [attrs] * cells if isinstance(attrs, Attr) else list(attrs)
        return chars, alist

    def history_runs(self, i: int) -> list[Run]:
        chars, alist = self._history_cells(i)
        cols = self.columns
        cells = len(chars)
        if cells > cols:
            del chars[cols:]
            del alist[cols:]
            heal_end(chars)
            cells = cols
        out = make_runs(render_cells(chars), alist, cells)
        if cells < cols:
            out.append((" " * (cols - cells), DEFAULT_ATTR))
        return render_runs(out)

    def history_text(self, i: int) -> str:
        body = self.history[i][0]
        text = body if isinstance(body, str) else "".join(body)
        return strip_marks(text.replace("\0", "")).rstrip(" ")

    def _pop_history_row(self) -> tuple[list[str], list[Attr], bool]:
        """Take the newest scrollback line back as a screen row."""
        chars, attrs = self._history_cells(len(self.history) - 1)
        line = self.history.pop()
        self.history_bytes -= line[3]
        cols = self.columns
        del chars[cols:]
        del attrs[cols:]
        if chars:
            heal_end(chars)
        chars.extend([" "] * (cols - len(chars)))
        attrs.extend([DEFAULT_ATTR] * (cols - len(attrs)))
        return chars, attrs, line[4]

    def _pop_history_row_at(self) -> tuple[list[str], list[Attr], bool]:
        """Newest scrollback line as cells (a wrapped one is stored whole, at
        the width it was written at, so it joins its successor as it was)."""
        chars, attrs = self._history_cells(len(self.history) - 1)
        line = self.history.pop()
        self.history_bytes -= line[3]
        return chars, attrs, line[4]
