"""How an inline `zirv agent` run ends when nobody is at a terminal.

With a terminal the operator drives the worker and ends it. Without one
(`</dev/null`, CI, a closed stdin) nothing will ever type `/quit`, so the run
ends on the agent's turn signal: the same datagram a dashboard pane gets
(`turn_signal`), bound for the inline session. A caller that pipes input is
scripting the session and keeps driving it: a turn signal only ends the run
when no input byte has ever arrived.

`InputTap` copies our stdin to the child through a pipe so we know whether any
input came; `HeadlessEnd` binds the socket and stops the child's process group
on the first turn signal that ends the run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from pathlib import Path

from zirv_dash.attention.turn_signal import TurnSignalError, TurnSignalServer, TurnWatch


def headless(stdin_fd: int = 0) -> bool:
    """True when stdin is not a terminal (or not open at all)."""
    try:
        return not os.isatty(stdin_fd)
    except OSError:
        return True


class InputTap:
    """Forwards `source` into a pipe (`fd` is its read end) and counts the bytes."""

    def __init__(self, source: int = 0) -> None:
        self.source = source
        self.seen = 0
        self.fd, self._write = os.pipe()
        self._thread = threading.Thread(target=self._run, name="stdin-tap", daemon=True)

    def start(self) -> InputTap:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            while True:
                try:
                    data = os.read(self.source, 65536)
                except OSError:
                    data = b""
                if not data:
                    return
                self.seen += len(data)
                view = memoryview(data)
                while view:
                    view = view[os.write(self._write, view) :]
        except OSError:
            return  # the child side is gone; nothing more to forward
        finally:
            with contextlib.suppress(OSError):
                os.close(self._write)

    def close(self) -> None:
        # The thread may be blocked reading a silent stdin; it is a daemon and
        # owns only the write end, so just close the read end.
        with contextlib.suppress(OSError):
            os.close(self.fd)


class HeadlessEnd:
    """The turn-signal socket of one inline session and what its signal does."""

    def __init__(self, socket_path: Path, tap: InputTap) -> None:
        self.tap = tap
        self.pid: int | None = None
        self.ended = False
        self.server: TurnSignalServer | None = None
        self.watch: TurnWatch | None = None
        self.problem: str | None = None
        try:
            self.server = TurnSignalServer.bind(socket_path)
        except (TurnSignalError, OSError) as exc:
            self.problem = str(exc)

    @property
    def socket_path(self) -> str | None:
        return str(self.server.path) if self.server is not None else None

    def started(self, pid: int) -> None:
        self.pid = pid
        if self.server is not None and self.watch is None:
            self.watch = TurnWatch(self.server, self._on_stop).start()

    def _on_stop(self) -> None:
        if self.ended or self.tap.seen or self.pid is None:
            return  # scripted input: the caller drives the session
        self.ended = True
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGTERM)  # the child leads its own session

    def close(self) -> None:
        if self.watch is not None:
            self.watch.close()
        elif self.server is not None:
            self.server.close()
