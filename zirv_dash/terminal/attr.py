"""Cell attributes (colours and flags) and SGR parsing.

An :class:`Attr` is shared by every cell drawn with the same rendition, so the
screen stores *references* to a handful of interned objects instead of building
a styled tuple per character (pyte builds a ``Char`` namedtuple per cell, which
is where most of its time goes).  SGR results are memoised per
``(current attr, parameter string)``: a program that colours every word with the
same few escape sequences pays for the parse once.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .links import Link

Color = str | int | None


class Attr(NamedTuple):
    """Rendition of one cell.

    ``fg``/``bg``: ``None`` is the terminal default, an ``int`` 0-255 is a palette
    index (0-15 are the ANSI colours, 8-15 the bright ones) and a ``str`` is a
    truecolor ``"#rrggbb"``.  ``underline`` is the underline style, as SGR
    ``4:n`` numbers them: 0 none, 1 single, 2 double, 3 curly, 4 dotted, 5
    dashed.  ``ul_color`` (SGR 58/59) is a colour like ``fg``.  ``link`` is
    the OSC 8 hyperlink the cell belongs to (see ``links``), ``zone`` the
    part of a shell's command block it was drawn in (OSC 133, ``ZONES``);
    SGR resets keep both.  New fields go at the end: the SGR code below
    addresses them by position.
    """

    fg: Color = None
    bg: Color = None
    bold: bool = False
    dim: bool = False
    italic: bool = False
    underline: int = 0
    reverse: bool = False
    strike: bool = False
    blink: bool = False
    ul_color: Color = None
    overline: bool = False
    link: Link | None = None
    zone: int = 0


DEFAULT_ATTR = Attr()

# Interning table: every Attr the parser produces goes through here so equal
# renditions are the same object (cheap identity comparisons when grouping runs).
_INTERN: dict[Attr, Attr] = {DEFAULT_ATTR: DEFAULT_ATTR}
# SGR transitions keyed by (id(current attr), parameter string): hashing an
# int and an (already hashed) str is much cheaper than hashing a 9-field
# tuple.  The value keeps the source object so a recycled id is detected.
_SGR_CACHE: dict[tuple[int, str], tuple[Attr, Attr]] = {}
# Transitions from the default rendition, keyed by the parameter string
# alone: most SGRs follow a reset ("ESC[0m ESC[1;32m word ESC[0m"), and
# this lookup needs neither a key tuple nor an id.
FROM_DEFAULT: dict[str, Attr] = {}
_CACHE_LIMIT = 8192
INTERN_GENERATION = [0]
"""Bumped each time the intern table starts again: a cache of interned renditions
elsewhere (the SGR graph) starts again with it, or it would keep drawing with
renditions equal to, but no longer the same objects as, the newly interned ones."""


def forget_renditions() -> None:
    """Start the intern table and the SGR caches again (they hold renditions,
    and with them hyperlinks, that no cell may use any more)."""
    INTERN_GENERATION[0] += 1
    _INTERN.clear()
    _SGR_CACHE.clear()
    FROM_DEFAULT.clear()
    _INTERN[DEFAULT_ATTR] = DEFAULT_ATTR


def intern_attr(attr: Attr) -> Attr:
    got = _INTERN.get(attr)
    if got is None:
        if len(_INTERN) > _CACHE_LIMIT:
            forget_renditions()
        _INTERN[attr] = attr
        got = attr
    return got


ZONE_PROMPT = 1
ZONE_INPUT = 2
ZONES = {"A": ZONE_PROMPT, "B": ZONE_INPUT, "C": 0, "D": 0}
"""OSC 133 marks and the zone the cells drawn after each belong to: the prompt
(A), the command line typed (B), none after the command starts (C) or ends
(D). Output is left unmarked on purpose: a marked rendition would keep a
command's output off the model's fast paths (which draw in the default
rendition only); it is told as the lines between a command line and the next
prompt (``dash.shell_blocks``)."""


def _reset(attr: Attr) -> Attr:
    """What SGR 0 leaves of ``attr``: the default rendition, its link and zone."""
    if attr.link is None and not attr.zone:
        return DEFAULT_ATTR
    return intern_attr(Attr(link=attr.link, zone=attr.zone))


def with_zone(attr: Attr, zone: int) -> Attr:
    """``attr`` drawing cells of shell zone ``zone``."""
    if attr.zone == zone:
        return attr
    return intern_attr(attr._replace(zone=zone))


def with_link(attr: Attr, link: Link | None) -> Attr:
    """``attr`` drawing cells that belong to ``link`` (None: to no link)."""
    if attr.link is link:
        return attr
    return intern_attr(attr._replace(link=link))


def erase_attr(attr: Attr) -> Attr:
    """Attribute of cells blanked by erase/scroll: only the background survives
    (background colour erase, as xterm and tmux do)."""
    if attr.bg is None:
        return DEFAULT_ATTR
    return intern_attr(Attr(bg=attr.bg))


def _sub(s: str) -> int:
    """A colon sub-parameter: -1 when empty (tmux's "missing")."""
    return int(s) if s.isdigit() else -1


def _sgr_colon(st: list[object], field: str) -> None:
    """One colon-form SGR field, as tmux 3.3 reads it: ``4:n`` underline
    styles, ``38/48/58:5:n`` and ``38/48/58:2:[id:]r:g:b``; anything else is
    ignored as a whole."""
    p = [_sub(v) for v in field.split(":")]
    if len(p) >= 8:
        return
    if p[0] == 4:
        if len(p) == 2 and 0 <= p[1] <= 5:
            st[5] = p[1]
        return
    if len(p) < 3 or p[0] not in (38, 48, 58):
        return
    slot = 0 if p[0] == 38 else 1 if p[0] == 48 else _UL_COLOR
    if p[1] == 2:
        k = 2 if len(p) == 5 else 3
        if len(p) < k + 3:
            return
        r, g, b = p[k : k + 3]
        if 0 <= r <= 255 and 0 <= g <= 255 and 0 <= b <= 255:
            st[slot] = f"#{r:02x}{g:02x}{b:02x}"
    elif p[1] == 5:
        c = p[2]
        st[slot] = c if 0 <= c <= 255 else None


_UL_COLOR = 9  # Attr.ul_color's position
_FLAGS: dict[int, tuple[int, object]] = {
    1: (2, True),
    2: (3, True),
    3: (4, True),
    4: (5, 1),  # single underline (any other style is replaced, as in tmux)
    21: (5, 2),  # double underline
    5: (8, True),
    6: (8, True),
    7: (6, True),
    9: (7, True),
    23: (4, False),
    24: (5, 0),
    25: (8, False),
    27: (6, False),
    29: (7, False),
    53: (10, True),  # overline
    55: (10, False),
    59: (_UL_COLOR, None),  # default underline colour
}


_TRUECOLOR = re.compile(r"([34])8;2;(\d{1,3});(\d{1,3});(\d{1,3})").fullmatch


def _apply_sgr(attr: Attr, params: str) -> Attr:
    # Fast path for the commonest uncached form, a lone truecolor fg/bg
    # (a UI with a gradient or per-token colours sends a new one each time).
    m = _TRUECOLOR(params)
    if m is not None:
        r, g, b = int(m[2]), int(m[3]), int(m[4])
        if r <= 255 and g <= 255 and b <= 255:
            color = f"#{r:02x}{g:02x}{b:02x}"
            if m[1] == "3":
                return intern_attr(Attr(color, *attr[1:]))
            return intern_attr(Attr(attr[0], color, *attr[2:]))
    return _apply_sgr_general(attr, params)


def _apply_sgr_general(attr: Attr, params: str) -> Attr:
    """SGR exactly as tmux 3.3 interprets it, including its handling of bad
    input: an empty parameter is 0 (reset); ``38;5;n`` with a bad or missing
    ``n`` resets the colour; ``38;2;r;g;b`` with a bad component skips only
    ``38;2`` (the components are then read as ordinary codes); colon fields
    follow :func:`_sgr_colon`; unknown codes are ignored."""
    if not params:
        return _reset(attr)
    fields = params.split(";")
    for f in fields:
        if f and not f.isdigit() and not all(part.isdigit() or not part for part in f.split(":")):
            return attr  # not a plain SGR parameter string: ignored
    st: list[object] = list(attr)
    n = len(fields)
    i = 0
    while i < n:
        f = fields[i]
        if ":" in f:
            _sgr_colon(st, f)
            i += 1
            continue
        code = int(f) if f else 0
        if code == 38 or code == 48 or code == 58:
            i = _sgr_extended(st, fields, i + 1, code)
            continue
        if code == 0:
            st = list(_reset(attr))  # a reset ends no hyperlink or zone
        else:
            _sgr_code(st, code)
        i += 1
    return intern_attr(Attr(*st))  # type: ignore[arg-type]


def _sgr_extended(st: list[object], fields: list[str], i: int, code: int) -> int:
    """``38``/``48``/``58`` (fg, bg, underline colour) in the semicolon form,
    its type at ``fields[i]``; returns the index of the next field."""
    n = len(fields)
    slot = 0 if code == 38 else 1 if code == 48 else _UL_COLOR
    typ = int(fields[i]) if i < n and fields[i].isdigit() else -1
    if typ == 2:
        rgb = [
            int(fields[i + k]) if i + k < n and fields[i + k].isdigit() else -1 for k in (1, 2, 3)
        ]
        if all(0 <= v <= 255 for v in rgb):
            st[slot] = "#{:02x}{:02x}{:02x}".format(*rgb)
            i += 3
    elif typ == 5:
        c = int(fields[i + 1]) if i + 1 < n and fields[i + 1].isdigit() else -1
        st[slot] = c if 0 <= c <= 255 else None
        i += 1
    return i + 1


def _sgr_code(st: list[object], code: int) -> None:
    """One plain SGR code other than a reset and the extended colours."""
    if 30 <= code <= 37:
        st[0] = code - 30
    elif 40 <= code <= 47:
        st[1] = code - 40
    elif 90 <= code <= 97:
        st[0] = code - 82
    elif 100 <= code <= 107:
        st[1] = code - 92
    elif code == 39:
        st[0] = None
    elif code == 49:
        st[1] = None
    elif code == 22:
        st[2] = st[3] = False
    else:
        flag = _FLAGS.get(code)
        if flag is not None:
            st[flag[0]] = flag[1]


def apply_sgr(attr: Attr, params: str) -> Attr:
    """Return ``attr`` updated by the SGR parameter string ``params``
    (the text between ``CSI`` and ``m``, without private prefix)."""
    if attr is DEFAULT_ATTR:
        hit = FROM_DEFAULT.get(params)
        if hit is None:
            hit = _apply_sgr(attr, params)
            if len(FROM_DEFAULT) > _CACHE_LIMIT:
                FROM_DEFAULT.clear()
            FROM_DEFAULT[params] = hit
        return hit
    key = (id(attr), params)
    got = _SGR_CACHE.get(key)
    if got is not None and got[0] is attr:
        return got[1]
    new = _apply_sgr(attr, params)
    if len(_SGR_CACHE) > _CACHE_LIMIT:
        _SGR_CACHE.clear()
    _SGR_CACHE[key] = (attr, new)
    return new
