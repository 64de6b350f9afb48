"""Textual's output thread, and a way past it for an echo.

Textual's driver hands every write to a thread, so a terminal that stops
reading (a stalled SSH link, XOFF, a suspended terminal) never blocks the event
loop. The cost is a thread hop per frame: the glyph waits until the loop lets
go of the GIL, which after an echo is drawn (`widgets.echo_path`) can be the
rest of that loop turn, a millisecond or more (`bench/latency.py`).

`DirectWriter` is that thread, counting what it has not yet written. When it
has nothing in flight, `write_now` writes from the calling thread at once, in
order with every earlier write (none is pending), through a second, non-
blocking descriptor of the same terminal (its own open file description, so
the one the terminal shares with the shell is never made non-blocking): the
loop is never blocked. What the terminal does not take at once goes to the
thread, first in its queue. Anything else is queued as before.
"""

from __future__ import annotations

import os
import threading
from queue import Queue
from typing import IO

from textual.drivers._writer_thread import MAX_QUEUED_WRITES, WriterThread

DIRECT_LIMIT = 4096
"""Largest write sent from the caller's thread (characters)."""


def open_nonblocking(file: IO[str]) -> int | None:
    """A non-blocking descriptor writing where `file` does (a terminal), None
    where there is none to be had (not a terminal, no /proc)."""
    try:
        fd = file.fileno()
        if not os.isatty(fd):
            return None
        return os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except (OSError, ValueError):
        return None


class DirectWriter(WriterThread):
    def __init__(self, file: IO[str]) -> None:
        # Textual's fields, with a queue that also takes bytes (the rest of a
        # direct write the terminal did not take at once).
        threading.Thread.__init__(self, daemon=True, name="textual-output")
        self._file = file
        self._items: Queue[str | bytes | None] = Queue(MAX_QUEUED_WRITES)
        self._lock = threading.Lock()
        self._in_flight = 0
        """Items queued and not yet written and flushed by the thread."""
        self._direct_fd = open_nonblocking(file)
        self.direct_writes = 0

    def write(self, text: str) -> None:
        self._put(text)

    def _put(self, item: str | bytes) -> None:
        with self._lock:
            self._in_flight += 1
        self._items.put(item)

    def write_now(self, text: str) -> bool:
        """Write `text` from this thread if nothing is in flight; False (nothing
        written) when it must be queued instead."""
        fd = self._direct_fd
        if fd is None or len(text) > DIRECT_LIMIT:
            return False
        file = self._file
        encoding = getattr(file, "encoding", None) or "utf-8"
        data = text.encode(encoding, getattr(file, "errors", None) or "strict")
        with self._lock:
            if self._in_flight:
                return False
            try:
                taken = os.write(fd, data)
            except OSError:
                return False  # full (EAGAIN), or gone: the thread writes it, or reports it
            self.direct_writes += 1
        # The kernel hands what a pty's program wrote to its terminal from a
        # worker that runs on this CPU: the loop going straight on to other
        # work (the update Textual has due) kept the echo off the glass until
        # it was done (`bench/latency.py`: p99 3.7 -> 2.4 ms). Let it run first.
        os.sched_yield()
        if taken < len(data):
            self._put(data[taken:])
        return True

    def run(self) -> None:
        # Textual's loop (flush when the queue is empty), counting what is done.
        file, items = self._file, self._items
        done = 0
        while True:
            item = items.get()
            if item is None:
                break
            if isinstance(item, bytes):
                file.flush()  # the text before it, then the bytes themselves
                raw: IO[bytes] = file.buffer  # type: ignore[attr-defined]
                raw.write(item)
            else:
                file.write(item)
            done += 1
            if items.qsize() == 0:
                file.flush()
                with self._lock:
                    self._in_flight -= done
                done = 0
        file.flush()

    def stop(self) -> None:
        self._items.put(None)
        self.join()
        if self._direct_fd is not None:
            os.close(self._direct_fd)
            self._direct_fd = None
