"""Cell attributes (colours and flags) and SGR parsing.

An :class:`Attr` is shared by every cell drawn with the same rendition, so the
screen stores *references* to a handful of interned objects instead of building
a styled tuple per character (pyte builds a ``Char`` namedtuple per cell, which
is where most of its time goes).  SGR results are memoised per
``(current attr, parameter string)``: a program that colours every word with the
same few escape sequences pays for the parse once.
"""

from __future__ import annotations

from typing import NamedTuple

Color = str | int | None


class Attr(NamedTuple):
    """Rendition of one cell.

    ``fg``/``bg``: ``None`` is the terminal default, an ``int`` 0-255 is a palette
    index (0-15 are the ANSI colours, 8-15 the bright ones) and a ``str`` is a
    truecolor ``"#rrggbb"``.
    """

    fg: Color = None
    bg: Color = None
    bold: bool = False
    dim: bool = False
    italic: bool = False
    underline: bool = False
    reverse: bool = False
    strike: bool = False
    blink: bool = False


DEFAULT_ATTR = Attr()

# Interning table: every Attr the parser produces goes through here so equal
# renditions are the same object (cheap identity comparisons when grouping runs).
_INTERN: dict[Attr, Attr] = {DEFAULT_ATTR: DEFAULT_ATTR}
# SGR transitions keyed by (id(current attr), parameter string): hashing an
# int and an (already hashed) str is much cheaper than hashing a 9-field
# tuple.  The value keeps the source object so a recycled id is detected.
_SGR_CACHE: dict[tuple[int, str], tuple[Attr, Attr]] = {}
_CACHE_LIMIT = 8192


def intern_attr(attr: Attr) -> Attr:
    got = _INTERN.get(attr)
    if got is None:
        if len(_INTERN) > _CACHE_LIMIT:
            _INTERN.clear()
            _SGR_CACHE.clear()
            _INTERN[DEFAULT_ATTR] = DEFAULT_ATTR
        _INTERN[attr] = attr
        got = attr
    return got


def erase_attr(attr: Attr) -> Attr:
    """Attribute of cells blanked by erase/scroll: only the background survives
    (background colour erase, as xterm and tmux do)."""
    if attr.bg is None:
        return DEFAULT_ATTR
    return intern_attr(Attr(bg=attr.bg))


def _int(s: str) -> int:
    # Empty parameters mean 0; anything unparsable is treated as "no value".
    if not s:
        return 0
    if s.isdigit():
        return int(s)
    return -1


def _extended_color(fields: list[list[str]], i: int) -> tuple[Color | bool, int]:
    """Parse the colour after a 38/48/58 at ``fields[i]``.

    Returns ``(colour or False when invalid, index of the next field)``. Handles
    the semicolon form (``38;5;n``, ``38;2;r;g;b``) and the colon form
    (``38:5:n``, ``38:2::r:g:b``, ``38:2:r:g:b``).
    """
    sub = fields[i]
    if len(sub) > 1:  # colon form: everything is inside this one field
        kind = _int(sub[1])
        rest = sub[2:]
        if kind == 5 and rest:
            n = _int(rest[0])
            return (n if 0 <= n <= 255 else False), i + 1
        if kind == 2:
            if len(rest) >= 4:  # colour-space id present (possibly empty)
                rest = rest[1:4]
            if len(rest) >= 3:
                r, g, b = (_int(v) for v in rest[:3])
                if min(r, g, b) >= 0 and max(r, g, b) <= 255:
                    return f"#{r:02x}{g:02x}{b:02x}", i + 1
        return False, i + 1
    # semicolon form: the following fields carry the arguments
    if i + 1 >= len(fields):
        return False, i + 1
    kind = _int(fields[i + 1][0])
    if kind == 5:
        if i + 2 >= len(fields):
            return False, i + 2
        n = _int(fields[i + 2][0])
        return (n if 0 <= n <= 255 else False), i + 3
    if kind == 2:
        if i + 4 >= len(fields):
            return False, len(fields)
        r, g, b = (_int(fields[i + k][0]) for k in (2, 3, 4))
        if min(r, g, b) >= 0 and max(r, g, b) <= 255:
            return f"#{r:02x}{g:02x}{b:02x}", i + 5
        return False, i + 5
    return False, i + 2


def _apply_sgr_fast(attr: Attr, codes: list[int]) -> Attr:
    """Semicolon-only SGR (by far the common form), on integer codes."""
    fg, bg, bold, dim, italic, underline, reverse, strike, blink = attr
    i = 0
    n = len(codes)
    while i < n:
        code = codes[i]
        i += 1
        if code == 0:
            fg = bg = None
            bold = dim = italic = underline = reverse = strike = blink = False
        elif code == 38 or code == 48 or code == 58:
            color: Color = None
            if i < n and codes[i] == 2:
                if i + 3 < n:
                    r, g, b = codes[i + 1], codes[i + 2], codes[i + 3]
                    if r <= 255 and g <= 255 and b <= 255:
                        color = f"#{r:02x}{g:02x}{b:02x}"
                i += 4
            elif i < n and codes[i] == 5:
                if i + 1 < n and codes[i + 1] <= 255:
                    color = codes[i + 1]
                i += 2
            else:
                i += 1
            if color is not None:
                if code == 38:
                    fg = color
                elif code == 48:
                    bg = color
        elif 30 <= code <= 37:
            fg = code - 30
        elif 40 <= code <= 47:
            bg = code - 40
        elif 90 <= code <= 97:
            fg = code - 82
        elif 100 <= code <= 107:
            bg = code - 92
        elif code == 39:
            fg = None
        elif code == 49:
            bg = None
        elif code == 1:
            bold = True
        elif code == 2:
            dim = True
        elif code == 3:
            italic = True
        elif code == 4 or code == 21:
            underline = True
        elif code == 5 or code == 6:
            blink = True
        elif code == 7:
            reverse = True
        elif code == 9:
            strike = True
        elif code == 22:
            bold = dim = False
        elif code == 23:
            italic = False
        elif code == 24:
            underline = False
        elif code == 25:
            blink = False
        elif code == 27:
            reverse = False
        elif code == 29:
            strike = False
    return intern_attr(Attr(fg, bg, bold, dim, italic, underline, reverse, strike, blink))


def _apply_sgr(attr: Attr, params: str) -> Attr:
    if not params:
        return DEFAULT_ATTR
    if ":" not in params:
        try:
            codes = [int(f) if f else 0 for f in params.split(";")]
        except ValueError:
            return attr  # not a valid SGR: ignored
        return _apply_sgr_fast(attr, codes)
    fields = [f.split(":") for f in params.split(";")]
    fg, bg = attr.fg, attr.bg
    bold, dim, italic, underline = attr.bold, attr.dim, attr.italic, attr.underline
    reverse, strike, blink = attr.reverse, attr.strike, attr.blink
    i = 0
    n = len(fields)
    while i < n:
        sub = fields[i]
        code = _int(sub[0])
        if code == 0:
            fg = bg = None
            bold = dim = italic = underline = reverse = strike = blink = False
        elif 30 <= code <= 37:
            fg = code - 30
        elif 40 <= code <= 47:
            bg = code - 40
        elif 90 <= code <= 97:
            fg = code - 90 + 8
        elif 100 <= code <= 107:
            bg = code - 100 + 8
        elif code == 38 or code == 48 or code == 58:
            color, i = _extended_color(fields, i)
            if color is not False:
                if code == 38:
                    fg = color
                elif code == 48:
                    bg = color
                # 58 (underline colour) is parsed only to skip its arguments.
            continue
        elif code == 39:
            fg = None
        elif code == 49:
            bg = None
        elif code == 1:
            bold = True
        elif code == 2:
            dim = True
        elif code == 3:
            italic = True
        elif code == 4:
            # 4:0 turns underline off; 4:1..4:5 are underline styles.
            underline = not (len(sub) > 1 and _int(sub[1]) == 0)
        elif code == 5 or code == 6:
            blink = True
        elif code == 7:
            reverse = True
        elif code == 9:
            strike = True
        elif code == 21:
            underline = True  # double underline
        elif code == 22:
            bold = dim = False
        elif code == 23:
            italic = False
        elif code == 24:
            underline = False
        elif code == 25:
            blink = False
        elif code == 27:
            reverse = False
        elif code == 29:
            strike = False
        # Anything else (8 conceal, 53 overline, fonts, unknown) is ignored.
        i += 1
    return intern_attr(Attr(fg, bg, bold, dim, italic, underline, reverse, strike, blink))


def apply_sgr(attr: Attr, params: str) -> Attr:
    """Return ``attr`` updated by the SGR parameter string ``params``
    (the text between ``CSI`` and ``m``, without private prefix)."""
    key = (id(attr), params)
    got = _SGR_CACHE.get(key)
    if got is not None and got[0] is attr:
        return got[1]
    new = _apply_sgr(attr, params)
    if len(_SGR_CACHE) > _CACHE_LIMIT:
        _SGR_CACHE.clear()
    _SGR_CACHE[key] = (attr, new)
    return new
