"""Recursive directory watching with Linux inotify, read from an event loop.

`watchfiles` runs a thread that wakes every `step` milliseconds to look at its
stop flag and its queue, whether or not anything changed. inotify instead hands
the kernel a list of directories and gives back one file descriptor that turns
readable when something under them changes: registered with `loop.add_reader`,
it costs nothing while the state directories are quiet.

Only what the watcher needs: every directory under the roots is watched (new
subdirectories as they appear, their contents reported as changed since they
may have been filled before the watch was added), a queue overflow reports
"everything may have changed", and a root that vanishes stops being watched.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import struct
from pathlib import Path

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
)
HEADER = struct.Struct("iIII")  # wd, mask, cookie, len
READ_SIZE = 64 * 1024
MAX_DEPTH = 16
"""State directories are shallow; a deeper tree is not walked further (and a
symlink loop cannot make the walk endless)."""


class InotifyUnavailable(OSError):
    """No inotify here (not Linux, no libc symbol, or the limits are used up)."""


class Overflow(Exception):
    """The kernel dropped events: anything under the roots may have changed."""


def _libc() -> ctypes.CDLL:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6", use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError) as exc:
        raise InotifyUnavailable(f"inotify: {exc}") from exc
    return libc


class TreeWatch:
    """inotify watches on every directory under some roots; `fd` for a loop's reader."""

    def __init__(self, roots: list[Path]) -> None:
        self._libc = _libc()
        fd = self._libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            err = ctypes.get_errno()
            raise InotifyUnavailable(err, f"inotify_init1: {os.strerror(err)}")
        self.fd: int = fd
        self._paths: dict[int, str] = {}
        try:
            for root in roots:
                self._add_tree(str(root), depth=0, found=None)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        self._paths.clear()

    def _add(self, path: str) -> bool:
        wd = self._libc.inotify_add_watch(self.fd, os.fsencode(path), MASK)
        if wd < 0:
            err = ctypes.get_errno()
            if err in (errno.ENOENT, errno.ENOTDIR, errno.EACCES):
                return False  # gone again, or not ours to read: nothing to watch
            raise InotifyUnavailable(err, f"inotify_add_watch {path}: {os.strerror(err)}")
        self._paths[wd] = path
        return True

    def _add_tree(self, path: str, depth: int, found: list[str] | None) -> None:
        """Watch `path` and the directories under it. With `found`, every entry
        seen is appended to it: a new directory may have been filled before its
        watch existed, and those files count as changed."""
        if not self._add(path) or depth >= MAX_DEPTH:
            return
        try:
            entries = list(os.scandir(path))
        except OSError:
            return
        for entry in entries:
            if found is not None:
                found.append(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                self._add_tree(entry.path, depth + 1, found)

    def read(self) -> list[str]:
        """The paths changed since the last read (may be empty); raises Overflow."""
        changed: list[str] = []
        overflow = False
        while True:
            try:
                data = os.read(self.fd, READ_SIZE)
            except BlockingIOError:
                break
            if not data:
                break
            overflow = self._parse(data, changed) or overflow
        if overflow:
            raise Overflow()
        return changed

    def _parse(self, data: bytes, changed: list[str]) -> bool:
        offset = 0
        overflow = False
        while offset + HEADER.size <= len(data):
            wd, mask, _cookie, length = HEADER.unpack_from(data, offset)
            offset += HEADER.size
            raw = data[offset : offset + length].split(b"\0", 1)[0]
            offset += length
            if mask & IN_Q_OVERFLOW:
                overflow = True
                continue
            if mask & IN_IGNORED:
                self._paths.pop(wd, None)  # its directory is gone
                continue
            base = self._paths.get(wd)
            if base is None:
                continue
            path = os.path.join(base, os.fsdecode(raw)) if raw else base
            changed.append(path)
            if mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO):
                self._add_tree(path, depth=0, found=changed)
        return overflow
