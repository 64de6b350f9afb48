"""Nudge markers: ``<state>/sessions/<short>.nudge`` wakes a session early.

The marker holds only the sender's short id; the message itself always travels
as durable mail, stored *before* the marker is written, so losing a wake-up
never loses the message. A supervisor claims its marker by reading and deleting
it. Claiming renames the marker to a private name first, so when two claimers
race exactly one of them wins.
"""

from __future__ import annotations

import os
from pathlib import Path

from zirv_dash import paths, safeio
from zirv_dash.panes import registry

UNKNOWN_SENDER = "unknown"
MARKER_READ_CAP = 256
"""Only the first line (a short id) is ever needed; a bigger marker is read no further."""


def marker_path(short: str) -> Path:
    return registry.sibling_path(short, ".nudge")


def write_marker(short: str, sender: str) -> Path:
    """Write (or overwrite) the marker for `short`, naming `sender`."""
    path = marker_path(short)
    paths.atomic_write(path, _clean_sender(sender) + "\n")
    return path


def has_marker(short: str) -> bool:
    return marker_path(short).exists()


def claim_marker(short: str) -> str | None:
    """Take the marker for `short`: the sender's short id, or None if there is none.

    An empty or unreadable marker (older builds wrote empty files) reads as
    ``"unknown"``. Only one of several concurrent claimers gets a value.
    """
    path = marker_path(short)
    # os.urandom, not secrets: the same bytes, without importing hmac and hashlib
    # into every `zirv ctx send`.
    claimed = path.with_name(f".{path.name}.claim-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        os.rename(path, claimed)
    except FileNotFoundError:
        return None
    except OSError:
        return None
    try:
        # Bounded, non-blocking, never through a symlink: a FIFO or a device
        # planted as a marker reads as "unknown" instead of hanging the sweep.
        raw = safeio.read_bounded(claimed, MARKER_READ_CAP, head=True) or b""
    except OSError:
        raw = b""
    finally:
        try:
            claimed.unlink()
        except OSError:
            pass
    return _parse_sender(raw)


def _parse_sender(raw: bytes) -> str:
    """The sender named in a marker; anything but a plain id reads as unknown."""
    text = raw.decode("ascii", errors="replace").strip()
    first = text.splitlines()[0].strip() if text else ""
    if first and len(first) <= 64 and all(ch.isalnum() or ch in "-_." for ch in first):
        return first
    return UNKNOWN_SENDER


def _clean_sender(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return "".join(ch for ch in first if ch.isascii() and (ch.isalnum() or ch in "-_."))[:64]
