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

import time
from collections.abc import Iterable

from rich.color import Color as RichColor
from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.css.styles import RulesMap
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import RenderOptions, Visual

BACKGROUND_TTL = 0.5
"""Seconds a tinted background is reused: an overlay repaints itself several
times while it opens (mount, layout, scrollbar), each of which would render and
tint the whole screen below again; what changes below shows within this."""
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


def faster(
    rendered: RenderableType, cache: BackgroundCache | None = None
) -> RenderableType | Visual:
    """`rendered` (a Screen's render()) with a BackgroundScreen swapped for ours."""
    if type(rendered) is BackgroundScreen:
        return TintedScreen(rendered.screen, rendered.color, cache)
    return rendered


class BackgroundCache:
    """The last tinted background of one overlay, for BACKGROUND_TTL seconds."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._at = 0.0
        self._strips: list[Strip] = []

    def get(self, key: tuple[object, ...]) -> list[Strip] | None:
        if key == self._key and time.monotonic() - self._at < BACKGROUND_TTL:
            return self._strips
        return None

    def put(self, key: tuple[object, ...], strips: list[Strip]) -> None:
        self._key, self._at, self._strips = key, time.monotonic(), strips

    def clear(self) -> None:
        self._key = None
        self._strips = []


class TintedScreen(Visual):
    """The screen below, tinted, as a Textual Visual: its compositor's strips are
    tinted segment by segment and handed back as strips, with no round trip
    through a Rich segment stream that Textual would split into lines again.
    Draws what `post_render(BackgroundScreen)` through Textual's RichVisual draws."""

    def __init__(
        self, screen: Screen[object], color: Color, cache: BackgroundCache | None = None
    ) -> None:
        self.screen = screen
        self.color = color
        self.cache = cache

    def render_strips(
        self, width: int, height: int | None, style: VisualStyle, options: RenderOptions
    ) -> list[Strip]:
        base = style.rich_style
        key = (id(self.screen), self.color, base, width, height)
        cache = self.cache
        if cache is not None:
            hit = cache.get(key)
            if hit is not None:
                return hit
        strips = self._render(base, width, height)
        if cache is not None:
            cache.put(key, strips)
        return strips

    def _render(self, base: Style, width: int, height: int | None) -> list[Strip]:
        color = self.color
        lines = self.screen._compositor.render_strips()
        if height is not None:
            lines = lines[:height]
        out = []
        for line in lines:
            segments = [
                seg if seg.control else Segment(seg.text, _over(base, tint(seg.style, color)))
                for seg in line
            ]
            strip = Strip(segments, line.cell_length)
            out.append(strip.crop(0, width) if line.cell_length > width else strip)
        return out

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self.screen._compositor.size.height


_over_cache: dict[tuple[Style, Style], Style] = {}


def _over(base: Style, style: Style) -> Style:
    """`base + style` (what Textual's post_render applies under each segment)."""
    if not base:
        return style
    key = (base, style)
    cached = _over_cache.get(key)
    if cached is None:
        if len(_over_cache) >= CACHE_LIMIT:
            _over_cache.clear()
        cached = _over_cache[key] = base + style
    return cached
