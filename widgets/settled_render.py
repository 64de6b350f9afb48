"""Widgets that hand the compositor their last lines again while nothing changed.

Textual renders every widget whose *parent* overlaps a repainted region, and
renders it whole: one keystroke's row in a pane re-renders the sidebar, the
header, the footer and every container above the pane. Each of those calls
re-derives the widget's background from all its ancestors, its opacity, its
region and the theme before its line cache answers — a few hundred
microseconds each, a good part of a keystroke's frame.

A widget with this mixin keeps the lines it returned. While its line cache has
no dirty line (every refresh marks lines dirty; a resize or a restyle refreshes)
and the crop, the size, the app's line filters and the hovered link are those of
the last call, it returns them without asking the cache again. What it returns
is exactly what the cache would have built from the same cached lines.

Only for widgets drawn through the line cache (containers, `Static`, widgets
with `render`/`render_line`); a `ScrollView` draws itself and keeps its own.
"""

from __future__ import annotations

from textual.containers import Horizontal, Vertical
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static


class SettledRender(Widget):
    """Mixin (or base) for widgets whose lines rarely change."""

    _settled_key: tuple[object, ...] | None = None
    _settled_lines: list[Strip] = []

    def render_lines(self, crop: Region) -> list[Strip]:
        # The line cache's dirty set is where Textual records every refresh of
        # this widget since its last render (a whole refresh clears the cache and
        # marks every line dirty), so an empty set means nothing was redrawn.
        dirty = self._styles_cache._dirty_lines
        filters = tuple(self.get_line_filters())
        key = (crop, self._size, filters, self.hover_style if self.auto_links else None)
        if not dirty and key == self._settled_key:
            return self._settled_lines
        lines = super().render_lines(crop)
        self._settled_key = key
        self._settled_lines = lines
        return lines


class SettledVertical(SettledRender, Vertical):
    """A `Vertical` that re-renders only when refreshed."""


class SettledHorizontal(SettledRender, Horizontal):
    """A `Horizontal` that re-renders only when refreshed."""


class SettledStatic(SettledRender, Static):
    """A `Static` that re-renders only when updated or refreshed."""
