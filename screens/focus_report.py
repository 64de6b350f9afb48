"""Focus reporting (DEC mode 1004) to the panes' children.

A child that set `?1004` is told `CSI I` when its pane gains the focus and
`CSI O` when it loses it, as a terminal tells it when its window does. A
pane has the focus when it is the dashboard's focused pane, zirv's own
window has the terminal's focus (Textual's AppFocus/AppBlur, from the outer
terminal's own 1004 reports) and no overlay (a dialog, copy mode, the grid)
covers the dashboard. Each change sends at most one report to each of the
two panes concerned; a pane that did not ask hears nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from zirv_dash.panes.pane import Pane

FOCUS_IN = b"\x1b[I"
FOCUS_OUT = b"\x1b[O"


class FocusReporter:
    def __init__(self, pane_of: Callable[[str], Pane | None]) -> None:
        self._pane_of = pane_of
        self._focused: str | None = None
        self._window = True
        self._covered = False
        self._reported: str | None = None
        """The pane last told it has the focus (None: none is)."""

    def pane(self, short: str | None) -> None:
        self._focused = short
        self._update()

    def window(self, focused: bool) -> None:
        self._window = focused
        self._update()

    def covered(self, covered: bool) -> None:
        self._covered = covered
        self._update()

    @property
    def holder(self) -> str | None:
        """The pane that has the focus now."""
        return self._focused if self._window and not self._covered else None

    def _update(self) -> None:
        now = self.holder
        before, self._reported = self._reported, now
        if now == before:
            return
        for short, report in ((before, FOCUS_OUT), (now, FOCUS_IN)):
            pane = self._pane_of(short) if short is not None else None
            if pane is not None and pane.model_view.focus_events:
                pane.report(report)
