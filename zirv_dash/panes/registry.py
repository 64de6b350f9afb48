"""The session registry: one JSON record per live supervised session.

Every pane (and the wrapped single-pane session) writes
``<state>/sessions/<short>.json`` while it runs, in the upstream zirv format, so
``zirv ctx status`` / ``send --to-session`` / ``nudge`` from either CLI can
address it. Records are written atomically (0600 in a 0700 tree) and removed on
exit; a reader that finds a record whose process is gone (pid *and* start time,
so a reused pid is not mistaken for the session) sweeps it and its sibling
files.

A reader never crashes on a bad file and never deletes one it cannot parse: a
garbage record is reported and left alone for a human to look at.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from zirv_dash import paths, records, safeio
from zirv_dash.panes import procinfo
from zirv_dash.panes.session_record import SessionRecord, valid_short

__all__ = [
    "MIN_PREFIX",
    "RECORD_FILE_CAP",
    "SIBLING_SUFFIXES",
    "VERBS",
    "Liveness",
    "RecordError",
    "ResolveError",
    "SessionRecord",
    "describe",
    "is_alive",
    "list_sessions",
    "live_sessions",
    "liveness",
    "orphan_sockets",
    "read_record",
    "record_path",
    "register",
    "resolve_prefix",
    "sessions_dir",
    "sibling_path",
    "socket_listening",
    "socket_path",
    "sockets_dir",
    "unregister",
]

log = logging.getLogger(__name__)

Liveness = Literal["live", "stale", "unreachable"]

VERBS = ("exec", "loop", "wrap", "chat", "dash")
SIBLING_SUFFIXES = (".nudge", ".screening", ".workflow", ".context")
"""Sibling files removed with a record (and swept when their record is gone)."""
MIN_PREFIX = 4
"""Shortest prefix `resolve_prefix` accepts, unless it is a whole short id."""
RECORD_FILE_CAP = 64 * 1024
"""A record is a few hundred bytes; anything past this is not one of ours."""

RecordError = records.RecordError
"""A registry file that cannot be read as a session record (names file and field)."""


class ResolveError(LookupError):
    """A session prefix that does not name exactly one live session.

    `kind` is ``"too-short"``, ``"not-found"`` or ``"ambiguous"``; `candidates`
    are the records the message lists (the matches, or every live session).
    """

    def __init__(self, message: str, kind: str, candidates: list[SessionRecord]) -> None:
        super().__init__(message)
        self.kind = kind
        self.candidates = candidates


def _check_short(short: str) -> str:
    if not valid_short(short):
        raise ValueError(f"not a session short id: {short!r} (expected ASCII letters and digits)")
    return short


# --- locations ---------------------------------------------------------------


def sessions_dir() -> Path:
    return paths.ensure_private_dir(paths.state_dir() / "sessions")


def record_path(short: str) -> Path:
    return sessions_dir() / f"{_check_short(short)}.json"


def sibling_path(short: str, suffix: str) -> Path:
    return sessions_dir() / f"{_check_short(short)}{suffix}"


def sockets_dir() -> Path:
    return paths.ensure_private_dir(paths.state_dir() / "s")


def socket_path(short: str) -> Path:
    """Where the session's turn-signal socket lives: ``<state>/s/<short>.sock``."""
    return sockets_dir() / f"{_check_short(short)}.sock"


# --- writing -----------------------------------------------------------------


def register(record: SessionRecord) -> Path:
    """Write (or rewrite) the record atomically; returns its path."""
    path = record_path(record.short)
    text = json.dumps(record.to_json(), indent=2, sort_keys=False) + "\n"
    paths.atomic_write(path, text)
    return path


def unregister(short: str) -> None:
    """Remove the record and its sibling files; missing files are fine."""
    _remove_quietly(record_path(short))
    for suffix in SIBLING_SUFFIXES:
        _remove_quietly(sibling_path(short, suffix))


def _remove_quietly(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        log.warning("could not remove %s: %s", path, exc)


# --- reading -----------------------------------------------------------------


def read_record(path: Path) -> SessionRecord:
    """Parse one record file; raises RecordError naming the file and problem."""
    try:
        data = safeio.read_json(path, RECORD_FILE_CAP, max_depth=16)
    except (OSError, safeio.BadContent) as exc:
        raise RecordError(str(exc)) from exc
    if data is None:
        raise RecordError(f"{path}: gone")
    record = SessionRecord.from_json(data, source=str(path))
    if record.short != path.stem:
        raise RecordError(f"{path}: record says short id {record.short!r}, file name differs")
    return record


def is_alive(record: SessionRecord) -> bool:
    """The recorded process still runs (same pid *and* start time)."""
    return procinfo.is_same_process(record.pid, record.start_time)


def liveness(record: SessionRecord) -> Liveness:
    """`live`, `stale` (process gone) or `unreachable` (alive, no turn-signal socket)."""
    if not is_alive(record):
        return "stale"
    if not record.reachable:
        return "unreachable"
    return "live"


def list_sessions(sweep: bool = True, problems: list[str] | None = None) -> list[SessionRecord]:
    """Every readable record, sorted by start time (oldest first).

    With `sweep`, records whose process is gone are removed from disk with their
    sibling files, and orphaned siblings are removed too; the swept records are
    still returned this once (so `status` can report them a final time as
    `stale`). Unreadable or garbage files are skipped, described in `problems`
    (and the log), and never deleted.
    """
    directory = sessions_dir()
    records: list[SessionRecord] = []
    seen: set[str] = set()
    try:
        entries = sorted(directory.iterdir())
    except OSError as exc:
        _problem(problems, f"cannot list {directory}: {exc}")
        return []
    for path in entries:
        if path.name.startswith(".") or path.suffix != ".json":
            continue
        seen.add(path.stem)
        try:
            record = read_record(path)
        except RecordError as exc:
            _problem(problems, f"skipped session record {exc}")
            continue
        records.append(record)
        if sweep and not is_alive(record):
            _sweep_record(path, record)
    if sweep:
        _sweep_orphan_siblings(directory, seen)
        paths.sweep_temp_files(directory)
    records.sort(key=lambda r: (r.started_at, r.short))
    return records


def live_sessions(problems: list[str] | None = None) -> list[SessionRecord]:
    """Records whose process is running (after a sweep)."""
    return [r for r in list_sessions(sweep=True, problems=problems) if is_alive(r)]


def _problem(problems: list[str] | None, message: str) -> None:
    # A caller that collects problems reports them itself; otherwise log them.
    if problems is not None:
        problems.append(message)
    else:
        log.warning("%s", message)


def _sweep_record(path: Path, record: SessionRecord) -> None:
    # Re-check just before deleting: the owner may have re-registered the same
    # short id (a rollover keeps it) with a new pid since we read the file.
    try:
        current = read_record(path)
    except RecordError:
        return
    if current.pid != record.pid or is_alive(current):
        return
    log.info("sweeping stale session record %s (pid %d gone)", record.short, record.pid)
    unregister(record.short)
    sock = socket_path(record.short)
    if sock.exists() and not socket_listening(sock):
        _remove_quietly(sock)


def _sweep_orphan_siblings(directory: Path, shorts_with_records: set[str]) -> None:
    try:
        entries = list(directory.iterdir())
    except OSError:
        return
    for path in entries:
        if path.name.startswith(".") or path.suffix not in SIBLING_SUFFIXES:
            continue
        if path.stem in shorts_with_records or (directory / f"{path.stem}.json").exists():
            continue
        log.info("sweeping orphaned %s", path.name)
        _remove_quietly(path)


def orphan_sockets(records: Iterable[SessionRecord], sweep: bool = True) -> list[Path]:
    """Sockets under ``<state>/s/`` with no record that still have a listener.

    These are sessions of an older zirv that predates the registry; `status`
    lists them as ``(no record)``. With `sweep`, dead sockets with no record
    (nobody listening) are removed.
    """
    known = {r.short for r in records}
    found: list[Path] = []
    directory = sockets_dir()
    try:
        entries = sorted(directory.iterdir())
    except OSError:
        return []
    for path in entries:
        if path.suffix != ".sock" or path.stem in known:
            continue
        if (directory.parent / "sessions" / f"{path.stem}.json").exists():
            continue
        if socket_listening(path):
            found.append(path)
        elif sweep:
            _remove_quietly(path)
    return found


def socket_listening(path: Path) -> bool:
    """True if something is bound to the unix socket at `path`."""
    # Imported here: its socket and hmac modules are not needed by the many
    # short CLIs that only read records.
    from zirv_dash.attention import turn_signal

    return turn_signal.listening(path)


# --- addressing --------------------------------------------------------------


def describe(record: SessionRecord) -> str:
    return f"{record.short} ({record.agent} {record.verb}, pid {record.pid})"


def resolve_prefix(
    prefix: str,
    records: list[SessionRecord] | None = None,
    *,
    min_len: int = MIN_PREFIX,
) -> SessionRecord:
    """The one live session `prefix` names (a short id or session id prefix).

    A prefix shorter than `min_len` is accepted only if it is a whole short id.
    Raises ResolveError with the candidates listed otherwise.
    """
    if records is None:
        records = live_sessions()
    wanted = prefix.strip().lower()
    if not wanted:
        raise ResolveError("no session given; " + _listing(records), "too-short", list(records))
    exact = [r for r in records if r.short.lower() == wanted or r.session.lower() == wanted]
    if len(exact) == 1:
        return exact[0]
    if len(wanted) < min_len and not exact:
        raise ResolveError(
            f"session prefix {prefix!r} is too short: give at least {min_len} characters "
            f"or a whole short id; " + _listing(records),
            "too-short",
            list(records),
        )
    matches = exact or [
        r
        for r in records
        if r.short.lower().startswith(wanted) or r.session.lower().startswith(wanted)
    ]
    if not matches:
        raise ResolveError(
            f"no live session matches {prefix!r}; " + _listing(records), "not-found", list(records)
        )
    if len(matches) > 1:
        names = ", ".join(describe(r) for r in matches)
        raise ResolveError(
            f"session prefix {prefix!r} is ambiguous: it matches {names}; give more characters",
            "ambiguous",
            matches,
        )
    return matches[0]


def _listing(records: list[SessionRecord]) -> str:
    if not records:
        return "there are no live sessions (see `zirv ctx status`)"
    return "live sessions: " + ", ".join(describe(r) for r in records)
