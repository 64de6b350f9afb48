"""Character cell widths.

tmux takes widths from the C library's ``wcwidth()``, so where the C library
is glibc we ask it too (through ``ctypes``, under a private ``C.UTF-8``
locale that does not touch the process locale): the model then agrees with
tmux cell for cell, emoji and all (the Python ``wcwidth`` package follows a
newer Unicode and disagrees on hundreds of code points, e.g. regional
indicators and unassigned ones).  Elsewhere the ``wcwidth`` package is used.

``char_width`` returns 2 (wide), 1, 0 (zero width: combined onto the previous
cell) or -1 (not printable: dropped, as tmux does).

``unicode_width`` is the same question answered by current Unicode (the
``wcwidth`` package's newest tables: emoji presentation and East Asian Wide of
Unicode 16+, e.g. the trigrams U+2630-2637 and emoji newer than glibc's
tables). Only a child that asked for grapheme clustering (mode 2027) gets
those widths, as kitty, WezTerm and Ghostty give them; everything else keeps
tmux's.

For speed we also build, once, a regular-expression class of the characters
below U+3000 that are certainly one cell wide (ASCII, Latin, Greek, Cyrillic,
punctuation, arrows, box drawing, blocks, braille spinners ...).  Runs of
those are drawn with list slice assignments; everything else goes through
the per-character path.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Callable, Iterable
from functools import lru_cache

_NARROW_LIMIT = 0x3000


def _glibc_batch() -> Callable[[Iterable[int]], list[int]] | None:
    """A function mapping code points to glibc ``wcwidth`` values, or None
    when this is not glibc (or no UTF-8 locale is available)."""
    try:
        try:
            libc = ctypes.CDLL("libc.so.6")
        except OSError:
            from ctypes import util  # slow (may run ldconfig): only off the usual path

            libc = ctypes.CDLL(util.find_library("c") or "libc.so.6")
        newlocale = libc.newlocale
        uselocale = libc.uselocale
        wcwidth = libc.wcwidth
        libc.gnu_get_libc_version  # noqa: B018 -- only glibc has it
    except (OSError, AttributeError):
        return None
    newlocale.restype = ctypes.c_void_p
    newlocale.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p]
    uselocale.restype = ctypes.c_void_p
    uselocale.argtypes = [ctypes.c_void_p]
    wcwidth.restype = ctypes.c_int
    wcwidth.argtypes = [ctypes.c_uint32]
    loc = newlocale(1 << 0, b"C.UTF-8", None)  # LC_CTYPE_MASK on glibc
    if not loc:
        return None

    def batch(cps: Iterable[int]) -> list[int]:
        # uselocale() is per thread: switch, ask, switch back.
        old = uselocale(loc)
        try:
            return [wcwidth(cp) for cp in cps]
        finally:
            uselocale(old)

    try:
        if batch([0x61, 0x4E2D, 0x301]) != [1, 2, 0]:
            return None
    except Exception:
        return None
    return batch


_UNSET: object = object()
_batch: Callable[[Iterable[int]], list[int]] | None | object = _UNSET


def _raw_widths(cps: Iterable[int]) -> list[int]:
    global _batch
    if _batch is _UNSET:
        _batch = _glibc_batch()  # lazily: importing this module stays cheap
    if callable(_batch):
        return _batch(cps)
    from wcwidth import wcwidth  # fallback off glibc (pyte's own width table)

    return [wcwidth(chr(cp)) for cp in cps]


@lru_cache(maxsize=16384)
def char_width(ch: str) -> int:
    """Cells taken by the single character ``ch``: 2, 1, 0 (combining) or
    -1 (not printable, dropped)."""
    w = _raw_widths([ord(ch)])[0]
    if w < 0:
        return -1
    return 2 if w > 1 else w


@lru_cache(maxsize=16384)
def unicode_width(ch: str) -> int:
    """``char_width`` by current Unicode (mode 2027): 2, 1, 0 or -1."""
    from wcwidth import wcwidth  # lazily: CLI entry points never need its tables

    w: int = wcwidth(ch, unicode_version="latest")
    if w < 0:
        return -1
    return 2 if w > 1 else w


WIDE_START = "\x01"
WIDE_END = "\x02"
"""A cell ``WIDE_START + cluster + WIDE_END`` is one 2-cell cluster (grapheme
clustering, mode 2027: a VS16 emoji, a flag), whatever its characters' own
widths. Neither control character is ever stored otherwise; ``strip_marks``
removes them from text."""


def lead_width(cell: str) -> int:
    """Cells a row cell's lead takes: 2 for a marked cluster, else its first character's."""
    return 2 if cell[0] == WIDE_START else char_width(cell[0])


def strip_marks(text: str) -> str:
    if WIDE_START not in text:
        return text
    return text.replace(WIDE_START, "").replace(WIDE_END, "")


def cell_width(text: str) -> int:
    """Cells that ``text`` (a run from ``row_runs``/``history_runs``) covers.

    A cell may hold a cluster: a character plus combining marks, or -- as
    tmux builds them -- a zero width joiner and the character after it glued
    onto the previous cell (emoji sequences).  So: wide characters count 2,
    zero-width and unprintable ones 0, and a character right after U+200D 0.
    """
    if text.isascii():
        return len(text)
    total = 0
    joined = False
    marked = False
    for c in text:
        if marked:
            marked = c != WIDE_END
            continue
        if c == WIDE_START:
            total += 2
            marked = True
            continue
        if joined:
            joined = False
            continue
        if c == "\u200d":
            joined = True
            continue
        w = char_width(c)
        if w > 0:
            total += w
    return total


def _narrow_ranges(current_unicode: bool) -> list[tuple[int, int]]:
    """The single-cell characters, as inclusive code point ranges (computed
    once for each kind: the class and the table below are both made from them)."""
    found = _ranges.get(current_unicode)
    if found is not None:
        return found
    cps = [cp for cp in range(0x20, _NARROW_LIMIT) if not (0x7F <= cp <= 0x9F)]
    widths = _raw_widths(cps)
    ranges: list[tuple[int, int]] = []
    for cp, w in zip(cps, widths, strict=True):
        # For mode 2027, one cell to tmux *and* to current Unicode: a character
        # the two disagree on (a trigram, a spacing mark) takes the
        # per-character path, where the mode gives it its width. Without the
        # mode tmux's widths alone decide (and wcwidth's tables are not loaded:
        # these are built for the first pane, before the first frame).
        if w != 1 or cp == 0x200D or (current_unicode and unicode_width(chr(cp)) != 1):
            continue
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    _ranges[current_unicode] = ranges
    return ranges


_ranges: dict[bool, list[tuple[int, int]]] = {}


def _narrow_class(current_unicode: bool) -> str:
    parts = []
    for a, b in _narrow_ranges(current_unicode):
        if a == b:
            parts.append(re.escape(chr(a)))
        else:
            parts.append(f"{re.escape(chr(a))}-{re.escape(chr(b))}")
    return "".join(parts)


_narrow_cls: dict[bool, str] = {}


def narrow_class(current_unicode: bool = False) -> str:
    """Regex character-class body (without brackets) of single-cell characters,
    by tmux's widths or, `current_unicode` (mode 2027), by current Unicode's
    too (each built lazily, once: CLI entry points never need them)."""
    found = _narrow_cls.get(current_unicode)
    if found is None:
        found = _narrow_cls[current_unicode] = _narrow_class(current_unicode)
    return found


_narrow_tbl: dict[bool, bytes] = {}


def narrow_table(current_unicode: bool = False) -> bytes:
    """The characters of ``narrow_class(current_unicode)`` as a table: byte
    ``cp`` is 1 when code point ``cp`` is one of them (none past the table is);
    what the C accelerator's scans test a character against."""
    found = _narrow_tbl.get(current_unicode)
    if found is None:
        table = bytearray(_NARROW_LIMIT)
        for a, b in _narrow_ranges(current_unicode):
            table[a : b + 1] = b"\x01" * (b - a + 1)
        found = _narrow_tbl[current_unicode] = bytes(table)
    return found


_narrow_full: re.Pattern[str] | None = None


def narrow_run_full(text: str) -> bool:
    """True when every character of ``text`` is certainly one cell wide."""
    global _narrow_full
    if _narrow_full is None:
        _narrow_full = re.compile(f"[{narrow_class()}]*")
    return _narrow_full.fullmatch(text) is not None
