"""The runtime's namespace record: `<state>/runtime/default.json`.

It says which process serves this state dir (pid *and* start time), which
instance (minted fresh at every start, so a crashed runtime's identities are
never republished by its successor), the protocol version, the endpoint
(relative to the state dir) and when it was created and last had a client.

Staleness is decided by process start identity, never by pid alone: a live pid
whose start time differs from the record's is a recycled pid, and the record
is stale. A record whose process cannot be verified (no start time known for a
live pid) is left alone rather than seized. The state dir's lock (see
`server.claim`) is what keeps two runtimes apart; this record is what others
read to learn who the runtime is.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
import uuid
from pathlib import Path
from typing import Literal

import msgspec

from zirv_dash import paths, records
from zirv_dash.panes import procinfo
from zirv_dash.session.endpoint import SOCKET_NAME
from zirv_dash.session.protocol import PROTOCOL_VERSION

log = logging.getLogger("zirv.session.identity")

RECORD_CAP = 4096
Standing = Literal["live", "stale", "unverifiable"]


class RuntimeRecord(records.Record, frozen=True):
    pid: int
    instance: str
    start_time: float | None = None
    version: int = PROTOCOL_VERSION
    endpoint: str = f"s/{SOCKET_NAME}"
    created_at: float = 0.0
    last_client_at: float | None = None


def record_path(state: Path | None = None) -> Path:
    return (state or paths.state_dir()) / "runtime" / "default.json"


def standing(record: RuntimeRecord) -> Standing:
    """`live` (that very process runs), `stale` (gone, or its pid recycled) or
    `unverifiable` (a live pid whose start time cannot be compared)."""
    if not procinfo.pid_exists(record.pid):
        return "stale"
    actual = procinfo.process_start_time(record.pid)
    if record.start_time is None or actual is None:
        return "unverifiable"
    if abs(actual - record.start_time) > procinfo.START_TIME_TOLERANCE_SECS:
        return "stale"
    return "live"


def read(state: Path | None = None) -> RuntimeRecord | None:
    """The record, or None when absent or unreadable (a broken file is logged)."""
    path = record_path(state)
    try:
        return records.read(RuntimeRecord, path, RECORD_CAP)
    except (OSError, records.RecordError) as exc:
        log.warning("runtime record: %s", exc)
        return None


class Identity:
    """This runtime's record: published at start, touched per client, removed at stop."""

    def __init__(self, state: Path | None = None) -> None:
        self.path = record_path(state)
        pid = os.getpid()
        self.record = RuntimeRecord(
            pid=pid,
            instance=uuid.uuid4().hex,
            start_time=procinfo.process_start_time(pid),
            created_at=round(time.time(), 3),
        )
        self.published = False

    def publish(self) -> bool:
        """Write our record over an absent or stale one; a live or unverifiable
        record of another process is left alone. True if ours is published."""
        earlier = read(self.path.parent.parent)
        if earlier is not None and earlier.pid != self.record.pid:
            found = standing(earlier)
            if found != "stale":
                log.warning("runtime record names pid %d (%s); left alone", earlier.pid, found)
                return False
            log.info("replacing the stale runtime record of pid %d", earlier.pid)
        paths.ensure_private_dir(self.path.parent)
        records.write(self.path, self.record)
        self.published = True
        return True

    def client_seen(self) -> None:
        if not self.published:
            return
        self.record = msgspec.structs.replace(self.record, last_client_at=round(time.time(), 3))
        with contextlib.suppress(OSError):
            records.write(self.path, self.record)

    def withdraw(self) -> None:
        if not self.published:
            return
        current = read(self.path.parent.parent)
        if current is not None and current.instance == self.record.instance:
            with contextlib.suppress(OSError):
                self.path.unlink()
        self.published = False
