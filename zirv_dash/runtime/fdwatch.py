"""Readers and writers on the event loop, each removed only by its owner.

A closed fd's number is reused by the next PTY opened, so the table remembers
which object added each fd: a late removal by a finished pane can never take
away the reader of the pane that now has that number.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable


class FdWatch:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._readers: dict[int, object] = {}
        self._writers: dict[int, object] = {}

    def reading(self, fd: int) -> bool:
        return fd in self._readers

    def reads_for(self, fd: int, owner: object) -> bool:
        """Whether `owner`'s reader on `fd` is installed."""
        return self._readers.get(fd) is owner

    def writing(self, fd: int) -> bool:
        return fd in self._writers

    def add_reader(self, fd: int, owner: object, callback: Callable[[], None]) -> None:
        if fd in self._readers:
            return
        self._loop.add_reader(fd, callback)
        self._readers[fd] = owner

    def add_writer(self, fd: int, owner: object, callback: Callable[[], None]) -> None:
        if fd in self._writers:
            return
        self._loop.add_writer(fd, callback)
        self._writers[fd] = owner

    def remove_reader(self, fd: int, owner: object) -> None:
        if self._readers.get(fd) is not owner:
            return  # not ours (any more): the number now belongs to another pane
        del self._readers[fd]
        with contextlib.suppress(ValueError, OSError):
            self._loop.remove_reader(fd)

    def remove_writer(self, fd: int, owner: object) -> None:
        if self._writers.get(fd) is not owner:
            return
        del self._writers[fd]
        with contextlib.suppress(ValueError, OSError):
            self._loop.remove_writer(fd)

    def close(self) -> None:
        """Remove every reader and writer (the engine is closing)."""
        for fd, owner in list(self._readers.items()):
            self.remove_reader(fd, owner)
        for fd, owner in list(self._writers.items()):
            self.remove_writer(fd, owner)
