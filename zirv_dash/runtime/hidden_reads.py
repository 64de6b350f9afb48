"""Hidden panes left unread while a key or chord is on its way.

Their children then block on a full tty, as on a slow terminal, so flooding
neighbours stop competing for the CPU (and the loop stops copying their output)
while what the user just typed is echoed and drawn. Nothing is lost or
reordered: the bytes wait in the kernel until the panes are read again.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zirv_dash.panes.pane import Pane
    from zirv_dash.runtime.fdwatch import FdWatch


class HiddenReads:
    def __init__(self) -> None:
        self.paused: set[Pane] = set()
        """Panes whose PTY reader was taken off (or not put on) during the pause."""
        self.until = 0.0
        """Monotonic end of the pause (0: not paused)."""

    def holds(self, pane: Pane, focused: Pane | None) -> bool:
        """Whether `pane` must stay unread now; if so it is read again on resume."""
        now = time.monotonic()
        if pane is focused or now >= self.until or pane.pty is None:
            return False  # (a pane with no PTY has no reader to leave off)
        self._hold(pane, now)
        return True

    def _hold(self, pane: Pane, now: float) -> None:
        self.paused.add(pane)
        # Its quiet is ours from now on: its state must not be judged on it.
        pane.tracker.hold(now)

    def release(self, pane: Pane) -> None:
        """`pane` is read again (or never will be): its state follows its output."""
        if pane not in self.paused:
            return
        self.paused.discard(pane)
        if pane.pty is not None and pane.pty.unread() > 0:
            # Its state waits for those bytes: work, or a redraw for our resize.
            pane.release_after_read()
        else:
            pane.tracker.release(time.monotonic())

    def pause(self, fds: FdWatch, panes: list[Pane], focused: Pane | None, until: float) -> None:
        """Take every reader but the focused pane's off until `until`."""
        self.until = max(self.until, until)
        for pane in panes:
            pty, fd = pane.pty, pane.fd
            if pane is focused or pty is None or fd is None or not fds.reads_for(fd, pty):
                continue
            fds.remove_reader(fd, pty)
            self._hold(pane, time.monotonic())

    def resume(self) -> list[Pane]:
        """End the pause: the panes to watch again (still running, not over their
        inbox's high-water mark)."""
        self.until = 0.0
        paused = list(self.paused)
        for pane in paused:
            self.release(pane)
        return [p for p in paused if p.exit_code is None and p.wants_read]
