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
    from zirv_dash.pane import Pane
    from zirv_dash.runtime.fdwatch import FdWatch


class HiddenReads:
    def __init__(self) -> None:
        self.paused: set[Pane] = set()
        """Panes whose PTY reader was taken off (or not put on) during the pause."""
        self.until = 0.0
        """Monotonic end of the pause (0: not paused)."""

    def holds(self, pane: Pane, focused: Pane | None) -> bool:
        """Whether `pane` must stay unread now; if so it is read again on resume."""
        if pane is focused or time.monotonic() >= self.until:
            return False
        self.paused.add(pane)
        return True

    def pause(self, fds: FdWatch, panes: list[Pane], focused: Pane | None, until: float) -> None:
        """Take every reader but the focused pane's off until `until`."""
        self.until = max(self.until, until)
        for pane in panes:
            pty, fd = pane.pty, pane.fd
            if pane is focused or pty is None or fd is None or not fds.reads_for(fd, pty):
                continue
            fds.remove_reader(fd, pty)
            self.paused.add(pane)

    def resume(self) -> list[Pane]:
        """End the pause: the panes to watch again (still running, not over their
        inbox's high-water mark)."""
        self.until = 0.0
        paused, self.paused = self.paused, set()
        return [p for p in paused if p.exit_code is None and p.wants_read]
