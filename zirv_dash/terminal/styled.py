"""Styled runs: single-width text mixed with SGR, CUP and EL sequences.

This is the bulk of what agents, highlighters and TUIs print, so it has its
own path.  A run is split in C into texts and sequences; the rendition after
every SGR is one lookup in the SGR graph (``sgr_graph``); the text is then
written with list slice assignments:

* a run with only SGR sequences (a highlighted line) is split with
  ``str.split``, walked through the graph in one C loop and drawn in one go,
  its per-cell attributes built in C;
* a run with cursor positionings or line erases (a TUI redrawing fields) is
  drawn piece by piece, the cursor in locals, CUP targets coming from a
  cache shared by the models of one size;
* whole highlighted lines scrolling by at the bottom of the screen (``ls
  --color``, a compiler, a coloured log) are taken many at a time: one
  split, one walk of the graph and one build of per-cell attributes for all
  of them, and the lines that scroll straight through go to the scrollback
  without ever being rows (``_sgr_lines``, ``Screen.feed_styled_lines``).

Where it was built, a C accelerator (``accel``, ``_accel.c``) takes the
common pieces of a TUI's run, finds where a stretch of highlighted lines
ends, splits, walks and builds the per-cell attributes of SGR-only blocks; it
performs the same lookups and writes as the Python code here, which runs
alone without it.

Every shortcut leaves exactly the state that performing each sequence on its
own leaves (``tests/terminal/test_styled_runs.py`` compares them;
``tests/terminal/test_accel.py`` holds the C code to the Python code).

``_draw_styled`` and ``_sgr_lines`` stay long on purpose, and with them this
module: each is one hot loop with the cursor and the rows in locals, and a
call per piece costs measurable throughput (``bench/throughput.py``).
"""

from __future__ import annotations

import re
from functools import reduce
from itertools import repeat
from operator import iadd, itemgetter, mul

from .accel import cells_of, draw_pieces, sgr_cells, sgr_lines_end, split_sgr, walk_nodes
from .attr import Attr, erase_attr
from .dispatch import Dispatcher
from .screen import Screen, dec_cells
from .sgr_graph import ATTR, CELL, ERASE, Node, cell_of, link, node_for, step, walk
from .widths import narrow_class, narrow_table

# Splits a styled run into [text, sequence, text, ..., sequence, text], each
# sequence without its "ESC [" ("1;31m", "12;5H", "2K").  The run is already
# known to hold only those three kinds, so the loose pattern finds exactly
# their ends (and costs less than telling them apart).
_PARAM_CHARS = "0123456789;:"  # what the parameters of a styled run's sequences are made of
_NO_CUPS: dict[str, tuple[int, int]] = {}  # in origin mode no CUP target is known
# The CUP parameters the styled path moves to itself (others go to the CSI dispatch).
_CUP_FORM = re.compile(r"[0-9]{0,4}+;?[0-9]{0,4}+").fullmatch
_SGR_SPLIT = re.compile(r"\x1b\[([0-9;:]*)m").split
_SGR_SUB = re.compile(r"\x1b\[[0-9;:]*m").sub
_SGR_LINES_LOOKED_AT = 4
_SGR_BYTES_PER_CELL = 24
_SGR_WINDOW_MIN = 8  # lines
_SGR_WINDOW_MAX = 1 << 16
_SGR_LINES_WORTH = 8  # a stretch shorter than this does not pay for itself
_SGR_SKIP_MIN = 512  # characters
_SGR_SKIP_MAX = 1 << 16
_CUP_CACHE_LIMIT = 10000
_first = itemgetter(0)
_third = itemgetter(2)


class StyledRuns(Dispatcher):
    """Drawing styled runs (see the module docstring)."""

    def __init__(self, screen: Screen) -> None:
        super().__init__(screen)
        # CUP sequence ("12;5H") -> (y, x), for the size in _cup_size; at most
        # _CUP_CACHE_LIMIT entries (~1.4 MB), what a TUI addressing every
        # cell of a 200x50 screen needs.
        # The table is shared by every model of the same size (panes of a
        # dashboard mostly are).
        self._cups: dict[str, tuple[int, int]] = {}
        self._cup_size = (0, 0)
        # How many lines _sgr_lines takes at most in one go, and how far it
        # does not look after a stretch that did not pay.
        self._sgr_window = 64
        self._sgr_skip = 0

    def _draw_styled(self, seg: str) -> None:
        scr = self._screen
        if "H" not in seg and "K" not in seg:
            # No CUP or EL can be in it: every sequence is an SGR.
            self._draw_sgr_run(seg)
            return
        # Every "ESC [" of the run starts an SGR, CUP or EL, so a piece after
        # the first is "<params><final><text>" (params in [0-9;:]).  str.split
        # costs a tenth of a regular-expression split with a group; a piece
        # with no text is the sequence itself, one lookup.
        pieces = seg.split("\x1b[")
        rows, cols = scr.rows, scr.columns
        if self._cup_size != (rows, cols):
            self._cups = _cup_table(rows, cols)
            self._cup_size = (rows, cols)
        # What makes a piece need the general drawing code; none of it can
        # change inside a run except a pending joiner, which only the
        # general code clears.
        simple = not (scr.graphics or scr.insert_mode or scr.zwj or scr.origin)
        # CUP targets are only valid outside origin mode (_cup does the rest).
        cup_get = self._cups.get if simple else _NO_CUPS.get
        chars, arows, touched = scr.chars, scr.attrs, scr.touched
        # A piece ending at or before ``lim`` is drawn here; the cursor then
        # stops at its end, or on the last column without autowrap.
        lim = cols if simple else -1
        wrap_at = cols + 1 if scr.autowrap else cols
        node = node_for(scr.attr)
        t = pieces[0]
        if t:
            self._draw_piece(t, node[ATTR])
        # The cursor lives in locals while pieces are drawn here; it is
        # stored back before anything else reads it.
        y, x = scr.y, scr.x
        count = len(pieces)
        k = 1
        while k < count:
            if draw_pieces is not None:
                # The common pieces in C (the same lookups and writes as
                # below); it stops at the first piece of another shape.
                k, y, x, node = draw_pieces(
                    pieces,
                    k,
                    node,
                    self._cups if simple else _NO_CUPS,
                    chars,
                    arows,
                    scr.wrapped,
                    touched,
                    y,
                    x,
                    cols,
                    lim,
                    wrap_at,
                )
                if k >= count:
                    break
            p = pieces[k]
            k += 1
            # A piece ending in "m" or "H" is mostly an SGR or a CUP with no
            # text after it: then one lookup (a text is never hashed).
            f = p[-1]
            if f == "m":
                nxt = node.get(p)
                if nxt is not None:
                    node = nxt  # an SGR seen before in this rendition
                    continue
            elif f == "H":
                pos = cup_get(p)
                if pos is not None:
                    y, x = pos  # a CUP seen before
                    continue
            # "<params>m<text>": the first "m" ends an SGR (its parameters
            # hold none), and only an SGR's parameters are keys of a node.
            s, _, t = p.partition("m")
            nxt = node.get(s)
            if nxt is not None:
                if not t:
                    link(node, p, nxt)  # walked before, not met with no text after it
                node = nxt
            else:
                t = p.lstrip(_PARAM_CHARS)
                s = p[: len(p) - len(t) + 1]  # the sequence, its final included
                final = t[0]
                t = t[1:]
                if final == "H" and _CUP_FORM(s, 0, len(s) - 1):
                    y, x = cup_get(s) or self._cup(s)
                elif final == "m":
                    # Looked up by its parameters when text follows, else whole.
                    nxt = step(node, s[:-1], s[:-1])
                    if not t:
                        link(node, s, nxt)
                    node = nxt
                elif final == "K" and (len(s) == 1 or (len(s) == 2 and s[0] in "012")):
                    # EL ("K", "0K", "1K", "2K") at the cursor in locals, in
                    # the run's rendition (the erase colour: BCE): the
                    # cells erase_in_line blanks, blanked as it does.
                    scr.attr = node[ATTR]
                    if ERASE not in node:
                        node[ERASE] = erase_attr(node[ATTR])  # what the C loop blanks with
                    a = x if x < cols else cols
                    if len(s) == 1 or s[0] == "0":
                        scr._blank(y, a, cols)
                    elif s[0] == "1":
                        scr._blank(y, 0, a + 1 if a < cols else cols)
                    else:
                        scr._blank(y, 0, cols)
                else:
                    # Another CUP or EL ("1:2H", "5;5;5H", "12K"): as the CSI
                    # dispatch does it, with the cursor and pen stored back.
                    scr.y, scr.x, scr.attr = y, x, node[ATTR]
                    self._csi(s[:-1], "", final)
                    y, x = scr.y, scr.x
            if not t:
                continue
            n = len(t)
            end = x + n
            if end <= lim:
                # Fits on the line: two slice assignments.
                row = chars[y]
                if row[x] == "" or (end < cols and row[end] == ""):
                    scr.heal(y, x, end, t[0] < "\x7f")
                row[x:end] = t
                arows[y][x:end] = node[CELL] * n  # a tuple: copied as it is
                touched.add(y)
                x = end if end < wrap_at else end - 1
            else:
                scr.y, scr.x = y, x
                self._draw_piece(t, node[ATTR])
                y, x = scr.y, scr.x
        scr.y, scr.x = y, x
        scr.attr = node[ATTR]
        # What REP repeats: none when the run ends with a sequence, else what
        # its last piece leaves (nothing between reads it): its last
        # character -- the general code, the only one drawing when not
        # ``simple``, has set it already (a DEC graphics cell, say).
        last = pieces[-1].lstrip(_PARAM_CHARS)[1:]
        if not last:
            scr.last_char = ""
        elif simple:
            scr.last_char = last[-1]

    def _draw_sgr_run(self, seg: str) -> None:
        """A run of text and SGR sequences only (a highlighted line): split,
        walked and drawn in one go, every step a C loop."""
        scr = self._screen
        parts = split_sgr(seg) if split_sgr is not None else None
        if parts is not None:
            texts = parts[::2]
            params = parts[1::2]
        else:
            pieces = seg.split("\x1b[")
            # Each piece after the first is "<params>m<text>" and params hold no "m".
            split = list(map(str.partition, pieces[1:], repeat("m")))
            texts = [pieces[0], *map(_third, split)]
            params = list(map(_first, split))
        nodes = _walk(node_for(scr.attr), params)
        last: Attr = nodes[-1][ATTR]
        body = "".join(texts)
        if body:
            # One attribute per cell: ((a,) * len(t) for each piece), concatenated.
            self._draw_cells_at_cursor(body, _cells(nodes, texts), last)
        scr.attr = last
        if not texts[-1]:
            scr.last_char = ""  # ends with a sequence: REP has nothing to repeat

    def _sgr_lines(self, text: str, i: int) -> tuple[int, int]:
        """Whole highlighted lines at ``i`` (text and SGR sequences, each line
        ended by CR LF) written in one go where :meth:`Screen.lines_fast_path`
        holds; returns the index after them and how far the lines matched
        (a caller does not try again before that: each stretch is matched
        at most twice).  Every SGR is walked through the graph in one C
        loop over all the lines, and the per-cell attributes of all of
        them are built at once; a line wider than the screen, or one whose
        CR LF comes in a rendition with a background (the next row's
        blanks take it), ends the stretch there."""
        scr = self._screen
        cols = scr.columns
        # At most ``_sgr_window`` lines, the first few looked at on their
        # own: when one of them wraps, the lines are left to the general
        # path up to it (a short stretch does not pay for itself).  The
        # window shrinks when a stretch ends early (its lines after the end
        # were matched for nothing) and grows while stretches go all the way.
        stop = len(text)
        pos = i
        for k in range(self._sgr_window):
            nl = text.find("\r\n", pos)
            if nl < 0:
                break
            if k < _SGR_LINES_LOOKED_AT and nl - pos > cols:
                # (past ~24 bytes a cell, a truecolor SGR for every one, it
                # is no line of text: a repaint's filler, say; not measured)
                if nl - pos > _SGR_BYTES_PER_CELL * cols or (
                    len(_SGR_SUB("", text[pos:nl])) > cols
                ):
                    return i, nl + self._sgr_backoff()
            pos = nl + 2
        else:
            stop = pos
        if pos == i:
            return i, stop  # no whole line
        if sgr_lines_end is not None:
            table = narrow_table(scr.graphemes)
            tried = sgr_lines_end(text, i, stop, table)  # in C, the same end
        else:
            m = _sgr_lines_re(scr.graphemes).match(text, i, stop)
            tried = -1 if m is None else m.end()
        if tried < 0:
            return i, i
        block = text[i:tried]
        # The text and one attribute per character of it, CR LF pairs
        # included (the CR's is the rendition the line ends in): in one C
        # pass while every SGR of the block is in the graph and no line
        # wraps, else split, walked and built below.
        fused = sgr_cells(block, node_for(scr.attr)) if sgr_cells is not None else None
        if fused is not None:
            lines = fused[0].split("\r\n")
            lines.pop()  # after the last CR LF: nothing
            cells = fused[1]
            if max(map(len, lines)) > cols:
                fused = None
        if fused is None:
            parts = _split_sgr(block)
            texts = parts[::2]
            lines = "".join(texts).split("\r\n")
            lines.pop()
            widths = list(map(len, lines))
            if max(widths) > cols:
                # Only the lines before the first one that wraps: walking and
                # building cells is the costly part.
                good = next(k for k, w in enumerate(widths) if w > cols)
                del lines[good:]
                block = block[: len(block) - len(block.split("\r\n", good)[-1])]
                parts = _split_sgr(block)
                texts = parts[::2]
            nodes = _walk(node_for(scr.attr), parts[1::2])
            cells = _cells(nodes, texts)
        starts: list[int] = []
        s = 0
        for line in lines:
            e = s + len(line)
            if cells[e][1] is not None:
                break
            starts.append(s)
            s = e + 2
        good = len(starts)
        if not good:
            self._sgr_window = _SGR_WINDOW_MIN
            return i, tried + self._sgr_backoff()
        end = i + len(block)
        if good < len(lines):
            del lines[good:]
            end -= len(block.split("\r\n", good)[-1])
        if end < tried:
            self._sgr_window = _SGR_WINDOW_MIN
        elif self._sgr_window < _SGR_WINDOW_MAX:
            self._sgr_window *= 2
        if good < _SGR_LINES_WORTH:
            tried += self._sgr_backoff()
        else:
            self._sgr_skip = 0
        scr.feed_styled_lines(lines, cells, starts)
        scr.attr = cells[s - 2]
        return end, tried

    def _sgr_backoff(self) -> int:
        """Characters the next stretch is not looked for in, after one that
        did not pay (lines that wrap among lines that fit): doubling, so a
        stream of such lines soon costs nothing extra."""
        self._sgr_skip = min(self._sgr_skip * 2 + _SGR_SKIP_MIN, _SGR_SKIP_MAX)
        return self._sgr_skip

    def _cup(self, seq: str) -> tuple[int, int]:
        """Where CUP ``seq`` ("row;colH") puts the cursor (and remember it,
        outside origin mode)."""
        scr = self._screen
        r, _, c = seq[:-1].partition(";")
        if scr.origin:
            scr.cursor_position(int(r) if r else 1, int(c) if c else 1)
            return scr.y, scr.x
        rows, cols = scr.rows, scr.columns
        y = int(r) - 1 if r else 0
        x = int(c) - 1 if c else 0
        pos = (
            0 if y < 0 else (y if y < rows else rows - 1),
            0 if x < 0 else (x if x < cols else cols - 1),
        )
        if len(self._cups) >= _CUP_CACHE_LIMIT:
            self._cups.clear()
        self._cups[seq] = pos
        return pos

    def _draw_piece(self, text: str, attr: Attr) -> None:
        self._draw_cells_at_cursor(text, [attr] * len(text), attr)

    def _draw_cells_at_cursor(self, body: str, cell_attrs: list[Attr], attr: Attr) -> None:
        """Draw single-width text with one attribute per cell."""
        scr = self._screen
        x = scr.x
        end = x + len(body)
        if end <= scr.columns and not (scr.graphics or scr.insert_mode or scr.zwj):
            # Fits on the line: two slice assignments.
            y = scr.y
            row = scr.chars[y]
            if row[x] == "" or (end < scr.columns and row[end] == ""):
                scr.heal(y, x, end, body[0] < "\x7f")
            row[x:end] = body
            scr.attrs[y][x:end] = cell_attrs
            scr.touched.add(y)
            scr.x = end if end < scr.columns or scr.autowrap else end - 1
            scr.last_char = body[-1]
            return
        scr.attr = attr
        if scr.graphics:
            scr.draw_cells(dec_cells(body), cell_attrs)
        else:
            scr.draw_cells(body, cell_attrs)


def _walk(start: Node, params: list[str]) -> list[Node]:
    """``sgr_graph.walk``, in C while every transition is in the graph."""
    if walk_nodes is not None:
        nodes = walk_nodes(start, params)
        if nodes is not None:
            return nodes
    return walk(start, params)


def _cells(nodes: list[Node], texts: list[str]) -> list[Attr]:
    """One attribute per character: ``nodes[i]``'s for each of ``texts[i]``."""
    if cells_of is not None:
        return cells_of(nodes, texts)
    # ((a,) * len(t) for each piece), concatenated, in C loops.
    return reduce(iadd, map(mul, map(cell_of, nodes), map(len, texts)), [])


def _split_sgr(block: str) -> list[str]:
    """[text, params, text, ..., text] of a block of text and SGR sequences."""
    if split_sgr is not None:
        parts = split_sgr(block)
        if parts is not None:
            return parts
    return _SGR_SPLIT(block)


def _sgr_lines_re(current_unicode: bool = False) -> re.Pattern[str]:
    """Whole lines of single-width text and SGR sequences, each ended by CR LF
    (single-width by current Unicode too under mode 2027)."""
    found = _SGR_LINES_RE.get(current_unicode)
    if found is None:
        cls = narrow_class(current_unicode)
        found = re.compile(f"(?:[{cls}]*+(?:\x1b\\[[0-9;:]*+m[{cls}]*+)*+\r\n)++")
        _SGR_LINES_RE[current_unicode] = found
    return found


_SGR_LINES_RE: dict[bool, re.Pattern[str]] = {}


# CUP tables by screen size, shared by the models of that size (a few sizes).
_CUP_TABLES: dict[tuple[int, int], dict[str, tuple[int, int]]] = {}
_CUP_SIZES_LIMIT = 8


def _cup_table(rows: int, cols: int) -> dict[str, tuple[int, int]]:
    table = _CUP_TABLES.get((rows, cols))
    if table is None:
        if len(_CUP_TABLES) >= _CUP_SIZES_LIMIT:
            _CUP_TABLES.clear()  # models holding a table keep using it
        table = _CUP_TABLES[(rows, cols)] = {}
    return table
