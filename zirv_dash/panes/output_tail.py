"""Pass a child's output through to where it was going, keeping its last bytes.

An inline `zirv agent` run writes its worker's output straight to the terminal,
so at the end nothing remembers what the worker said. `OutputTee` sits between
the PTY pump and that fd (a pipe and one thread): every byte still goes out, in
order, and the newest `KEEP_BYTES` are kept so the run's report can carry the
same "last screen lines" a dashboard pane's report carries.
"""

from __future__ import annotations

import collections
import contextlib
import os
import select
import threading
from collections.abc import Callable

from zirv_dash.terminal import TerminalModel

KEEP_BYTES = 64 * 1024
READ_CHUNK = 65536
JOIN_SECS = 5.0


class OutputTee:
    def __init__(self, target_fd: int) -> None:
        self.target_fd = target_fd
        self._read_fd, self.fd = os.pipe()
        self._kept: collections.deque[bytes] = collections.deque()
        self._kept_len = 0
        self.listener: Callable[[bytes], None] | None = None
        """Also given each chunk, on the tee's thread (a watch of the screen)."""
        self._thread = threading.Thread(target=self._run, name="output-tee", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        forward = True
        while True:
            try:
                data = os.read(self._read_fd, READ_CHUNK)
            except OSError:
                return
            if not data:
                return
            self._keep(data)
            listener = self.listener
            if listener is not None:
                listener(data)
            if forward:
                forward = self._forward(data)

    def _keep(self, data: bytes) -> None:
        self._kept.append(data)
        self._kept_len += len(data)
        while self._kept_len - len(self._kept[0]) >= KEEP_BYTES:
            self._kept_len -= len(self._kept.popleft())

    def _forward(self, data: bytes) -> bool:
        """Write all of `data` on; False once nobody reads the target any more."""
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.target_fd, view)
            except BlockingIOError:
                select.select([], [self.target_fd], [], 1.0)
                continue
            except OSError:
                return False  # nobody reads it (EPIPE) or it is gone; keep the tail
            view = view[n:]
        return True

    def close(self) -> None:
        """End of output: everything written so far reaches the target first."""
        with contextlib.suppress(OSError):
            os.close(self.fd)
        self._thread.join(JOIN_SECS)
        with contextlib.suppress(OSError):
            os.close(self._read_fd)

    def kept(self) -> bytes:
        return b"".join(self._kept)[-KEEP_BYTES:]

    def tail(self, columns: int = 120, rows: int = 40, lines: int = 20, cap: int = 2048) -> str:
        """The last non-blank lines of what the output drew, at most `cap` bytes."""
        model = TerminalModel(max(20, columns), max(5, rows))
        model.feed(self.kept())
        history = [model.history_text(i) for i in range(model.history_size)]
        shown = [line.rstrip() for line in history + model.lines()]
        while shown and not shown[-1].strip():
            shown.pop()
        text = "\n".join(shown[-lines:])
        data = text.encode("utf-8")
        if len(data) > cap:
            text = data[-cap:].decode("utf-8", "ignore")
        return text
