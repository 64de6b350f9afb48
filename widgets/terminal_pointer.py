"""The mouse over a pane's view: drag selection (scrolling at the edges) and reports to the child.

The dashboard owns left-drag selection in every pane, even over apps that asked
for mouse reports; a left click without a drag, and middle and right buttons,
are passed to a child that wants the mouse (in its encoding). Double-click
selects a word, triple-click a line. Ctrl+click on a hyperlink (OSC 8) asks to
open it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from zirv_dash import keys as keycodes
from zirv_dash.dash import selection as sel

if TYPE_CHECKING:
    from textual import events
    from textual.geometry import Size
    from textual.timer import Timer

    from zirv_dash.panes.pane import Pane

DRAG_THRESHOLD_CELLS = 1
"""A press becomes a drag once the pointer moved more than this on either axis."""
AUTOSCROLL_INTERVAL = 0.05

Press = tuple[int, int, int, int, int]
"""(button, view x, view y, line, col) of the button held down."""


class PointerHost(Protocol):
    """What the pointer uses of its view (a `TerminalView`)."""

    pane: Pane

    @property
    def size(self) -> Size: ...
    def top_line(self) -> int: ...
    def view_offset(self) -> int: ...
    def lines(self) -> sel.ModelLines: ...
    def set_selection(self, span: sel.Span | None) -> None: ...
    def clear_selection(self) -> None: ...
    def copy_selection(self) -> None: ...
    def open_link_at(self, line: int, col: int) -> bool: ...
    def full_refresh(self) -> None: ...
    def capture_mouse(self, capture: bool = True) -> None: ...
    def release_mouse(self) -> None: ...
    def set_interval(self, interval: float, callback: Callable[[], Any] | None = None) -> Timer: ...


class Pointer:
    """One view's mouse: what a press, a move, a release and a click mean."""

    def __init__(self, view: PointerHost, send: Callable[[bytes, bool], None]) -> None:
        self._view = view
        self._send = send
        self._press: Press | None = None
        self._dragging = False
        self._drag_pointer: tuple[int, int] = (0, 0)
        self._last_was_drag = False
        self._autoscroll: Timer | None = None

    def cell(self, x: int, y: int) -> tuple[int, int]:
        """The absolute (line, col) under view cell (x, y), clamped into the pane."""
        view = self._view
        model = view.pane.model_view
        height = min(view.size.height, model.rows) or 1
        y = max(0, min(y, height - 1))
        x = max(0, min(x, model.columns - 1))
        return (view.top_line() + y, x)

    def _wants_mouse(self) -> bool:
        return bool(self._view.pane.model_view.mouse_tracking) and self._view.view_offset() == 0

    def _report(self, button: int, x: int, y: int, press: bool, event: events.MouseEvent) -> None:
        model = self._view.pane.model_view
        column = max(1, min(x + 1, model.columns))
        row = max(1, min(y + 1, model.rows))
        self._send(
            keycodes.encode_mouse(
                button,
                column,
                row,
                press=press,
                encoding=model.mouse_encoding,
                shift=event.shift,
                alt=event.meta,
                ctrl=event.ctrl,
            ),
            False,
        )

    # -- events --------------------------------------------------------------------------

    def down(self, event: events.MouseDown) -> None:
        event.stop()
        self._view.capture_mouse()
        line, col = self.cell(event.x, event.y)
        if event.button == 1 and event.ctrl and self._view.open_link_at(line, col):
            return  # Ctrl+click on a hyperlink: asks to open it, nothing else
        self._press = (event.button, event.x, event.y, line, col)
        if event.button == 1:
            self._dragging = False
            self._view.clear_selection()
        elif event.button in (2, 3) and self._wants_mouse():
            self._report(event.button - 1, event.x, event.y, True, event)

    def move(self, event: events.MouseMove) -> None:
        press = self._press
        if press is None or press[0] != 1:
            return
        event.stop()
        self._drag_pointer = (event.x, event.y)
        if not self._dragging:
            moved = max(abs(event.x - press[1]), abs(event.y - press[2]))
            if moved <= DRAG_THRESHOLD_CELLS:
                return
            self._dragging = True
        self._drag_to(event.x, event.y)

    def up(self, event: events.MouseUp) -> None:
        press = self._press
        self._press = None
        self._view.release_mouse()
        self._stop_autoscroll()
        if press is None:
            return
        event.stop()
        button = press[0]
        self._last_was_drag = False
        if button == 1 and self._dragging:
            self._dragging = False
            self._last_was_drag = True
            self._select_to(press, event.x, event.y)
            self._view.copy_selection()
        elif button == 1:
            # A plain click: the child sees an ordinary click where it happened.
            if self._wants_mouse():
                self._report(0, press[1], press[2], True, event)
                self._report(0, press[1], press[2], False, event)
        elif button in (2, 3) and self._wants_mouse():
            self._report(button - 1, event.x, event.y, False, event)

    def click(self, event: events.Click) -> None:
        event.stop()
        if event.button != 1 or event.chain < 2 or self._last_was_drag:
            return
        src = self._view.lines()
        line, col = self.cell(event.x, event.y)
        if event.chain == 2:
            span = sel.word_at(src, (line, col))
        else:
            span = sel.line_at(src, line)
        self._view.set_selection(span)
        self._view.copy_selection()

    # -- dragging ------------------------------------------------------------------------

    def _drag_to(self, x: int, y: int) -> None:
        if self._press is None:
            return
        height = min(self._view.size.height, self._view.pane.model_view.rows)
        outside = y < 0 or y >= height
        if y < 0:
            self._autoscroll_step(1)
        elif y >= height:
            self._autoscroll_step(-1)
        if outside and self._autoscroll is None:
            self._autoscroll = self._view.set_interval(AUTOSCROLL_INTERVAL, self._autoscroll_tick)
        elif not outside and self._autoscroll is not None:
            self._autoscroll.stop()
            self._autoscroll = None
        self._select_to(self._press, x, y)

    def _select_to(self, press: Press, x: int, y: int) -> None:
        """Select from the pressed cell to the cell under (x, y), clamped into view."""
        anchor = (press[3], press[4])
        self._view.set_selection(sel.drag_span(self._view.lines(), anchor, self.cell(x, y)))

    def _autoscroll_step(self, lines: int) -> None:
        before = self._view.pane.scroll_offset
        if self._view.pane.scroll_by(lines) != before:
            self._view.full_refresh()

    def _autoscroll_tick(self) -> None:
        if self._press is None or not self._dragging:
            self._stop_autoscroll()
            return
        self._drag_to(*self._drag_pointer)

    def _stop_autoscroll(self) -> None:
        if self._autoscroll is not None:
            self._autoscroll.stop()
            self._autoscroll = None
