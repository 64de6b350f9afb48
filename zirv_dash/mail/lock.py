"""The mailbox lock: one writer (or consumer) at a time in a mailbox.

Deciding whether a note fits (`[mail] keep`), choosing its name and moving a
consumed message to ``read/`` each look at the directory and then change it;
two processes doing that at once could both see room for one more (100
concurrent sends with `keep = 50` stored 73) or both pick a name. They take an
exclusive `flock` on ``<mailbox>/.lock`` around the look-then-change, so each
sees what the one before it did. The lock is the kernel's: a holder that dies
releases it, and a stuck holder is waited for only `LOCK_WAIT_SECS`.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from zirv_dash.mail.format import MailError

LOCK_NAME = ".lock"
LOCK_WAIT_SECS = 10.0
"""How long a store waits for the mailbox before it is refused as busy (every
holder does a few file operations; only a stopped process holds it longer)."""


class MailboxBusy(MailError, OSError):
    """The lock was not had in time: a MailError to a sender, and the OSError a
    reader that consumes mail already expects from the file system."""


class MailboxLock:
    """`with MailboxLock(box):` holds the mailbox's lock (not re-entrant: code
    that runs under it calls the unlocked helpers)."""

    def __init__(self, box: Path, wait_secs: float = LOCK_WAIT_SECS) -> None:
        self._path = box / LOCK_NAME
        self._wait = wait_secs
        self._fd = -1

    def __enter__(self) -> MailboxLock:
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(self._path, flags, 0o600)
        deadline = time.monotonic() + self._wait
        pause = 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise MailboxBusy(
                        f"{self._path.parent}: the mailbox stayed busy for {self._wait:.0f} s "
                        "(another process holds its lock); nothing was changed"
                    ) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.02)
            except OSError:
                break  # no flock on this filesystem: carry on unlocked, as before
        self._fd = fd
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing the descriptor releases the lock
            self._fd = -1
