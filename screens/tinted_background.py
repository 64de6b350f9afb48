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

from collections.abc import Callable, Iterable
from typing import Any

from rich.color import Color as RichColor
from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.css.styles import RulesMap
from textual.geometry import Region
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import RenderOptions, Visual

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
    """The last tinted background of one overlay, line by line: a line whose
    strip below is the very object it was last time is not tinted again. The
    dashboard's compositor (screens.line_compositor) hands back the same strip
    for a line nothing repainted, so a reopened overlay, or one repainting
    itself as it opens, tints only the lines that changed below it; any other
    screen below gives new strips each time, and each is tinted afresh."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._below: list[Strip] = []
        self._tinted: list[Strip] = []
        self.tinted_lines = 0
        """Lines tinted so far (not reused)."""
        self.below: Screen[Any] | None = None
        """The screen last tinted."""
        self._drawn: dict[int, Strip] = {}
        """Per line of the overlay, the strip below whose tint it last drew there."""

    def lines(
        self, key: tuple[object, ...], below: list[Strip], tint_line: Callable[[Strip], Strip]
    ) -> list[Strip]:
        """`tint_line` of each of `below`, reusing what it gave last time for the
        same strip at the same line under the same `key`."""
        if key != self._key:
            self._key, self._below, self._tinted = key, [], []
            self._drawn.clear()
        before, tinted = self._below, self._tinted
        out = []
        for y, line in enumerate(below):
            if y < len(before) and before[y] is line:
                out.append(tinted[y])
            else:
                out.append(tint_line(line))
                self.tinted_lines += 1
        self._below, self._tinted = below, out
        return out

    def drawn(self, y: int) -> None:
        """The overlay drew line `y` of the last tinted background."""
        if y < len(self._below):
            self._drawn[y] = self._below[y]

    def changed_lines(self) -> set[int] | None:
        """Lines where the screen below now differs from what the overlay last
        drew over it (None: unknown, any may have)."""
        below = self.below
        if below is None:
            return None
        drawn = self._drawn
        lines = below._compositor.render_strips()
        return {y for y, line in enumerate(lines) if drawn.get(y) is not line}

    def clear(self) -> None:
        self._key = None
        self._below, self._tinted = [], []
        self._drawn.clear()


def within_lines(regions: Iterable[Region], lines: set[int]) -> list[Region]:
    """The parts of `regions` on `lines`."""
    parts = []
    for region in regions:
        start = None
        for y in range(region.y, region.bottom + 1):
            if y < region.bottom and y in lines:
                start = y if start is None else start
            elif start is not None:
                parts.append(Region(region.x, start, region.width, y - start))
                start = None
    return parts


class TintedScreen(Visual):
    """The screen below, tinted, as a Textual Visual: its compositor's strips are
    tinted segment by segment and handed back as strips, with no round trip
    through a Rich segment stream that Textual would split into lines again.
    Draws what `post_render(BackgroundScreen)` through Textual's RichVisual draws."""

    def __init__(
        self, screen: Screen[Any], color: Color, cache: BackgroundCache | None = None
    ) -> None:
        self.screen = screen
        self.color = color
        self.cache = cache

    def render_strips(
        self, width: int, height: int | None, style: VisualStyle, options: RenderOptions
    ) -> list[Strip]:
        base = style.rich_style
        lines = self.screen._compositor.render_strips()
        if height is not None:
            lines = lines[:height]

        def tinted(line: Strip) -> Strip:
            return self._tint(base, line, width)

        if self.cache is None:
            return [tinted(line) for line in lines]
        self.cache.below = self.screen
        return self.cache.lines((id(self.screen), self.color, base, width), lines, tinted)

    def _tint(self, base: Style, line: Strip, width: int) -> Strip:
        color = self.color
        segments = [
            seg if seg.control else Segment(seg.text, _over(base, tint(seg.style, color)))
            for seg in line
        ]
        strip = Strip(segments, line.cell_length)
        return strip.crop(0, width) if line.cell_length > width else strip

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
