"""Character cell widths.

Widths come from ``wcwidth`` (the same table pyte uses).  For speed we build,
once, a regular expression matching runs of characters that are certainly one
cell wide (printable ASCII, Latin, Greek, Cyrillic, punctuation, arrows, box
drawing, block elements, braille spinners ...).  Such runs are drawn with list
slice assignments; anything else (wide CJK/emoji, combining marks, rarer
scripts) goes through the per-character path.
"""

from __future__ import annotations

import re
from functools import lru_cache

from wcwidth import wcwidth as _wcwidth

# Build the "narrow" class over this code point range; above it the
# per-character path is used (it is correct, only slower).
_NARROW_LIMIT = 0x3000


@lru_cache(maxsize=8192)
def char_width(ch: str) -> int:
    """Cells taken by ``ch``: 0 (combining / zero width / not printable), 1 or 2."""
    w = _wcwidth(ch)
    if w < 0:
        return 0
    return int(w)


def _narrow_class() -> str:
    ranges: list[tuple[int, int]] = []
    start = -1
    for cp in range(0x20, _NARROW_LIMIT + 1):
        ok = cp < _NARROW_LIMIT and not (0x7F <= cp <= 0x9F) and _wcwidth(chr(cp)) == 1
        if ok and start < 0:
            start = cp
        elif not ok and start >= 0:
            ranges.append((start, cp - 1))
            start = -1
    parts = []
    for a, b in ranges:
        if a == b:
            parts.append(re.escape(chr(a)))
        else:
            parts.append(f"{re.escape(chr(a))}-{re.escape(chr(b))}")
    return "".join(parts)


_narrow_cls: str | None = None


def narrow_class() -> str:
    """Regex character-class body (without brackets) of single-cell characters
    (built lazily: the table takes a few milliseconds and CLI entry points
    never need it)."""
    global _narrow_cls
    if _narrow_cls is None:
        _narrow_cls = _narrow_class()
    return _narrow_cls
