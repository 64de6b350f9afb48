"""The character grid: cells, cursor, scroll region, scrollback, alternate screen.

Why not ``pyte.Screen``'s buffer?  pyte keeps a ``dict`` of ``dict`` of ``Char``
namedtuples and creates one ``Char`` per drawn character; drawing a 200-column
line costs hundreds of Python-level operations.  Here a row is two parallel
lists -- ``chars[y][x]`` (a ``str``: one character plus any combining marks,
``" "`` when blank, ``""`` for the right half of a wide character) and
``attrs[y][x]`` (an interned :class:`Attr`) -- so a run of printable text is
written with two slice assignments that run at C speed, scrolling is a list
``del``/insert of row references, and rendering a row groups identical ``Attr``
references.  The method names follow pyte's ``Screen`` event vocabulary
(``index``, ``reverse_index``, ``erase_in_line``, ``insert_characters``...),
and the semantics follow tmux 3.3 -- quirks included, found by differential
testing -- which is the reference the fidelity tests compare against.

Cursor column ``x == columns`` means "pending wrap": the last column was just
written and the next printable character wraps first (like pyte and tmux).
``wrapped[y]`` records that row ``y`` ran on into row ``y + 1`` (tmux's
``GRID_LINE_WRAPPED``): backspace uses it to go back over a wrap, and a width
change re-wraps such lines (``_reflow``), screen and recent scrollback alike
(within fixed budgets, so a resize costs a bounded amount; wrapped rows keep
their flags, so a later widening joins them again).
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_left, bisect_right
from collections import deque
from itertools import groupby
from operator import itemgetter

from .attr import DEFAULT_ATTR, Attr, erase_attr
from .widths import char_width, narrow_run_full

_MAX_CLUSTER = 21  # UTF-8 bytes in one cell (base + combining marks), as tmux

Run = tuple[str, Attr]
# A scrollback line: cell text, attribute(s), cells, bytes it costs, and
# whether it wrapped onto the next line (for reflow).
HistLine = tuple[str | tuple[str, ...], Attr | tuple[Attr, ...], int, int, bool]
# Keep a resize cheap and bounded whatever the widths: a width change re-wraps
# only the newest scrollback lines, whole logical lines while they fit all
# three budgets (rows read, cells read, rows written -- ~2000 rows, tmux's
# default history); older lines are cut or padded when shown, and keep their
# wrap flags, so a later widening joins them again.  Narrowing 2000 lines of
# 200 cells to one column thus writes ~4000 rows, not 400,000.
_REFLOW_ROWS = 20_000
_REFLOW_CELLS = 1_000_000
_REFLOW_OUT = 4000

# What a scrollback line costs beyond its text and attributes (CPython,
# 64-bit): its 5-tuple, its slot in the deque, and the int objects holding
# its cell count and cost.  Every line is charged this even when its record
# is shared (blank lines), so the budget also bounds the number of lines.
_LINE_OVERHEAD = sys.getsizeof(("", DEFAULT_ATTR, 0, 0, False)) + 8 + 2 * sys.getsizeof(1 << 40)
_EMPTY_LINE: HistLine = ("", DEFAULT_ATTR, 0, _LINE_OVERHEAD, False)
_getsizeof = sys.getsizeof

_first = itemgetter(0)
_second = itemgetter(1)


def _row_cells(line: HistLine) -> int:
    """Cells a scrollback row brings to a reflow: a wrapped one is stored
    whole, at the width it was written at."""
    return line[2]


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


def make_runs(chars: list[str], attrs: list[Attr], end: int) -> list[Run]:
    """Group cells ``[0, end)`` into ``(text, attr)`` runs.  Wide-character
    placeholders are ``""`` so they vanish from the text while the lead
    character keeps its place."""
    if end <= 0:
        return []
    a0 = attrs[0]
    if end == len(attrs):
        if attrs.count(a0) == end:
            return [("".join(chars), a0)]
        return [
            ("".join(map(_first, grp)), a)
            for a, grp in groupby(zip(chars, attrs, strict=False), _second)
        ]
    return [
        ("".join(map(_first, grp)), a)
        for a, grp in groupby(zip(chars[:end], attrs[:end], strict=False), _second)
    ]


# DEC special graphics (``ESC ( 0``: line drawing).  tmux stores such a cell
# as its ASCII letter plus a charset flag, so `capture-pane -p` shows "lqqk"
# while the terminal shows "┌──┐".  We keep both: the cell is "\0" + letter
# (NUL is never printed, so it cannot clash with real text); ``lines()``
# drops the NUL, ``row_runs()`` turns the pair into the glyph (pyte's
# VT100 map).
_DEC_PAIR_RE = re.compile("\0([\x5f-\x7e])")
_dec_map: dict[str, str] = {}


def _dec_glyph_map() -> dict[str, str]:
    if not _dec_map:  # imported on first use: pyte's package import is not free
        from pyte import charsets

        _dec_map.update({chr(c): charsets.VT100_MAP[c] for c in range(0x5F, 0x7F)})
    return _dec_map


def dec_cells(text: str) -> list[str]:
    """Cells for single-width ``text`` drawn while DEC graphics is active."""
    return ["\0" + c if "\x5f" <= c <= "\x7e" else c for c in text]


def _dec_glyphs(text: str) -> str:
    glyphs = _dec_glyph_map()
    return _DEC_PAIR_RE.sub(lambda m: glyphs[m.group(1)], text).replace("\0", "")


def render_runs(runs: list[Run]) -> list[Run]:
    """Runs as they are displayed (DEC graphics markers turned into glyphs)."""
    for i, (t, a) in enumerate(runs):
        if "\0" in t:
            runs[i] = (_dec_glyphs(t), a)
    return runs


def _heal(row: list[str], x: int, ascii_first: bool = False) -> None:
    """Prepare boundary ``x`` of a *draw* (tmux's overwrite rules).

    Writing starts at ``x`` or ends just before it.  If cell ``x`` is the
    right half of a wide character: a draw starting there blanks the wide
    character's left half -- except, as tmux 3.3 does on its ASCII fast
    path, when that half is in column 0 -- and a draw ending before it
    blanks the orphaned right half(s).  Erase, insert and delete operations
    do not heal at all (tmux does not either); ``render_cells`` copes with
    the orphans they leave.
    """
    if 0 < x < len(row) and row[x] == "":
        lead = row[x - 1]
        if lead and lead != " " and char_width(lead[0]) == 2 and not (x == 1 and ascii_first):
            row[x - 1] = " "
        row[x] = " "
        k = x + 1
        while k < len(row) and row[k] == "":
            row[k] = " "
            k += 1


def render_cells(chars: list[str]) -> list[str]:
    """The cells of a row as they can be displayed: a right half with no
    wide character before it, or a wide character with no right half after
    it (left by erase/insert/delete in the middle of a wide character, as in
    tmux), become blanks, so that every row covers exactly its width."""
    text = "".join(chars)
    if len(text) == len(chars) and (text.isascii() or narrow_run_full(text)):
        return chars  # no wide characters, no placeholders: nothing to fix
    out = list(chars)
    n = len(chars)
    for i, c in enumerate(chars):
        if c == "":
            prev = chars[i - 1] if i else ""
            if not prev or char_width(prev[0]) != 2:
                out[i] = " "
        elif char_width(c[0]) == 2 and (i + 1 >= n or chars[i + 1] != ""):
            out[i] = " "
    return out


def _heal_end(row: list[str]) -> None:
    """A wide character whose right half was pushed off the row becomes a blank."""
    last = row[-1]
    if last and last != " " and char_width(last[0]) == 2:
        row[-1] = " "


class Screen:
    """Grid state and the operations escape sequences perform on it."""

    def __init__(self, columns: int, rows: int, history_limit: int) -> None:
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        self.history_limit = max(0, history_limit)
        self.history: deque[HistLine] = deque()
        self.history_bytes = 0
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

    # -- state ---------------------------------------------------------------

    def hard_reset(self) -> None:
        """RIS as tmux does it: modes, margins, tabs, charsets, attributes
        and the saved cursor are reset and the screen is cleared (into the
        scrollback, like ED 2); the alternate screen is *not* left."""
        self.attr = DEFAULT_ATTR
        self.erase_in_display(2)
        self.x = self.y = 0
        self.top, self.bottom = 0, self.rows - 1
        self.autowrap = True
        self.insert_mode = False
        self.origin = False
        self.tabstops = set(range(8, self.columns, 8))
        self.g = [0, 0]
        self.shift = 0
        self.graphics = False
        self.saved = None
        self.last_char = ""
        self.zwj = False

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
        self.all_touched = True

    def _update_charset(self) -> None:
        self.graphics = self.g[self.shift] == 1

    # -- drawing ---------------------------------------------------------------

    def _wrap(self) -> None:
        self.wrapped[self.y] = True
        self.x = 0
        self.index()

    def draw_narrow(self, text: str) -> None:
        """Draw ``text`` whose characters are all one cell wide."""
        x = self.x
        end = x + len(text)
        if end <= self.columns and not self.insert_mode and not self.zwj:
            # Fast path: the run fits on the current line.
            y = self.y
            row = self.chars[y]
            if row[x] == "" or (end < self.columns and row[end] == ""):
                _heal(row, x, text[0] < "\x7f")
                _heal(row, end)
            row[x:end] = text
            self.attrs[y][x:end] = [self.attr] * (end - x)
            self.touched.add(y)
            # Without DECAWM the cursor sticks on the last column.
            self.x = end if end < self.columns or self.autowrap else end - 1
            self.last_char = text[-1]
            return
        self.draw_cells(text, [self.attr] * len(text))

    def heal(self, y: int, a: int, b: int, ascii_first: bool) -> None:
        """Clean cell boundaries at ``a`` and ``b`` of row ``y`` before
        drawing over ``[a, b)``."""
        row = self.chars[y]
        _heal(row, a, ascii_first)
        _heal(row, b)

    def draw_cells(self, text: str | list[str], cell_attrs: list[Attr]) -> None:
        """Draw single-width ``text`` with one attribute per character,
        wrapping (or not, without DECAWM) at the right margin."""
        if self.zwj and isinstance(text, str) and not text.isascii():
            self._split_zwj(text, cell_attrs)
            return
        cols = self.columns
        n = len(text)
        pos = 0
        touched = self.touched
        while pos < n:
            x = self.x
            wrapped = 0
            if x >= cols:
                if self.autowrap:
                    self._wrap()
                    x = 0
                    wrapped = 1
                else:
                    x = cols - 1
                    pos = n - 1
            elif x == cols - 1 and not self.autowrap and pos < n - 1:
                pos = n - 1  # every character lands on the last column
            take = cols - x
            if take > n - pos:
                take = n - pos
            end = x + take
            y = self.y
            row = self.chars[y]
            arow = self.attrs[y]
            if self.insert_mode:
                # tmux makes room before it wraps, so the first character
                # after a wrap overwrites instead of inserting.
                ins = take - wrapped
                if ins > 0:
                    row[x + wrapped : x + wrapped] = [" "] * ins
                    arow[x + wrapped : x + wrapped] = [self.attr] * ins
                    del row[cols:]
                    del arow[cols:]
            elif row[x] == "" or (end < cols and row[end] == ""):
                first = text[pos]
                _heal(row, x, len(first) == 1 and first < "\x7f")
                _heal(row, end)
            row[x:end] = text[pos : pos + take]
            arow[x:end] = cell_attrs[pos : pos + take]
            touched.add(y)
            self.x = end if end < cols or self.autowrap else end - 1
            pos += take
        if n:
            self.last_char = text[-1]

    def draw_char(self, ch: str) -> None:
        """Draw one character of any width (wide, combining, zero width)."""
        self.last_char = ""  # REP only repeats ASCII (tmux)
        w = char_width(ch)
        if w < 0:
            return  # not printable: tmux drops it too
        cols = self.columns
        if self.zwj:
            self._zwj_join(ch)
            return
        if w == 0:
            if ch == "\u200d":
                self.zwj = True
                return
            self._combine(ch)
            return
        if w == 2 and cols < 2:
            return
        x = self.x
        wrapped = False
        if x >= cols or x + w > cols:
            if self.autowrap:
                if self.insert_mode and x < cols:
                    self._insert_blanks(x, w)  # tmux inserts, then wraps
                self._wrap()
                x = 0
                wrapped = True
            elif w > 1:
                return  # a wide character that does not fit is dropped (tmux)
            else:
                x = cols - 1
        y = self.y
        row = self.chars[y]
        arow = self.attrs[y]
        attr = self.attr
        if self.insert_mode and not wrapped:
            row[x:x] = [" "] * w
            arow[x:x] = [attr] * w
            del row[cols:]
            del arow[cols:]
        else:
            _heal(row, x)
            _heal(row, x + w)
        row[x] = ch
        arow[x] = attr
        if w == 2:
            row[x + 1] = ""
            arow[x + 1] = attr
        self.touched.add(y)
        self.x = x + w if x + w < cols or self.autowrap else cols - 1

    def _insert_blanks(self, x: int, n: int) -> None:
        row = self.chars[self.y]
        arow = self.attrs[self.y]
        row[x:x] = [" "] * n
        arow[x:x] = [self.attr] * n
        del row[self.columns :]
        del arow[self.columns :]
        self.touched.add(self.y)

    def _zwj_join(self, ch: str) -> None:
        """tmux 3.3 holds a zero width joiner until the next non-ASCII
        character and glues both onto the previous cell (so emoji sequences
        such as family emoji stay one glyph); with no previous cell the
        character is dropped.  ASCII text in between is drawn normally."""
        self.zwj = False
        self._combine("\u200d" + ch)

    def _split_zwj(self, text: str, cell_attrs: list[Attr]) -> None:
        k = next(i for i, c in enumerate(text) if c >= "\x80")
        if k:
            self.draw_cells(text[:k], cell_attrs[:k])
        self._zwj_join(text[k])
        if k + 1 < len(text):
            self.draw_cells(text[k + 1 :], cell_attrs[k + 1 :])

    def _combine(self, marks: str) -> bool:
        """Append ``marks`` to the cell before the cursor (the one just
        written, or the lead of a wide character)."""
        x = min(self.x, self.columns) - 1
        if x < 0:
            return False
        row = self.chars[self.y]
        if row[x] == "" and x > 0:
            x -= 1
        if len((row[x] + marks).encode()) > _MAX_CLUSTER:
            return False  # tmux caps a cell at 21 UTF-8 bytes (and: no quadratic growth)
        row[x] += marks
        self.touched.add(self.y)
        return True

    def repeat(self, ch: str, n: int) -> None:
        """REP: repeat ``ch``, the last printed character, like tmux: only a
        plain ASCII one, and at most up to the end of the line."""
        if ch and " " <= ch < "\x7f" and n > 0:
            n = min(n, self.columns - min(self.x, self.columns))
            if n > 0:
                self.draw_narrow(ch * n)
                self.last_char = ""  # a second REP repeats nothing (tmux)

    # -- line feeds and scrolling --------------------------------------------

    def index(self) -> None:
        """Move down one line, scrolling the region at its bottom margin."""
        if self.y == self.bottom:
            self.scroll_up(1)
        elif self.y < self.rows - 1:
            self.y += 1

    def reverse_index(self) -> None:
        if self.y == self.top:
            self.scroll_down(1)
        elif self.y > 0:
            self.y -= 1

    def linefeed(self) -> None:
        # LNM is not supported (tmux ignores it too): LF only moves down,
        # and a pending wrap stays pending (tmux).
        self.index()

    def next_line(self) -> None:
        self.x = 0
        self.index()

    def scroll_up(self, n: int) -> None:
        top, bottom = self.top, self.bottom
        if n == 1 and top == 0 and bottom == self.rows - 1 and self.history_limit and not self.alt:
            # The common case (a line feed at the bottom of a full-screen
            # scroll region): one row to the scrollback, one blank row in.
            self._push_history(self.chars.pop(0), self.attrs.pop(0), self.wrapped.pop(0))
            self.chars.append([" "] * self.columns)
            self.attrs.append([erase_attr(self.attr)] * self.columns)
            self.wrapped.append(False)
            self.all_touched = True
            return
        n = min(n, bottom - top + 1)
        if n <= 0:
            return
        cols = self.columns
        chars, attrs, wrapped = self.chars, self.attrs, self.wrapped
        if top == 0 and not self.alt and self.history_limit > 0:
            for k in range(n):
                self._push_history(chars[k], attrs[k], wrapped[k])
        ea = erase_attr(self.attr)
        del chars[top : top + n]
        del attrs[top : top + n]
        del wrapped[top : top + n]
        ins = bottom - n + 1
        if n == 1:
            chars.insert(ins, [" "] * cols)
            attrs.insert(ins, [ea] * cols)
            wrapped.insert(ins, False)
        else:
            chars[ins:ins] = [[" "] * cols for _ in range(n)]
            attrs[ins:ins] = [[ea] * cols for _ in range(n)]
            wrapped[ins:ins] = [False] * n
        if top == 0 and bottom == self.rows - 1:
            self.all_touched = True
        else:
            self.touched.update(range(top, bottom + 1))

    def scroll_down(self, n: int) -> None:
        top, bottom = self.top, self.bottom
        n = min(n, bottom - top + 1)
        if n <= 0:
            return
        cols = self.columns
        chars, attrs = self.chars, self.attrs
        ea = erase_attr(self.attr)
        del chars[bottom - n + 1 : bottom + 1]
        del attrs[bottom - n + 1 : bottom + 1]
        del self.wrapped[bottom - n + 1 : bottom + 1]
        chars[top:top] = [[" "] * cols for _ in range(n)]
        attrs[top:top] = [[ea] * cols for _ in range(n)]
        self.wrapped[top:top] = [False] * n
        self.touched.update(range(top, bottom + 1))

    def insert_lines(self, n: int) -> None:
        """IL, as tmux does it: inside the scroll region it works on the
        region (see ``_insert_lines_outside`` for outside it); the cursor
        stays where it is, a pending wrap included."""
        top, bottom = self.top, self.bottom
        if not (top <= self.y <= bottom):
            self._insert_lines_outside(max(1, n))
            return
        self.top = self.y
        try:
            self.scroll_down(max(1, n))
        finally:
            self.top, self.bottom = top, bottom

    def _insert_lines_outside(self, n: int) -> None:
        """IL outside the scroll region, exactly as tmux 3.3 moves lines:
        rows ``[y, y+m)`` go to ``[y+n, rows)`` (``m = rows - y - n``) and
        only the vacated source rows are blanked -- rows between are left
        alone, and nothing happens when ``n`` reaches the bottom."""
        y, rows, cols = self.y, self.rows, self.columns
        n = min(n, rows - y)
        m = rows - y - n
        if m <= 0:
            return
        chars, attrs = self.chars, self.attrs
        src_c, src_a, src_w = chars[y : y + m], attrs[y : y + m], self.wrapped[y : y + m]
        chars[y + n : y + n + m] = src_c
        attrs[y + n : y + n + m] = src_a
        self.wrapped[y + n : y + n + m] = src_w
        ea = erase_attr(self.attr)
        for k in range(y, min(y + m, y + n)):
            chars[k] = [" "] * cols
            attrs[k] = [ea] * cols
            self.wrapped[k] = False
        self.touched.update(range(y, rows))

    def delete_lines(self, n: int) -> None:
        """DL: inside the scroll region it works on the region, outside it on
        the rest of the screen (tmux); deleted lines never go to the
        scrollback."""
        top, bottom, alt = self.top, self.bottom, self.alt
        self.top = self.y
        if not (top <= self.y <= bottom):
            self.bottom = self.rows - 1
        self.alt = True
        try:
            self.scroll_up(max(1, n))
        finally:
            self.top, self.bottom, self.alt = top, bottom, alt

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

    # -- erasing -----------------------------------------------------------------

    def _blank(self, y: int, a: int, b: int) -> None:
        """Blank cells ``[a, b)`` of row ``y`` with the erase attribute."""
        if a >= b:
            return
        row = self.chars[y]
        row[a:b] = [" "] * (b - a)
        if a == 0 and b >= len(row):
            self.wrapped[y] = False  # a wholly cleared line no longer wraps (tmux)
        self.attrs[y][a:b] = [erase_attr(self.attr)] * (b - a)
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
                for y in range(last + 1):
                    self._push_history(self.chars[y], self.attrs[y], self.wrapped[y])
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

    # -- alternate screen --------------------------------------------------------

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

    # -- scrollback ----------------------------------------------------------------

    def _push_history(self, chars: list[str], attrs: list[Attr], wrapped: bool = False) -> None:
        """Append a row to the scrollback and drop the oldest lines past the
        byte budget.

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
            stripped = text.rstrip(" ")
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
                    cell_attrs = tuple(attrs[:keep])
                    line = (body, cell_attrs, keep, line_cost(body, cell_attrs), wrapped)
        hist = self.history
        hist.append(line)
        self.history_bytes += line[3]
        if self.history_bytes > self.history_limit:
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
            _heal_end(chars)
            cells = cols
        out = make_runs(render_cells(chars), alist, cells)
        if cells < cols:
            out.append((" " * (cols - cells), DEFAULT_ATTR))
        return render_runs(out)

    def history_text(self, i: int) -> str:
        body = self.history[i][0]
        text = body if isinstance(body, str) else "".join(body)
        return text.replace("\0", "").rstrip(" ")

    def _pop_history_row(self) -> tuple[list[str], list[Attr], bool]:
        """Take the newest scrollback line back as a screen row."""
        chars, attrs = self._history_cells(len(self.history) - 1)
        line = self.history.pop()
        self.history_bytes -= line[3]
        cols = self.columns
        del chars[cols:]
        del attrs[cols:]
        if chars:
            _heal_end(chars)
        chars.extend([" "] * (cols - len(chars)))
        attrs.extend([DEFAULT_ATTR] * (cols - len(attrs)))
        return chars, attrs, line[4]

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
                _heal_end(row)
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
        # logical lines
        lines: list[tuple[list[str], list[Attr]]] = []
        cur_line, cur_off = 0, 0
        acc_c: list[str] = []
        acc_a: list[Attr] = []
        last = len(src_c) - 1
        for i, (c, a, w) in enumerate(zip(src_c, src_a, src_w, strict=True)):
            if i == cur_row:
                cur_line, cur_off = len(lines), len(acc_c) + cur_x
            acc_c += c
            acc_a += a
            if w and i < last and acc_c and acc_c[-1] == " " and acc_a[-1] is DEFAULT_ATTR:
                nxt = src_c[i + 1][0] if src_c[i + 1] else ""
                if nxt and char_width(nxt[0]) == 2:
                    # A wide character wrapped early: the blanks before it
                    # were never written (the gap, cells a tab skipped).
                    while acc_c and acc_c[-1] == " " and acc_a[-1] is DEFAULT_ATTR:
                        acc_c.pop()
                        acc_a.pop()
            if not w or i == last:
                while acc_c and acc_c[-1] == " " and acc_a[-1] is DEFAULT_ATTR:
                    acc_c.pop()
                    acc_a.pop()
                lines.append((acc_c, acc_a))
                acc_c, acc_a = [], []
        # re-wrap
        out_c: list[list[str]] = []
        out_a: list[list[Attr]] = []
        out_w: list[bool] = []
        cur = (0, 0)
        for li, (c, a) in enumerate(lines):
            n = len(c)
            pos = 0
            while True:
                end = min(pos + columns, n)
                if end < n and c[end] == "" and end - 1 > pos:
                    end -= 1  # never split a wide character: it moves down
                row = c[pos:end]
                arow = a[pos:end]
                if len(row) < columns:
                    row.extend([" "] * (columns - len(row)))
                    arow.extend([DEFAULT_ATTR] * (columns - len(arow)))
                out_c.append(row)
                out_a.append(arow)
                out_w.append(end < n)
                if li == cur_line and (pos <= cur_off < end or end >= n):
                    if cur_off >= pos:
                        cur = (len(out_c) - 1, min(cur_off - pos, columns - 1))
                if end >= n:
                    break
                pos = end
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

    def _pop_history_row_at(self) -> tuple[list[str], list[Attr], bool]:
        """Newest scrollback line as cells (a wrapped one is stored whole, at
        the width it was written at, so it joins its successor as it was)."""
        chars, attrs = self._history_cells(len(self.history) - 1)
        line = self.history.pop()
        self.history_bytes -= line[3]
        return chars, attrs, line[4]

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
