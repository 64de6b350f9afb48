"""Row cells: grouping into styled runs, display fixes, DEC line drawing.

A row is two parallel lists -- ``chars[x]`` (a ``str``: one character plus
any combining marks, ``" "`` when blank, ``""`` for the right half of a wide
character) and ``attrs[x]`` (an interned :class:`Attr`).  These helpers turn
such lists into what is displayed, and keep wide characters whole when a
draw overwrites part of one.
"""

from __future__ import annotations

import re
from itertools import groupby
from operator import itemgetter

from . import accel
from .attr import Attr
from .widths import lead_width, narrow_run_full

Run = tuple[str, Attr]

_first = itemgetter(0)
_second = itemgetter(1)


def make_runs(chars: list[str], attrs: list[Attr], end: int) -> list[Run]:
    """Group cells ``[0, end)`` into ``(text, attr)`` runs.  Wide-character
    placeholders are ``""`` so they vanish from the text while the lead
    character keeps its place."""
    if accel.make_runs is not None:
        return accel.make_runs(chars, attrs, end)  # the same grouping, in C
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


def heal_boundary(row: list[str], x: int, ascii_first: bool = False) -> None:
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
        if lead and lead != " " and lead_width(lead) == 2 and not (x == 1 and ascii_first):
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
            if not prev or lead_width(prev) != 2:
                out[i] = " "
        elif lead_width(c) == 2 and (i + 1 >= n or chars[i + 1] != ""):
            out[i] = " "
    return out


def heal_end(row: list[str]) -> None:
    """A wide character whose right half was pushed off the row becomes a blank."""
    last = row[-1]
    if last and last != " " and lead_width(last) == 2:
        row[-1] = " "
