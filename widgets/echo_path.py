"""An echo drawn at once: a few changed rows of a pane written to the glass now.

Textual paints a change on its screen's next update: the widget's refresh posts
a prompt to itself, its idle handler marks it on the screen, the screen's idle
handler resumes its update timer, and the timer's callback renders every dirty
widget through the compositor. For an echoed key that chain is most of the time
from the byte arriving to the glyph on the glass (about 1 ms of 2, measured
with `bench/latency.py`'s harness). Here the rows the key changed are rendered
by the view itself (the same strips the compositor would take from it) and
written straight away through the app's own `_display`, so the real cursor is
placed and the frame is synchronised as for any other update; the driver sends
it as one write, past its output thread when that is idle
(`screens.direct_writer`).

Only where that is exactly what the compositor would draw: the view's screen
is on top, no layout is pending, the view is unclipped and has no gutter, and
on every row drawn nothing is in front of it (a toast, a tooltip, a layer).
Anything else (a flood, a scrolled view, a selection) takes Textual's path.
The rows stay marked for repaint, so the next ordinary update, and the frame
an overlay is drawn over, have them too.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from textual._compositor import CompositorUpdate
from textual.geometry import Region
from textual.strip import Strip

if TYPE_CHECKING:
    from textual.widget import Widget

MAX_ROWS = 4
"""More changed rows than this is output, not an echo: Textual's update paints it."""


class RowsUpdate(CompositorUpdate):
    """Whole-width rows of one widget, each at its screen position."""

    def __init__(self, rows: list[tuple[int, int, Strip]]) -> None:
        self.rows = rows
        """(x, y, strip) per row, in screen cells."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for x, y, strip in self.rows:
            yield Segment(_move_to(x, y))
            yield from strip

    def render_segments(self, console: Console) -> str:
        return "".join(_move_to(x, y) + strip.render(console) for x, y, strip in self.rows)


def _move_to(x: int, y: int) -> str:
    return f"\x1b[{y + 1};{x + 1}H"


def draw_rows_now(view: Widget, rows: Iterable[int]) -> bool:
    """Write `rows` (the view's own row numbers) of `view` to the glass now.

    False, drawing nothing, where Textual's compositor would draw something
    else there; the caller then refreshes the rows as usual."""
    wanted = list(rows)
    if not wanted or len(wanted) > MAX_ROWS:
        return False  # checked before anything else: a flooding pane gets here every frame
    wanted.sort()
    app = view.app
    screen = view.screen
    if app.is_headless or app._driver is None or app._batch_count or screen is not app.screen:
        return False
    if screen._layout_required or screen._scroll_required or screen._recompose_required:
        return False
    compositor = screen._compositor
    place = compositor.visible_widgets.get(view)
    if place is None:
        return False
    region, clip = place
    if region.intersection(clip) != region or view.content_region != region:
        return False
    if wanted[0] < 0 or wanted[-1] >= region.height:
        return False
    if not _in_front(view, region, wanted, compositor.layers_visible):
        return False
    placed = []
    for row in wanted:
        line = Region(0, row, region.width, 1)
        view._set_dirty(line)  # the styles cache renders it anew; the next update repaints it
        placed.append((region.x, region.y + row, view.render_lines(line)[0]))
    at_once = getattr(app._driver, "at_once", None)
    if at_once is None:
        app._display(screen, RowsUpdate(placed))
    else:
        with at_once():  # one write, past the output thread when it is idle
            app._display(screen, RowsUpdate(placed))
    return True


def _in_front(
    view: Widget,
    region: Region,
    rows: list[int],
    layers: list[list[tuple[Widget, Region, Region]]],
) -> bool:
    """Whether, on each of `rows`, `view` is the front-most widget across its width."""
    left, right = region.x, region.right
    for row in rows:
        y = region.y + row
        if y >= len(layers):
            return False
        for widget, shown, _ in layers[y]:  # front to back, as `get_widget_at` reads it
            if shown.x < right and shown.right > left and widget.visible:
                if widget is not view or shown.x > left or shown.right < right:
                    return False
                break
        else:
            return False
    return True
