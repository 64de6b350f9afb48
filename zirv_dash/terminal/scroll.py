"""Line feeds and scrolling: index, reverse index, SU/SD, IL/DL."""

from __future__ import annotations

from . import accel
from .attr import DEFAULT_ATTR, Attr, erase_attr
from .grid import Grid
from .widths import narrow_run_full


class ScrollOps(Grid):
    """Moving rows within the scroll region (and into the scrollback)."""

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
            cols = self.columns
            self.chars.append([" "] * cols)
            ea = DEFAULT_ATTR if self.attr.bg is None else erase_attr(self.attr)
            self.attrs.append([ea] * cols)
            self.wrapped.append(False)
            self.all_touched = True
            return
        n = min(n, bottom - top + 1)
        if n <= 0:
            return
        cols = self.columns
        chars, attrs, wrapped = self.chars, self.attrs, self.wrapped
        if top == 0 and not self.alt and self.history_limit > 0:
            self._push_rows(chars[:n], attrs[:n], wrapped[:n])
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

    def lines_fast_path(self) -> bool:
        """Whether :meth:`feed_lines` may run: the cursor at the start of a
        blank bottom row of a full-screen region on the normal screen, in the
        default rendition, no special drawing mode."""
        rows, cols = self.rows, self.columns
        last = rows - 1
        return (
            self.y == last
            and self.x == 0
            and self.bottom == last
            and self.top == 0
            and self.attr is DEFAULT_ATTR
            and self.history_limit > 0
            and not (self.alt or self.insert_mode or self.graphics or self.zwj)
            and not self.wrapped[last]
            and self.chars[last].count(" ") == cols
            and self.attrs[last].count(DEFAULT_ATTR) == cols
        )

    def _push_rows_above(self, count: int) -> int:
        """The screen then ``count`` new lines form one sequence; ``count`` of
        it scroll off the top and the last ``rows`` stay (the final blank row
        included). The screen's rows among those scrolled off go to the
        scrollback now; how many that is."""
        n_old = min(count, self.rows - 1)
        chars, attrs, wrapped = self.chars, self.attrs, self.wrapped
        cols = self.columns
        if (
            accel.row_lines is None  # with it, _push_rows makes these records in C
            and not any(wrapped[:n_old])
            and attrs[:n_old].count([DEFAULT_ATTR] * cols) == n_old
            and self._push_text_rows(chars[:n_old])
        ):
            return n_old
        self._push_rows(chars[:n_old], attrs[:n_old], wrapped[:n_old])
        return n_old

    def _push_text_rows(self, rows: list[list[str]]) -> bool:
        """Rows in the default rendition, not wrapped, to the scrollback as
        the lines of text they are (the rows a log scrolling by leaves on
        the screen), when every cell is one single-width character: then
        what :meth:`_push_history` makes of each is what
        :meth:`_push_text_lines` makes of its text.  False (nothing pushed)
        when a row holds anything else."""
        texts = list(map("".join, rows))
        cols = self.columns
        if min(map(len, texts), default=cols) != cols or max(map(len, texts), default=cols) != cols:
            return False  # a wide character, a combining mark, a DEC graphics cell
        body = "".join(texts)
        if not (body.isascii() or narrow_run_full(body)):
            return False
        self._push_text_lines(texts)
        return True

    def feed_lines(self, lines: list[str]) -> None:
        """Lines of single-width text, each at most a row wide and ended by
        CR LF, written where :meth:`lines_fast_path` holds: the state after
        drawing and scrolling them one by one (rows above go to the
        scrollback, each line lands on the bottom row and moves up), built
        without making rows for the lines that scroll straight through."""
        rows, cols = self.rows, self.columns
        chars, attrs, wrapped = self.chars, self.attrs, self.wrapped
        n_old = self._push_rows_above(len(lines))
        through = len(lines) - n_old
        if through:
            self._push_text_lines(lines[:through])
        shown = lines[through:]
        blank_c, blank_a = chars[rows - 1], attrs[rows - 1]
        chars[:] = [
            *chars[n_old : rows - 1],
            *[list(text.ljust(cols)) for text in shown],
            blank_c,
        ]
        attrs[:] = [
            *attrs[n_old : rows - 1],
            *[[DEFAULT_ATTR] * cols for _ in shown],
            blank_a,
        ]
        wrapped[:] = [*wrapped[n_old : rows - 1], *[False] * (len(shown) + 1)]
        self.all_touched = True

    def feed_styled_lines(self, lines: list[str], cells: list[Attr], starts: list[int]) -> None:
        """:meth:`feed_lines` for highlighted lines: line ``k`` is drawn with
        the attributes ``cells[starts[k] : starts[k] + len(lines[k])]``; the
        rendition at each CR LF has no background (so the blank rows the
        scrolls bring in are default ones, as :meth:`lines_fast_path` asks
        of the row the first line lands on)."""
        rows, cols = self.rows, self.columns
        chars, attrs, wrapped = self.chars, self.attrs, self.wrapped
        n_old = self._push_rows_above(len(lines))
        through = len(lines) - n_old
        if through:
            self._push_narrow_lines(lines[:through], cells, starts[:through])
        blank_c, blank_a = chars[rows - 1], attrs[rows - 1]
        new_a: list[list[Attr]] = []
        for k in range(through, len(lines)):
            s = starts[k]
            w = len(lines[k])
            row = cells[s : s + w]
            if w < cols:
                row += [DEFAULT_ATTR] * (cols - w)
            new_a.append(row)
        chars[:] = [
            *chars[n_old : rows - 1],
            *[list(text.ljust(cols)) for text in lines[through:]],
            blank_c,
        ]
        attrs[:] = [*attrs[n_old : rows - 1], *new_a, blank_a]
        wrapped[:] = [*wrapped[n_old : rows - 1], *[False] * (len(lines) - through + 1)]
        self.all_touched = True

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
