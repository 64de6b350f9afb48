"""Telling a child's redraw after our own resize from real work.

Pure (the caller passes the times), so the pane and tests share it.
"""

from __future__ import annotations

REPAINT_WINDOW = 1.5
"""Seconds after we resize a pane during which its output may be a repaint."""
REPAINT_BYTES_PER_CELL = 24
"""A full redraw with colours costs at most about this much per cell."""
REPAINT_SLACK = 4096
STILL_DRAWING = 0.5
"""Seconds: output this soon after the last work is more of it, even right
after our resize (a spinner ticks faster; a finished agent is quiet longer)."""


class RepaintFilter:
    """Tells a child's redraw after *our* resize (its SIGWINCH) from work.

    Output counts as a repaint only while all of these hold: it comes within
    `REPAINT_WINDOW` of the last resize we sent, the pane had already drawn
    something before it, no operator input came after the resize, it does not
    scroll lines into the history (a redraw rewrites the screen in place), it
    stays within about one full screen of bytes. The first output that breaks
    any of them is work, and so is everything after it until the next resize.
    Apart from those: output moments after the child's last work is more of it
    (a spinner ticking on through our resize), without ending the window, so the
    redraw that may follow it is still a redraw.
    """

    def __init__(self) -> None:
        self._until = float("-inf")
        self._budget = 0

    def resized(self, t: float, columns: int, rows: int) -> None:
        self._until = t + REPAINT_WINDOW
        self._budget = columns * rows * REPAINT_BYTES_PER_CELL + REPAINT_SLACK

    def redrawing(self, t: float) -> bool:
        """Is output at `t` still taken for the redraw after our resize (the
        window open, no work or operator input since)? The screens it draws
        meanwhile are half-drawn frames of the child's own state."""
        return t <= self._until

    def input(self, t: float) -> None:
        """Operator input: what follows may be the child's answer to it."""
        self._until = float("-inf")

    def is_repaint(
        self, t: float, nbytes: int, scrolled: bool, last_work: float | None = None
    ) -> bool:
        """`last_work`: when the child last wrote output that counted as work."""
        if t > self._until or scrolled or nbytes > self._budget:
            self._until = float("-inf")
            return False
        self._budget -= nbytes
        # More of the work it was doing; a redraw may still follow it.
        return last_work is None or t - last_work >= STILL_DRAWING
