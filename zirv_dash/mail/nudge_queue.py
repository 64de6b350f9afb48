"""Operator nudges waiting for a pane: ``<state>/nudges/<short>/<seq>.txt``.

A nudge typed in the dashboard (`Ctrl+A n`) that cannot be delivered at once
(the pane is working, shows an approval dialog or any needs-you latch) waits
here, not only in memory, so a dashboard killed with -9 and restarted still
delivers it to the restored pane (same session, same short id) at its next
idle boundary. A file is removed once its text has been typed. Like mail, it
lives outside the session registry: a stale record swept at restart must not
take the waiting text with it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from zirv_dash import paths, safeio
from zirv_dash.panes.session_record import valid_short

NUDGE_FILE_CAP = 64 * 1024
"""A nudge is a note, not a document; a bigger file is not one of ours."""
SUFFIX = ".txt"


@dataclass(frozen=True)
class QueuedNudge:
    text: str
    path: Path | None = None
    """Its file, or None when it could not be written (it then waits in memory only)."""


def queue_dir(short: str) -> Path:
    if not valid_short(short):  # the same check as every sibling file
        raise ValueError(f"not a session short id: {short!r}")
    return paths.state_dir() / "nudges" / short


def enqueue(short: str, text: str) -> Path:
    """Store `text` for pane `short` (0600, atomic); OSError if it cannot be."""
    directory = paths.ensure_private_dir(queue_dir(short))
    # Names sort in arrival order: nanoseconds first, a random tail so two
    # nudges in one tick never collide.
    path = directory / f"{time.time_ns():020d}-{os.urandom(3).hex()}{SUFFIX}"
    paths.atomic_write(path, text.encode("utf-8")[:NUDGE_FILE_CAP])
    return path


def pending(short: str) -> list[QueuedNudge]:
    """The nudges waiting for pane `short`, oldest first (unreadable files skipped)."""
    directory = queue_dir(short)
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(SUFFIX) and n[0] != ".")
    except OSError:
        return []
    found = []
    for name in names:
        path = directory / name
        try:
            raw = safeio.read_bounded(path, NUDGE_FILE_CAP)
        except OSError:
            continue
        if raw:
            found.append(QueuedNudge(raw.decode("utf-8", errors="replace"), path))
    return found


def remove(item: QueuedNudge) -> None:
    """Forget a delivered (or undeliverable) nudge; the directory goes when empty."""
    if item.path is None:
        return
    try:
        item.path.unlink(missing_ok=True)
        item.path.parent.rmdir()
    except OSError:
        pass  # not empty yet, or already gone
