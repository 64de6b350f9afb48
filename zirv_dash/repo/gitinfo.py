"""A directory's git branch, read from `.git/HEAD` without running git.

Cheap enough for the UI thread (the inspector asks on a key press): a few
small reads, no subprocess. Linked worktrees are followed: there `.git` is a
file `gitdir: <path>` naming the worktree's own git directory, whose `HEAD`
holds that worktree's branch. Every read is bounded, refuses symlinks and
anything that is not a regular file (a FIFO would block), and a problem of any
kind reads as "unknown" (None), never an exception.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

READ_CAP = 4096
"""Bytes read from `.git` / `HEAD` (both are one short line)."""
MAX_LEVELS = 64
"""Parent directories searched for `.git` before giving up."""
_REF_PREFIX = "ref: refs/heads/"


def _read_small(path: Path) -> str | None:
    """A regular file's first READ_CAP bytes as text, or None (symlink, FIFO, missing)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, READ_CAP)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data.decode("utf-8", "replace")


def git_dir(start: Path) -> Path | None:
    """The git directory for `start` (a worktree's own one), or None outside git."""
    here = Path(os.path.abspath(start))
    for candidate in [here, *here.parents][:MAX_LEVELS]:
        dot = candidate / ".git"
        try:
            st = dot.lstat()
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            return dot
        if stat.S_ISREG(st.st_mode):
            text = _read_small(dot) or ""
            line = text.splitlines()[0].strip() if text.strip() else ""
            if not line.startswith("gitdir:"):
                return None
            target = Path(line[len("gitdir:") :].strip())
            return target if target.is_absolute() else candidate / target
        return None  # a symlinked or odd `.git`: not followed
    return None


def branch(start: Path | str | None) -> str | None:
    """`main`, `detached at 1a2b3c4`, or None when unknown (not git, unreadable)."""
    if not start:
        return None
    found = git_dir(Path(start))
    if found is None:
        return None
    head = _read_small(found / "HEAD")
    if head is None or not head.strip():
        return None
    line = head.splitlines()[0].strip()
    if line.startswith(_REF_PREFIX):
        name = line[len(_REF_PREFIX) :]
        return "".join(ch if ch.isprintable() else "?" for ch in name)[:200] or None
    if len(line) >= 7 and all(ch in "0123456789abcdef" for ch in line.lower()):
        return f"detached at {line[:7]}"
    return None
