"""An incremental, bounded reader of a growing JSONL file: only appended bytes are parsed.

A reader keeps its byte offset between calls and reads at most `chunk_bytes` per
call, so a 2 GB transcript costs one bounded read per refresh, never a stall. A
last line without its newline (the harness is still writing it) is kept and
completed by a later read. A line longer than the chunk can never complete in
bounded memory: it is dropped up to its newline and counted as malformed, like a
line that is not a JSON object.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHUNK_BYTES = 4 * 1024 * 1024


@dataclass
class JsonlTail:
    path: Path
    chunk_bytes: int = CHUNK_BYTES
    offset: int = 0
    """Bytes of the file consumed so far (complete lines plus the kept torn tail)."""
    malformed: int = 0
    lines: int = 0
    """Complete lines seen (parsed or malformed)."""
    _torn: bytes = field(default=b"", repr=False)
    _skipping: bool = field(default=False, repr=False)
    _identity: tuple[int, int] | None = field(default=None, repr=False)

    def at_end(self) -> bool:
        """True when everything the file held at the last read has been consumed."""
        try:
            return self.offset >= os.stat(self.path).st_size
        except OSError:
            return True

    def read(self) -> list[dict[str, Any]]:
        """The JSON objects on lines appended since the last call (one bounded chunk).

        Raises OSError when the file cannot be opened. A file that was replaced or
        truncated (a rewrite, not an append) is read again from the start."""
        flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
        fd = os.open(self.path, flags)
        try:
            st = os.fstat(fd)
            self._restart_if_rewritten(st)
            if st.st_size <= self.offset:
                return []
            os.lseek(fd, self.offset, os.SEEK_SET)
            data = os.read(fd, min(self.chunk_bytes, st.st_size - self.offset))
        finally:
            os.close(fd)
        self.offset += len(data)
        return list(self._objects(data))

    def _restart_if_rewritten(self, st: os.stat_result) -> None:
        identity = (st.st_dev, st.st_ino)
        if self._identity is not None and (identity != self._identity or st.st_size < self.offset):
            self.offset, self._torn, self._skipping = 0, b"", False
        self._identity = identity

    def _objects(self, data: bytes) -> Iterator[dict[str, Any]]:
        buffer = self._torn + data
        self._torn = b""
        start = 0
        while True:
            end = buffer.find(b"\n", start)
            if end < 0:
                break
            line = buffer[start:end]
            start = end + 1
            if self._skipping:
                self._skipping = False  # the rest of an over-long line
                continue
            obj = self._parse(line)
            if obj is not None:
                yield obj
        rest = buffer[start:]
        if len(rest) >= self.chunk_bytes:
            # Could never complete within one chunk: drop it, skip to its newline.
            if not self._skipping:
                self.malformed += 1
                self.lines += 1
            self._skipping = True
        elif not self._skipping:
            self._torn = rest

    def _parse(self, line: bytes) -> dict[str, Any] | None:
        if not line.strip():
            return None
        self.lines += 1
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            self.malformed += 1
            return None
        if not isinstance(obj, dict):
            self.malformed += 1
            return None
        return obj
