"""Child exits noticed when they happen: one pidfd per pane's child, on the loop.

SIGCHLD alone is not enough: a process has one handler for it, and another
event loop in the process (a thread's, a test's, the web relay's) may hold it,
leaving only the engine's 1 s tick; and a child whose jobs keep its PTY open
gives no EOF either. A pidfd (Linux 5.3+, `os.pidfd_open`) turns readable the
moment its process exits, whoever owns SIGCHLD, so the reap runs at once. It
is one-shot here: once it fired, the reap decides (a pane whose last output is
still being parsed is reaped again when the pump has parsed it).

Where pidfds are missing (another kernel, another OS) nothing is watched and
the engine's SIGCHLD handler and tick remain the way exits are found.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable

from zirv_dash.panes.pane import Pane

_pidfd_open: Callable[[int], int] | None = getattr(os, "pidfd_open", None)


class ChildWatch:
    def __init__(self, loop: asyncio.AbstractEventLoop, on_exit: Callable[[], None]) -> None:
        self._loop = loop
        self._on_exit = on_exit
        self._fds: dict[object, int] = {}
        """pidfd by the PTY session it watches (a handover gives a pane another)."""

    @staticmethod
    def available() -> bool:
        return _pidfd_open is not None

    def watching(self, pane: Pane) -> bool:
        return pane.pty is not None and pane.pty in self._fds

    def watch(self, pane: Pane) -> None:
        """Watch `pane`'s child (once per child; nothing for a pane without one)."""
        pty = pane.pty
        if _pidfd_open is None or pty is None or pty in self._fds:
            return
        if pane.exit_code is not None or pty.exit_code is not None:
            return  # its exit is known (a reaped pid may already be another process's)
        try:
            fd = _pidfd_open(pty.pid)
        except ProcessLookupError:
            self._loop.call_soon(self._on_exit)  # already gone (and reaped): reap now
            return
        except OSError:
            return  # e.g. ENOSYS on an old kernel: the signal and the tick remain
        os.set_inheritable(fd, False)
        self._fds[pty] = fd
        self._loop.add_reader(fd, self._fired, pty)

    def forget(self, pane: Pane) -> None:
        if pane.pty is not None:
            self._release(pane.pty)

    def close(self) -> None:
        for key in list(self._fds):
            self._release(key)

    def _fired(self, key: object) -> None:
        self._release(key)
        self._on_exit()

    def _release(self, key: object) -> None:
        fd = self._fds.pop(key, None)
        if fd is None:
            return
        with contextlib.suppress(ValueError, OSError):
            self._loop.remove_reader(fd)
        with contextlib.suppress(OSError):
            os.close(fd)
