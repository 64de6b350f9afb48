"""An :class:`Attr` written back as SGR parameters.

Used where a model's cells are sent on: the session repaint (to another
model: every field) and the glass (to the outer terminal: the parts Rich
does not write, see ``widgets.terminal_style``).
"""

from __future__ import annotations

from .attr import Attr, Color

_FLAGS = (("bold", 1), ("dim", 2), ("italic", 3), ("blink", 5), ("reverse", 7), ("strike", 9))


def color_params(value: Color, base: int) -> str:
    """``base`` 30 for a foreground, 40 for a background; "" for the default."""
    if value is None:
        return ""
    if isinstance(value, str):  # "#rrggbb"
        red, green, blue = (int(value[i : i + 2], 16) for i in (1, 3, 5))
        return f"{base + 8};2;{red};{green};{blue}"
    if value < 8:
        return f"{base + value}"
    if value < 16:
        return f"{base + 60 + value - 8}"
    return f"{base + 8};5;{value}"


def underline_color_params(value: Color) -> str:
    """SGR 58 in the colon forms every terminal with underline colours reads
    (kitty's Setulc, tmux, VTE, WezTerm): ``58:5:n``, ``58:2::r:g:b``."""
    if value is None:
        return ""
    if isinstance(value, str):
        red, green, blue = (int(value[i : i + 2], 16) for i in (1, 3, 5))
        return f"58:2::{red}:{green}:{blue}"
    return f"58:5:{value}"


def underline_params(style: int) -> str:
    """``4`` for a single underline, ``4:n`` for the others, "" for none."""
    if not style:
        return ""
    return "4" if style == 1 else f"4:{style}"


def sgr(attr: Attr) -> str:
    """One SGR sequence that sets exactly ``attr`` from any previous rendition."""
    params = ["0"]
    params += [str(code) for name, code in _FLAGS if getattr(attr, name)]
    params += [
        p
        for p in (
            underline_params(attr.underline),
            "53" if attr.overline else "",
            color_params(attr.fg, 30),
            color_params(attr.bg, 40),
            underline_color_params(attr.ul_color),
        )
        if p
    ]
    return f"\x1b[{';'.join(params)}m"
