"""The outer terminal's real cursor for a terminal view: where it goes, its shape.

The app puts the real cursor where the focused pane's cursor is, in the shape
the child asked for (DECSCUSR); a view draws a block of its own only where no
real terminal is there to place one (headless runs: tests and snapshots).
"""

from __future__ import annotations

from textual.errors import NoWidget
from textual.geometry import Offset
from textual.widget import Widget

from zirv_dash.terminal import TerminalModel


def real_cursor(
    view: Widget, model: TerminalModel, shown: bool, offset: int
) -> tuple[Offset, int] | None:
    """Where the outer terminal's cursor belongs (screen cell) and its DECSCUSR
    shape, or None when it must be hidden: the child hid it, the view is
    scrolled back (`offset`) or not focused, or something is drawn over that cell."""
    if not (shown and view.has_focus and model.cursor_visible):
        return None
    if view.screen is not view.app.screen:
        return None  # an overlay is on top (its screen has the focus)
    if offset:
        return None
    x, y = model.cursor
    region = view.content_region
    if x >= region.width or y >= region.height:
        return None
    at = region.offset + Offset(x, y)
    try:
        widget, _ = view.screen.get_widget_at(at.x, at.y)
    except NoWidget:
        return None
    if widget is not view:
        return None  # a toast or another layer covers the cursor
    return at, cursor_shape(model)


def cursor_shape(model: object) -> int:
    """The DECSCUSR shape the child asked for (0: the terminal's default)."""
    shape = getattr(model, "cursor_shape", 0)
    return shape if isinstance(shape, int) and 0 <= shape <= 6 else 0


def app_places_cursor(widget: Widget) -> bool:
    """Whether the app shows the real terminal cursor (then no block is drawn)."""
    return bool(getattr(widget.app, "places_real_cursor", False))
