"""Writing a whole buffer to a file descriptor, blocking or not."""

from __future__ import annotations

import os
import select


def write_all(fd: int, data: bytes) -> None:
    """Write all of `data` to `fd`. `os.write` may take part of it (a pipe or a
    terminal that is full); a non-blocking descriptor that is full is waited on
    until it takes more, so nothing is dropped. Other errors are the caller's."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            select.select([], [fd], [], 1.0)
            continue
        view = view[written:]
