"""TerminalView: renders one pane's terminal model, line by line.

Pull-based rendering: the model records which rows changed; at most 60 times a
second the view asks for those rows and refreshes just them. Each rendered row
is cached as a Strip keyed on the row's version, so an unchanged row costs a
dict lookup. Styles are cached per attribute tuple.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from zirv_dash.terminal import Attr

if TYPE_CHECKING:
    from zirv_dash.pane import Pane

FRAME_INTERVAL = 1 / 60
SYNC_HOLD_MAX = 1.0

_style_cache: dict[Attr, Style] = {}


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
        _style_cache[attr] = style
    return style


CURSOR_STYLE = Style(reverse=True)
SELECTION_STYLE = Style(reverse=True)
SCROLL_MARK_STYLE = Style(reverse=True, bold=True)


class TerminalView(Widget, can_focus=True):
    """One pane's screen. Keys are handled by the screen that owns it."""

    DEFAULT_CSS = """
    TerminalView {
        width: 1fr;
        height: 1fr;
        background: $background;
        color: $foreground;
    }
    """

    def __init__(self, pane: Pane, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.pane = pane
        self._row_cache: dict[int, tuple[tuple[object, ...], Strip]] = {}
        self._flush_pending = False
        self._last_flush = 0.0
        self._last_cursor: tuple[int, int] | None = None
        self._last_offset = 0
        self.show_cursor = True
        self.selection: tuple[tuple[int, int], tuple[int, int]] | None = None
        """((row, col), (row, col)) in view coordinates, inclusive start, exclusive end."""
        self.frames = 0

    # -- change notification ------------------------------------------------------------

    def output_changed(self) -> None:
        """Called after the pane parsed output: schedule a coalesced refresh."""
        if self._flush_pending:
            return
        self._flush_pending = True
        delay = max(0.0, self._last_flush + FRAME_INTERVAL - time.monotonic())
        self.set_timer(max(delay, 0.001), self._flush, name="terminal-flush")

    def _flush(self) -> None:
        self._flush_pending = False
        model = self.pane.model_view
        if model.synchronized:
            # The child is mid-frame (DEC 2026): wait for the end mark, which the
            # model times out after a second on its own.
            self._flush_pending = True
            self.set_timer(FRAME_INTERVAL, self._flush, name="terminal-sync")
            return
        self._last_flush = time.monotonic()
        if not self.display:
            model.take_dirty()
            return
        if self.pane.scroll_offset or self._last_offset:
            model.take_dirty()
            self._last_offset = self.pane.scroll_offset
            self._row_cache.clear()
            self.refresh()
            return
        dirty = model.take_dirty()
        cursor = model.cursor
        if cursor != self._last_cursor:
            if self._last_cursor is not None:
                dirty.add(self._last_cursor[1])
            dirty.add(cursor[1])
            self._last_cursor = cursor
        width = self.size.width
        for row in dirty:
            self.refresh(Region(0, row, width, 1))
        self.frames += 1

    def full_refresh(self) -> None:
        self._row_cache.clear()
        self._last_offset = self.pane.scroll_offset
        self.pane.model_view.take_dirty()
        self.refresh()

    def on_resize(self) -> None:
        self._row_cache.clear()

    # -- rendering -----------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        model = self.pane.model_view
        width = self.size.width
        offset = self.pane.scroll_offset
        history = model.history_size
        cursor_x = -1
        if offset:
            index = history - offset + y
            if index < 0:
                return Strip.blank(width)
            if index < history:
                key: tuple[object, ...] = ("h", index, width)
                runs = None
            else:
                row = index - history
                if row >= model.rows:
                    return Strip.blank(width)
                key = ("r", row, model.row_version(row), width)
                runs = None
        else:
            if y >= model.rows:
                return Strip.blank(width)
            if (
                self.show_cursor
                and self.has_focus
                and model.cursor_visible
                and model.cursor[1] == y
            ):
                cursor_x = model.cursor[0]
            key = ("r", y, model.row_version(y), width, cursor_x)
            runs = None
        sel = self._selection_span(y)
        key = (*key, sel)
        cached = self._row_cache.get(y)
        if cached is not None and cached[0] == key:
            return cached[1]
        if offset:
            index = history - offset + y
            runs = model.history_runs(index) if index < history else model.row_runs(index - history)
        else:
            runs = model.row_runs(y)
        segments = [Segment(text, style_for(attr)) for text, attr in runs]
        strip = Strip(segments).apply_style(self.rich_style)
        if cursor_x >= 0:
            strip = _overlay(strip, cursor_x, cursor_x + 1, CURSOR_STYLE)
        if sel is not None:
            strip = _overlay(strip, sel[0], sel[1], SELECTION_STYLE)
        strip = strip.adjust_cell_length(width, self.rich_style)
        if offset and y == 0:
            mark = f" SCROLL -{offset} "
            strip = Strip.join(
                [
                    strip.crop(0, max(0, width - len(mark))),
                    Strip([Segment(mark, SCROLL_MARK_STYLE)]),
                ]
            ).crop(0, width)
        self._row_cache[y] = (key, strip)
        return strip

    def _selection_span(self, y: int) -> tuple[int, int] | None:
        if self.selection is None:
            return None
        (r0, c0), (r1, c1) = self.selection
        if (r1, c1) < (r0, c0):
            (r0, c0), (r1, c1) = (r1, c1), (r0, c0)
        if y < r0 or y > r1:
            return None
        start = c0 if y == r0 else 0
        end = c1 if y == r1 else self.pane.model_view.columns
        if end <= start:
            return None
        return (start, end)


def _overlay(strip: Strip, start: int, end: int, style: Style) -> Strip:
    """Apply `style` on top of cells [start, end) of `strip`."""
    length = strip.cell_length
    if start >= length:
        pad = Strip([Segment(" " * (end - start), style)])
        return Strip.join([strip.extend_cell_length(start), pad])
    left, middle, right = strip.divide([start, min(end, length), length])
    middle = Strip([Segment(seg.text, (seg.style or Style()) + style) for seg in middle])
    return Strip.join([left, middle, right])
