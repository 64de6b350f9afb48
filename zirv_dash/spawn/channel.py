"""The spawn-request channel on disk: token dirs, owner liveness, sweeping, file names.

Upstream-compatible layout (inventory §5.1):

    <state>/dash/<dash_short>-<token16>/owner.pid       the dashboard's pid (mtime = start)
    <state>/dash/<dash_short>-<token16>/requests/       the shared channel (proves nothing)
    <state>/dash/<dash_short>-<token16>/p-<token16>/    one private channel per pane

A requester writes ``req-<uuid>.json`` atomically; the dashboard claims it by
renaming it to ``claim-req-<uuid>`` and answers ``ack-req-<uuid>.json``.
Everything read here is untrusted: size-capped and never followed through a
symlink.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import stat
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zirv_dash import paths
from zirv_dash.panes import procinfo
from zirv_dash.spawn.protocol import MAX_REQUEST_BYTES

log = logging.getLogger("zirv_dash.spawn")

DASH_DIR = "dash"
REQUESTS_DIR = "requests"
OWNER_PID = "owner.pid"
PID_REUSE_SLACK_SECS = 60.0
LEFTOVER_MAX_AGE_SECS = 300.0
"""Acks nobody collected, abandoned temp files and orphaned claims older than
this are pruned from a channel."""
STALE_GRACE_SECS = 30.0
"""A token dir without a readable owner.pid is only swept once it is this old
(another dashboard may be between mkdir and writing its pid)."""

# `\A…\Z`, never `^…$`: `$` also matches before a trailing newline.
TOKEN_DIR_RE = re.compile(r"\A([A-Za-z0-9]{1,8})-([0-9a-f]{16})\Z")
PANE_CHANNEL_RE = re.compile(r"\Ap-[0-9a-f]{16}\Z")
REQ_ID_RE = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")


def dash_root(state: Path) -> Path:
    return state / DASH_DIR


def new_token() -> str:
    return uuid.uuid4().hex[:16]


def read_owner_pid(token_dir: Path) -> int | None:
    """The pid in `token_dir/owner.pid`, or None when missing or garbage."""
    data = _read_small(token_dir / OWNER_PID, 64)
    if data is None:
        return None
    try:
        pid = int(data.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        return None
    return pid if pid > 0 else None


def owner_alive(token_dir: Path) -> int | None:
    """The owner pid if the dashboard that owns `token_dir` is alive, else None.

    The owner.pid mtime is the dashboard's start time: a live process that
    started clearly *after* it (by more than `PID_REUSE_SLACK_SECS`, generous so
    a clock step never condemns a live dashboard) is a reused pid, so the
    owner is dead.
    """
    pid = read_owner_pid(token_dir)
    if pid is None or not procinfo.pid_exists(pid):
        return None
    started = procinfo.process_start_time(pid)
    try:
        written = (token_dir / OWNER_PID).stat().st_mtime
    except OSError:
        return None
    if started is not None and started > written + PID_REUSE_SLACK_SECS:
        return None
    return pid


@dataclass
class DashChannel:
    """One dashboard launch's token dir."""

    root: Path
    dash_short: str

    @property
    def requests(self) -> Path:
        """The shared channel."""
        return self.root / REQUESTS_DIR

    @classmethod
    def create(cls, state: Path, dash_short: str, pid: int | None = None) -> DashChannel:
        """Create `<state>/dash/<dash_short>-<token16>/` with owner.pid and requests/.

        The dir is assembled under a hidden name and renamed into place, so no
        reader ever sees a token dir without its owner.pid.
        """
        short = paths.short_id(dash_short) or "dash0000"
        parent = paths.ensure_private_dir(dash_root(state))
        while True:
            final = parent / f"{short}-{new_token()}"
            if not final.exists():
                break
        staging = parent / f".{final.name}.tmp-{uuid.uuid4().hex}"
        paths.ensure_private_dir(staging)
        paths.ensure_private_dir(staging / REQUESTS_DIR)
        paths.atomic_write(staging / OWNER_PID, f"{pid if pid is not None else os.getpid()}\n")
        os.rename(staging, final)
        return cls(final, short)

    def mint_pane_channel(self) -> Path:
        """A fresh private channel for one pane (`p-<token16>/`)."""
        while True:
            path = self.root / f"p-{new_token()}"
            try:
                path.mkdir(mode=0o700)
            except FileExistsError:
                continue
            return path

    def pane_channels(self) -> list[Path]:
        try:
            entries = list(self.root.iterdir())
        except OSError:
            return []
        return sorted(p for p in entries if PANE_CHANNEL_RE.match(p.name) and is_real_dir(p))

    def channels(self) -> list[Path]:
        """Every channel to sweep: the shared one first, then each pane's."""
        return [self.requests, *self.pane_channels()]

    def remove(self) -> None:
        """Delete the whole token dir (clean quit)."""
        remove_tree(self.root)


def sweep_stale_token_dirs(state: Path, now: float | None = None) -> list[Path]:
    """Delete token dirs whose owner is dead; never a live one. Returns what was removed."""
    root = dash_root(state)
    removed: list[Path] = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    moment = time.time() if now is None else now
    for entry in entries:
        staging = entry.name.startswith(".") and ".tmp-" in entry.name
        if not (TOKEN_DIR_RE.match(entry.name) or staging):
            continue
        try:
            st = entry.lstat()
        except OSError:
            continue
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
            continue
        if owner_alive(entry) is not None:
            continue
        if read_owner_pid(entry) is None and moment - st.st_mtime < STALE_GRACE_SECS:
            continue
        remove_tree(entry)
        removed.append(entry)
        log.info("swept stale dashboard channel %s", entry)
    return removed


def is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


def remove_tree(path: Path) -> None:
    try:
        if path.is_symlink() or not path.is_dir():
            path.unlink(missing_ok=True)
            return
        shutil.rmtree(path, ignore_errors=True)
    except OSError as exc:
        log.warning("could not remove %s: %s", path, exc)


def _read_small(path: Path, cap: int) -> bytes | None:
    """Read a regular file (no symlinks, no FIFOs) of at most `cap` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > cap:
            return None
        return read_fd(fd, cap)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_fd(fd: int, cap: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while total <= cap:
        chunk = os.read(fd, min(65536, cap + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def read_json_tolerant(path: Path, cap: int = MAX_REQUEST_BYTES) -> dict[str, Any] | None:
    """A JSON object from `path`, or None for anything missing, huge or garbage."""
    data = _read_small(path, cap)
    if data is None:
        return None
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def request_id(path: Path) -> str:
    """`req-<id>.json` → `<id>`."""
    name = path.name
    return name[len("req-") : -len(".json")]


def ack_path(channel_dir: Path, req_id: str) -> Path:
    return channel_dir / f"ack-req-{req_id}.json"


def claim_path(channel_dir: Path, req_id: str) -> Path:
    return channel_dir / f"claim-req-{req_id}"


def prune_channel(
    channel_dir: Path, max_age_secs: float = LEFTOVER_MAX_AGE_SECS, now: float | None = None
) -> int:
    """Remove old leftovers (uncollected acks, half-written temp files, claims a
    crashed dashboard never answered): requesters' `req-*.tmp-*` and the
    dashboard's own `.ack-req-*.tmp-*`, each only when no live writer holds it
    (`paths.remove_if_abandoned`). Call it now and then; returns the count."""
    moment = time.time() if now is None else now
    removed = paths.sweep_temp_files(channel_dir, now=moment)
    try:
        entries = list(os.scandir(channel_dir))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        writing = name.startswith("req-") and ".tmp-" in name
        if not (writing or name.startswith(("ack-req-", "claim-req-"))):
            continue
        try:
            age = moment - entry.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        if age <= max_age_secs:
            continue
        if writing:
            removed += paths.remove_if_abandoned(Path(entry.path))
        else:
            remove_tree(Path(entry.path))
            removed += 1
    return removed
