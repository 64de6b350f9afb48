"""TerminalView: renders one pane's terminal model, line by line.

Pull-based rendering: the model records which rows changed; at most 60 times a
second the view asks for those rows and refreshes just them. Each rendered row
is cached as a Strip keyed on the row's version, so an unchanged row costs a
dict lookup. Styles are cached per attribute tuple.

Colours reach the glass as the child sent them, the way tmux passes them on:
palette colours 0-15 stay palette colours (SGR 30-37/90-97, so the user's
terminal theme decides how they look), the default colours stay the
terminal's defaults, 256-colour and 24-bit colours pass through, and dim is
the dim attribute. Textual's theme is for the chrome only: this widget opts
out of the filter that maps ANSI colours to the theme's RGB.

The cursor: the app puts the outer terminal's real cursor where the focused
pane's cursor is (see `real_cursor`). A block is drawn only where there is no
real terminal to place it in (headless runs: tests and snapshots).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.filter import LineFilter
from textual.geometry import Offset, Region
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from widgets.echo_path import draw_rows_now
from widgets.glass_clusters import GENERATION as CLUSTER_TOKENS
from widgets.terminal_cursor import app_places_cursor, cursor_shape, real_cursor
from widgets.terminal_pointer import Pointer
from widgets.terminal_style import fit_run as fit_run
from widgets.terminal_style import overlay, without_theme_colors
from widgets.terminal_style import run_segments as run_segments
from zirv_dash import key_events
from zirv_dash import keys as keycodes
from zirv_dash.dash import selection as sel
from zirv_dash.dash.hyperlinks import link_at

Sender = Callable[[bytes, bool], None]
"""(data, typed) to the pane's child."""

if TYPE_CHECKING:
    from collections.abc import Sequence

    from zirv_dash.panes.pane import Pane

FRAME_INTERVAL = 1 / 60
SYNC_HOLD_MAX = 1.0

CURSOR_STYLE = Style(reverse=True)
SELECTION_STYLE = Style(reverse=True)
SCROLL_MARK_STYLE = Style(reverse=True, bold=True)

Mark = tuple[int, int, Style]
"""Cells [start, end) of a row drawn with an extra style (selection, search hits)."""


class TerminalView(Widget, can_focus=True):
    """One pane's screen. Keys are handled by the screen that owns it.

    The mouse is `widgets.terminal_pointer`'s: drag selection and reports to the
    child. A finished selection is posted as `CopyRequest` for the screen to put
    on the clipboard.
    """

    ALLOW_SELECT = False  # Textual's own text selection would fight ours

    class OpenLink(Message):
        """The user Ctrl+clicked a hyperlink (OSC 8) in this view."""

        def __init__(self, view: TerminalView, uri: str) -> None:
            super().__init__()
            self.view = view
            self.uri = uri

    class CopyRequest(Message):
        """The user finished selecting text in this view."""

        def __init__(self, view: TerminalView, text: str) -> None:
            super().__init__()
            self.view = view
            self.text = text

    DEFAULT_CSS = """
    TerminalView {
        width: 1fr;
        height: 1fr;
        background: ansi_default;
        color: ansi_default;
    }
    """

    def __init__(self, pane: Pane, *, send: Sender | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.pane = pane
        self._send: Sender = send or (lambda data, typed: pane.send(data, typed=typed))
        """Where this view's mouse reports go (the engine, in a dashboard)."""
        self._row_cache: dict[int, tuple[tuple[object, ...], Strip]] = {}
        self._flush_pending = False
        self._last_flush = 0.0
        self._last_cursor: tuple[int, int] | None = None
        self._last_cursor_mode: tuple[bool, int] = (True, 0)
        self._last_offset = 0
        self.show_cursor = True
        self.selection: sel.Span | None = None
        """(start, end) in absolute lines (scrollback then screen, see
        zirv_dash.dash.selection), start inclusive, end exclusive."""
        self._selection_text: dict[int, str] = {}
        self._rich_style_kept: Style | None = None
        self.frames = 0
        self.direct_frames = 0
        """Of those, frames drawn at once (`echo_path`), not on Textual's next update."""
        self._pointer = Pointer(self, self._send)
        self._held: set[str] = set()
        """Keys whose press the child was sent while it asked for event types."""

    # -- input for the child ----------------------------------------------------------

    def send_key(self, key: str, character: str | None, event_type: int = key_events.PRESS) -> None:
        """A key for the child, encoded for its modes (cursor keys, kitty flags;
        a repeat or release as its flags ask, `key_events`)."""
        model = self.pane.model_view
        data = key_events.encode_event(
            key, character, model.app_cursor_keys, model.keyboard_flags, event_type, self._held
        )
        if data:
            self._send(data, True)

    def send_raw_key(self, key: str) -> None:
        """A key in its plain encoding (the prefix key sent literally)."""
        self._send(keycodes.encode_key(key, None), True)

    def send_paste(self, text: str) -> None:
        """One paste, bracketed when the child asked for bracketed paste."""
        self._send(keycodes.bracket_paste(text, self.pane.model_view.bracketed_paste), True)

    def send_wheel(self, up: bool, x: int, y: int) -> None:
        """A wheel step at view cell (x, y), for a child that asked for mouse reports."""
        model = self.pane.model_view
        button = keycodes.WHEEL_UP if up else keycodes.WHEEL_DOWN
        column = max(1, min(x + 1, model.columns))
        row = max(1, min(y + 1, model.rows))
        data = keycodes.encode_mouse(button, column, row, encoding=model.mouse_encoding)
        self._send(data, False)

    # -- change notification ------------------------------------------------------------

    def output_changed(self) -> None:
        """Called after the pane parsed output: mark the changed rows for repaint.

        A sparse change (an echoed key) is marked at once; a stream of output is
        coalesced to one repaint per frame, so a flooding pane costs at most
        FRAME_INTERVAL's worth of rendering however fast it writes. A hidden
        pane costs nothing here: showing it repaints it whole."""
        if self._flush_pending or not self.display:
            return
        wait = self._last_flush + FRAME_INTERVAL - time.monotonic()
        if wait <= 0:
            self._flush()
        else:
            self._flush_pending = True
            self.set_timer(wait, self._flush, name="terminal-flush")

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
        if self.selection is not None:
            self._check_selection()
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
        mode = (model.cursor_visible, cursor_shape(model))
        if mode != self._last_cursor_mode:
            # Hiding or reshaping the cursor changes no cell, but the frame it
            # triggers is when the real cursor is updated.
            self._last_cursor_mode = mode
            dirty.add(cursor[1])
        if cursor != self._last_cursor:
            if self._last_cursor is not None:
                dirty.add(self._last_cursor[1])
            dirty.add(cursor[1])
            self._last_cursor = cursor
        self.frames += 1
        if draw_rows_now(self, dirty):
            self.direct_frames += 1
            return
        width = self.size.width
        for row in dirty:
            self.refresh(Region(0, row, width, 1))

    def full_refresh(self) -> None:
        self._row_cache.clear()
        self._last_offset = self.pane.scroll_offset
        self.pane.model_view.take_dirty()
        self.refresh()

    def on_resize(self) -> None:
        self._row_cache.clear()
        self.clear_selection()

    # -- rendering -----------------------------------------------------------------------

    def view_offset(self) -> int:
        """How many lines back from the live view the top row is."""
        return self.pane.scroll_offset

    def top_line(self) -> int:
        """The absolute line (see zirv_dash.dash.selection) shown on row 0."""
        return self.pane.model_view.history_size - self.view_offset()

    def corner_text(self, offset: int) -> str | None:
        """The marker drawn at the top right (while scrolled back)."""
        return f" SCROLL -{offset} " if offset else None

    def marks(self, line: int) -> tuple[Mark, ...]:
        """Extra styling of an absolute line; part of the row's cache key."""
        span = sel.columns_in_line(self.selection, line, self.pane.model_view.columns)
        return () if span is None else ((span[0], span[1], SELECTION_STYLE),)

    def render_line(self, y: int) -> Strip:
        model = self.pane.model_view
        width = self.size.width
        offset = self.view_offset()
        history = model.history_size
        line = history - offset + y
        if line < 0 or line >= history + model.rows:
            return Strip.blank(width)
        cursor_x = -1
        key: tuple[object, ...]
        if line < history:
            key = ("h", line, width)
        else:
            row = line - history
            if (
                not offset
                and self.show_cursor
                and self.has_focus
                and model.cursor_visible
                and model.cursor[1] == row
                and not app_places_cursor(self)
            ):
                cursor_x = model.cursor[0]
            key = ("r", row, model.row_version(row), width, cursor_x)
        marks = self.marks(line)
        corner = self.corner_text(offset) if y == 0 else None
        key = (*key, marks, corner, CLUSTER_TOKENS[0])
        cached = self._row_cache.get(y)
        if cached is not None and cached[0] == key:
            return cached[1]
        runs = model.history_runs(line) if line < history else model.row_runs(line - history)
        segments = run_segments(runs)
        base = self._base_style()
        strip = Strip(segments).apply_style(base)
        if cursor_x >= 0:
            strip = overlay(strip, cursor_x, cursor_x + 1, CURSOR_STYLE)
        for start, stop, style in marks:
            strip = overlay(strip, start, stop, style)
        strip = strip.adjust_cell_length(width, base)
        if corner:
            mark = corner
            strip = Strip.join(
                [
                    strip.crop(0, max(0, width - len(mark))),
                    Strip([Segment(mark, SCROLL_MARK_STYLE)]),
                ]
            ).crop(0, width)
        self._row_cache[y] = (key, strip)
        return strip

    def _base_style(self) -> Style:
        """The view's own style (what its CSS and its ancestors' make of it),
        kept until its styles change: Textual works it out from every ancestor
        on each call, and a row is rendered with it on every echo."""
        style = self._rich_style_kept
        if style is None:
            style = self._rich_style_kept = self.rich_style
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._rich_style_kept = None

    def get_line_filters(self) -> Sequence[LineFilter]:
        # The child's colours are not the theme's: keep every filter (NO_COLOR's,
        # for one) but the one that maps ANSI colours to the theme's RGB and
        # bakes dim into a darker colour.
        return without_theme_colors(super().get_line_filters())

    # -- the real cursor -----------------------------------------------------------------

    def real_cursor(self) -> tuple[Offset, int] | None:
        """Where the outer terminal's cursor belongs (`terminal_cursor`)."""
        return real_cursor(self, self.pane.model_view, self.show_cursor, self.view_offset())

    # -- selection -----------------------------------------------------------------------

    def lines(self) -> sel.ModelLines:
        return sel.ModelLines(self.pane.model_view)

    def set_selection(self, span: sel.Span | None) -> None:
        if span is not None and span[1] <= span[0]:
            span = None
        if span == self.selection:
            return
        self.selection = span
        self._selection_text = {}
        if span is not None:
            src = self.lines()
            first = max(span[0][0], src.history_size)
            for line in range(first, min(span[1][0], src.line_count - 1) + 1):
                self._selection_text[line] = "".join(src.cells(line)).rstrip(" ")
        self.refresh()

    def clear_selection(self) -> None:
        self.set_selection(None)

    def selected_text(self) -> str:
        if self.selection is None:
            return ""
        return sel.span_text(self.lines(), self.selection)

    def _check_selection(self) -> None:
        """New output in the selected rows cancels the selection."""
        src = self.lines()
        history = src.history_size
        for line, text in self._selection_text.items():
            if line >= history and "".join(src.cells(line)).rstrip(" ") != text:
                self.clear_selection()
                return

    # -- mouse ---------------------------------------------------------------------------

    def on_mouse_down(self, event: events.MouseDown) -> None:
        self._pointer.down(event)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._pointer.move(event)

    def on_mouse_up(self, event: events.MouseUp) -> None:
        self._pointer.up(event)

    def on_click(self, event: events.Click) -> None:
        self._pointer.click(event)

    def open_link_at(self, line: int, col: int) -> bool:
        """Post `OpenLink` for the hyperlink at absolute (line, col); False when none is there."""
        link = link_at(self.pane.model_view, line, col)
        if link is None:
            return False
        self.post_message(self.OpenLink(self, link.uri))
        return True

    def copy_selection(self) -> None:
        """Post the selected text as a `CopyRequest` (nothing when none is selected)."""
        text = self.selected_text()
        if text:
            self.post_message(self.CopyRequest(self, text))
