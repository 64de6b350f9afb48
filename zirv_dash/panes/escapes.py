"""Processes that left a pane's session (setsid, a daemon) and so outlive it.

Quit and the guard end every process of every pane's session. A process that
starts a session of its own is out of reach of that rule by its own choice (a
daemon, a `setsid` job); we do not hunt it down, but we never lose track of it
silently either. Every pane child carries its pane's ZIRV_CTX_SESSION and what
it starts inherits it, so such a process is found by that mark wherever it was
reparented. Whoever finds one (the dashboard, or the guard just before it ends
the sessions of a dashboard that was killed) records it as one small file under
`<state>/escaped/`. `listed()` gives the ones
still running (pid and start time must both match), for `zirv ctx status` and
the next launch to show; records of processes that ended are removed.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from zirv_dash import paths
from zirv_dash.panes import procinfo

RECORD_MAX_BYTES = 4096
LIST_MAX = 200


@dataclass(frozen=True)
class Escaped:
    pid: int
    start_time: float | None
    command: str
    left: str
    """Which session it left (a pane's short id or the leader's pid)."""
    found_at: float


def _table() -> dict[int, int]:
    """pid → session of every live (non-zombie) process."""
    table: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        try:
            if fields[0] not in (b"Z", b"X"):
                table[int(name)] = int(fields[3])
        except (IndexError, ValueError):
            continue
    return table


def find(
    sessions: Iterable[int], session_ids: Iterable[str], exclude: Iterable[int] = ()
) -> list[tuple[int, str]]:
    """(pid, pane session id) of processes outside the PTY `sessions` that carry
    one of the panes' `session_ids` in their environment (every pane child gets
    ZIRV_CTX_SESSION, and what it starts inherits it): they left by setsid or a
    daemon's double fork, wherever they were reparented."""
    wanted = set(sessions)
    ids = {value for value in session_ids if value}
    skip = set(exclude) | {os.getpid()}
    own_sid = os.getsid(0)
    found: list[tuple[int, str]] = []
    if not ids:
        return found
    for pid, sid in _table().items():
        if pid in skip or sid in wanted or sid == own_sid:
            continue
        session = pane_session(pid)
        if session in ids:
            found.append((pid, session))
    return found


SESSION_VAR = b"ZIRV_CTX_SESSION="


def pane_session(pid: int) -> str | None:
    """The pane session id a process inherited (every pane child gets one)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = handle.read(1 << 20)
    except OSError:
        return None
    for item in environ.split(b"\0"):
        if item.startswith(SESSION_VAR):
            return item[len(SESSION_VAR) :].decode("utf-8", "replace") or None
    return None


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            raw = handle.read(512)
    except OSError:
        return "?"
    return raw.replace(b"\0", b" ").decode("utf-8", "replace").strip() or "?"


def record(directory: Path, pid: int, left: str) -> Escaped | None:
    """Write a record for `pid` (once); the record, or None if it is gone."""
    start = procinfo.process_start_time(pid)
    path = directory / f"{pid}-{int(start or 0)}.json"
    if path.exists():
        return None
    entry = Escaped(pid, start, _command(pid)[:200], left, time.time())
    try:
        paths.atomic_write(path, json.dumps(entry.__dict__))
    except OSError:
        return None
    return entry


def listed(directory: Path) -> list[Escaped]:
    """Recorded processes still running; records of ended ones are removed."""
    out: list[Escaped] = []
    try:
        names = sorted(os.listdir(directory))[:LIST_MAX]
    except OSError:
        return out
    for name in names:
        if not name.endswith(".json") or name.startswith("."):
            continue
        path = directory / name
        entry = _load(path)
        if entry is None or not procinfo.is_same_process(entry.pid, entry.start_time):
            with contextlib.suppress(OSError):
                path.unlink()
            continue
        out.append(entry)
    return out


def _load(path: Path) -> Escaped | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            data = json.loads(handle.read(RECORD_MAX_BYTES))
        start = data.get("start_time")
        return Escaped(
            int(data["pid"]),
            float(start) if start is not None else None,
            str(data.get("command", "?")),
            str(data.get("left", "?")),
            float(data.get("found_at", 0.0)),
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def note(directory: Path, found: Iterable[tuple[int, str]]) -> list[Escaped]:
    """Record each (pid, pane session id) found; the records that are new."""
    new = []
    for pid, session in found:
        entry = record(directory, pid, paths.short_id(session))
        if entry is not None:
            new.append(entry)
    return new


def describe(entry: Escaped) -> str:
    return f"pid {entry.pid} ({entry.command[:60]}) left session {entry.left}"


SUMMARY_SHOWN = 3


def outlived_summary(entries: list[Escaped]) -> str:
    """The one error a launch shows for processes an earlier dashboard left
    running: its count once, in proper number (`1 process … its own session`)."""
    count = len(entries)
    shown = "; ".join(describe(e) for e in entries[:SUMMARY_SHOWN])
    more = f" and {count - SUMMARY_SHOWN} more" if count > SUMMARY_SHOWN else ""
    who = (
        "1 process started its own session"
        if count == 1
        else (f"{count} processes started their own sessions")
    )
    return f"{who} and outlived an earlier dashboard: {shown}{more} (`zirv ctx status` lists them)"
