"""How a terminal model's cells become Rich segments: styles, widths, overlays."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.filter import ANSIToTruecolor, LineFilter
from textual.strip import Strip

from zirv_dash.terminal import Attr, cell_width

STYLE_CACHE_MAX = 4096
"""Distinct attribute sets kept; a child cycling through 16 million truecolours
must not grow the cache without bound."""
_style_cache: dict[Attr, Style] = {}
_JOINED = re.compile("\u200d.")
_SELECTORS = re.compile("[\ufe0e\ufe0f]")


def _color(value: str | int | None) -> Color | None:
    if value is None:
        return None
    if isinstance(value, int):
        return Color.from_ansi(value) if 0 <= value <= 255 else None
    try:
        return Color.parse(value)
    except Exception:  # noqa: BLE001 - a bad colour renders as default, never crashes
        return None


def style_for(attr: Attr) -> Style:
    style = _style_cache.get(attr)
    if style is None:
        style = Style(
            color=_color(attr.fg),
            bgcolor=_color(attr.bg),
            bold=attr.bold or None,
            dim=attr.dim or None,
            italic=attr.italic or None,
            underline=attr.underline or None,
            reverse=attr.reverse or None,
            strike=attr.strike or None,
            blink=attr.blink or None,
        )
        if len(_style_cache) >= STYLE_CACHE_MAX:
            _style_cache.clear()
        _style_cache[attr] = style
    return style


def fit_run(text: str) -> str:
    """`text` as Rich should draw it so it covers exactly the cells the model gave
    it. They agree on almost everything; where they don't (an emoji joined with
    U+200D is one 2-cell cluster in tmux but several wide characters to Rich),
    the joined-on parts are dropped and the width padded or cut, so the rest of
    the row stays in its columns."""
    if text.isascii():
        return text
    want = cell_width(text)
    if cell_len(text) == want:
        return text
    # Variation selectors first (VS16 makes Rich count an emoji as 2 cells where
    # tmux keeps the base character's width), then joined-on emoji parts.
    fitted = _SELECTORS.sub("", text)
    if cell_len(fitted) != want:
        fitted = _JOINED.sub("", fitted)
    return fitted if cell_len(fitted) == want else set_cell_size(fitted, want)


def run_segments(runs: list[tuple[str, Attr]]) -> list[Segment]:
    return [Segment(fit_run(text), style_for(attr)) for text, attr in runs]


def without_theme_colors(filters: Sequence[LineFilter]) -> list[LineFilter]:
    """`filters` less the one that maps ANSI colours to the theme's RGB: for any
    widget that draws a child's screen."""
    return [f for f in filters if not isinstance(f, ANSIToTruecolor)]


def overlay(strip: Strip, start: int, end: int, style: Style) -> Strip:
    """Apply `style` on top of cells [start, end) of `strip`."""
    length = strip.cell_length
    if start >= length:
        pad = Strip([Segment(" " * (end - start), style)])
        return Strip.join([strip.extend_cell_length(start), pad])
    left, middle, right = strip.divide([start, min(end, length), length])
    middle = Strip([Segment(seg.text, (seg.style or Style()) + style) for seg in middle])
    return Strip.join([left, middle, right])
