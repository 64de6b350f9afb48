"""One remote pane's output on its way into the pane's socket (remote/terminal.py).

Frames are written in order; what the socket cannot take now waits (the engine
reads the pane like a PTY, and a pane it leaves unread fills the socket), and
the loop writes the rest when the socket is writable again. Past
`MAX_BUFFERED` waiting the host link repaints the pane from the session's
current screen instead of keeping more.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque

from zirv_dash.remote.pane import RemotePane
from zirv_dash.session.protocol import Output

MAX_BUFFERED = 4 * 1024 * 1024
"""Output waiting for a pane that reads slowly: past this it is dropped and the
pane repainted from the session's current screen instead."""


class Feed:
    def __init__(self, pane: RemotePane, loop: asyncio.AbstractEventLoop) -> None:
        self.pane = pane
        self.loop = loop
        self.waiting: deque[bytes] = deque()
        self.size = 0
        self.painting = False
        """A repaint is on its way: frames are held until it is written."""
        self.held: list[Output] = []

    def write(self, data: bytes) -> None:
        if data:
            self.waiting.append(data)
            self.size += len(data)
        self.flush()

    def clear(self) -> None:
        self.waiting.clear()
        self.size = 0

    def flush(self) -> None:
        far = self.pane.remote.far
        while self.waiting:
            chunk = self.waiting[0]
            try:
                sent = far.send(chunk)
            except BlockingIOError:
                self.loop.add_writer(far.fileno(), self._writable)
                return
            except OSError:  # the pane is gone
                self.clear()
                return
            self.size -= sent
            if sent < len(chunk):
                self.waiting[0] = chunk[sent:]
            else:
                self.waiting.popleft()

    def _writable(self) -> None:
        with contextlib.suppress(ValueError, OSError):
            self.loop.remove_writer(self.pane.remote.far.fileno())
        self.flush()
