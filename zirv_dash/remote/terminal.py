"""A remote session as a pane's terminal: what a `PtySession` is to a local pane.

The engine reads and writes a pane's terminal through one fd. For a remote
session that fd is one end of a socketpair: the host link (remote/hostlink.py)
writes the session's output frames into the other end and sends what the
engine writes there (keys, pastes, query replies) to the remote runtime as
`session.send_input`. Everything the engine does with a pane's output (the
pump, back-pressure, hidden reads, the terminal model) is then the same code for
a remote pane as for a local one.

What is about processes is not local: there is no local pid (`pid` is -1 and
no signal is ever sent here); a stop asks the remote runtime to run its own
termination ladder (`session.stop`); the exit code is the one its
`session_exited` event reports.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Callable

from zirv_dash.panes.ptysession import PtySession

NO_PID = -1
"""Never a process here: signalling it is refused by the kernel and never tried."""
SOCKET_BUFFER = 256 * 1024


class RemoteTerminal(PtySession):
    """The pane's end of a remote session's byte stream (see the module doc)."""

    def __init__(
        self,
        session_id: str,
        columns: int,
        rows: int,
        *,
        on_resize: Callable[[int, int], None],
        on_stop: Callable[[], None],
    ) -> None:
        # No process to spawn: PtySession's fields, set here by hand.
        ours, theirs = socket.socketpair()
        for end in (ours, theirs):
            end.setblocking(False)
            with contextlib.suppress(OSError):
                end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_BUFFER)
                end.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SOCKET_BUFFER)
        self._ours = ours
        self.far = theirs
        """The host link's end: output frames are written into it, keys read from it."""
        self.session_id = session_id
        self.argv: list[str] = []
        self.pid = NO_PID
        self.fd = ours.fileno()
        self._pending = bytearray()
        self.exit_code: int | None = None
        self._eof = False
        self._closed = False
        self.columns = columns
        self.rows = rows
        self.started_at = time.time()
        self.stopped = False
        self._start_time: float | None = None
        self._on_resize = on_resize
        self._on_stop = on_stop
        self._stop_asked = False

    # -- what the remote runtime says --------------------------------------------------------

    def ended(self, code: int | None) -> None:
        """The remote session exited (`code`, or 0 when it did not say)."""
        if self.exit_code is None:
            self.exit_code = 0 if code is None else code
            with contextlib.suppress(OSError):
                self.far.shutdown(socket.SHUT_WR)  # the pane reads EOF after the last bytes

    # -- what a PtySession does with processes, done remotely ---------------------------------

    def poll(self) -> int | None:
        return self.exit_code

    def session_members(self) -> list[int]:
        # Nothing of it runs here; while the remote session lives, one "member"
        # stands for it so a ladder waits for the remote runtime's own.
        return [] if self.exit_code is not None else [NO_PID]

    def signal_group(self, sig: int) -> None:
        """Any signal is a stop request: the remote runtime runs its own ladder."""
        if self.exit_code is None and not self._stop_asked:
            self._stop_asked = True
            self.stopped = True
            self._on_stop()

    def kill_now(self) -> None:
        self.signal_group(0)

    def leader_in_foreground(self) -> bool:
        return False

    def resize(self, columns: int, rows: int) -> None:
        columns, rows = max(1, columns), max(1, rows)
        if (columns, rows) == (self.columns, self.rows):
            return
        self.columns, self.rows = columns, rows
        if self.exit_code is None:
            self._on_resize(columns, rows)

    def finish(self) -> None:
        self._eof = True
        if not self._closed:
            self._closed = True
            # `fd` keeps its number: owners use it to remove their reader.
            self._ours.close()
            with contextlib.suppress(OSError):
                self.far.close()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):
            self._closed = True
            with contextlib.suppress(OSError):
                self._ours.close()
                self.far.close()
