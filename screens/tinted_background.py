"""The dimmed dashboard behind an overlay, tinted once per style instead of once
per segment.

A dialog's translucent background makes Textual render the whole screen below
and blend the tint into every segment's colours (a new Color, a blend and two
Style objects per segment): for a full 120x40 dashboard that is a large part of
what opening an overlay costs. The same few dozen styles repeat across the
screen, so the tinted style is computed once per (style, tint) and reused; the
result is the same as Textual's.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.color import Color as RichColor
from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.renderables.background_screen import BackgroundScreen

CACHE_LIMIT = 8192
"""Distinct styles kept; past this the cache starts over (a screen holds far fewer)."""

_NULL = Style()
_tinted: dict[tuple[Style | None, Color], Style] = {}


def tint(style: Style | None, color: Color) -> Style:
    """What Textual's BackgroundScreen makes of `style` under `color`."""
    key = (style, color)
    cached = _tinted.get(key)
    if cached is not None:
        return cached
    base = _NULL if style is None else style.clear_meta_and_links()
    if color.a == 0:
        result = base
    else:
        result = base + Style.from_color(_blend(base.color, color), _blend(base.bgcolor, color))
    if len(_tinted) >= CACHE_LIMIT:
        _tinted.clear()
    _tinted[key] = result
    return result


def _blend(rich: RichColor | None, color: Color) -> RichColor | None:
    return None if rich is None else (Color.from_rich_color(rich) + color).rich_color


class TintedBackground(BackgroundScreen):
    @classmethod
    def process_segments(cls, segments: Iterable[Segment], color: Color) -> Iterable[Segment]:
        for segment in segments:
            text, style, control = segment
            yield segment if control else Segment(text, tint(style, color), control)


def faster(rendered: RenderableType) -> RenderableType:
    """`rendered` (a Screen's render()) with a BackgroundScreen swapped for ours."""
    if type(rendered) is BackgroundScreen:
        return TintedBackground(rendered.screen, rendered.color)
    return rendered
