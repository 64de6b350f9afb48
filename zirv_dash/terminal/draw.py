"""Drawing printable text: narrow runs, wide characters, combining marks,
zero width joiners, insert mode, autowrap and REP."""

from __future__ import annotations

from .attr import Attr
from .cells import heal_boundary
from .erase import EraseOps
from .widths import WIDE_END, WIDE_START, char_width, lead_width, strip_marks, unicode_width

_MAX_CLUSTER = 21  # UTF-8 bytes in one cell (base + combining marks), as tmux
_MAX_GRAPHEME = 64  # ... and with grapheme clustering (mode 2027): a family fits
_VS16 = "\ufe0f"


def _regional(ch: str) -> bool:
    return "\U0001f1e6" <= ch <= "\U0001f1ff"


def _skin_tone(ch: str) -> bool:
    return "\U0001f3fb" <= ch <= "\U0001f3ff"


class DrawOps(EraseOps):
    """Writing characters at the cursor."""

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
                heal_boundary(row, x, text[0] < "\x7f")
                heal_boundary(row, end)
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
        heal_boundary(row, a, ascii_first)
        heal_boundary(row, b)

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
                    # The new line is blanked in the background of the
                    # character that wraps (a styled run may have changed
                    # the rendition since it began).
                    attr, self.attr = self.attr, cell_attrs[pos]
                    self._wrap()
                    self.attr = attr
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
                heal_boundary(row, x, len(first) == 1 and first < "\x7f")
                heal_boundary(row, end)
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
        marked = False
        if self.graphemes:
            # Mode 2027: current Unicode's width. Wider than tmux's, the cell
            # is marked so that it counts 2 wherever it is measured.
            u = unicode_width(ch)
            if u != w and not (u == 1 and w == 2):
                w, marked = u, u == 2
        if w < 0:
            return  # not printable: tmux drops it too
        cols = self.columns
        if self.graphemes and (ch == _VS16 or _regional(ch) or _skin_tone(ch)):
            if self._grapheme(ch):
                return
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
            heal_boundary(row, x)
            heal_boundary(row, x + w)
        row[x] = WIDE_START + ch + WIDE_END if marked else ch
        arow[x] = attr
        if w == 2:
            row[x + 1] = ""
            arow[x + 1] = attr
        self.touched.add(y)
        self.x = x + w if x + w < cols or self.autowrap else cols - 1

    def _grapheme(self, ch: str) -> bool:
        """Mode 2027: ``ch`` continues the cluster before the cursor, as kitty,
        WezTerm and Ghostty join them -- VS16 and a second regional indicator
        make a narrow cluster 2 cells wide (a marked cell, ``WIDE_START``), a
        skin tone joins the emoji it follows. False: ``ch`` starts a cell."""
        x = min(self.x, self.columns) - 1
        if x < 0:
            return False
        row = self.chars[self.y]
        if row[x] == "" and x > 0:
            x -= 1
        cell = row[x]
        if not cell or cell == " ":
            return False
        wide = lead_width(cell) == 2
        if _skin_tone(ch) and not wide:
            return False
        bare = strip_marks(cell)
        if _regional(ch) and not (len(bare) == 1 and _regional(bare)):
            return False
        if wide or x + 1 >= self.columns:
            # Already 2 cells (or no room to widen): the character joins it.
            if cell[-1] == WIDE_END:
                cell = cell[:-1] + ch + WIDE_END
            elif wide:
                # Marked, so the cell counts 2 however wide its characters are
                # (a skin tone is a wide character of its own to tmux).
                cell = WIDE_START + cell + ch + WIDE_END
            else:
                cell += ch
            if len(cell.encode()) <= _MAX_GRAPHEME:
                row[x] = cell
                self.touched.add(self.y)
            return True
        # Widen: the cluster takes the next cell too, as a wide character does.
        if x + 2 < self.columns:
            heal_boundary(row, x + 2)
        row[x] = WIDE_START + cell + ch + WIDE_END
        row[x + 1] = ""
        self.attrs[self.y][x + 1] = self.attrs[self.y][x]
        self.touched.add(self.y)
        end = x + 2
        self.x = end if end < self.columns or self.autowrap else self.columns - 1
        return True

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
        if len((row[x] + marks).encode()) > (_MAX_GRAPHEME if self.graphemes else _MAX_CLUSTER):
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
