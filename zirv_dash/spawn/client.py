"""The requester side (`zirv agent`): find a live dashboard, drop a request into
its channel, wait for the ack (inventory §5.7)."""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from zirv_dash import paths
from zirv_dash.fdio import write_all
from zirv_dash.panes import registry
from zirv_dash.spawn.channel import (
    OWNER_PID,
    REQUESTS_DIR,
    TOKEN_DIR_RE,
    ack_path,
    dash_root,
    is_real_dir,
    owner_alive,
    read_json_tolerant,
    read_owner_pid,
    request_id,
)
from zirv_dash.spawn.protocol import MAX_ACK_BYTES, SpawnAck, decode_ack, show

ACK_TIMEOUT_SECS = 5.0
CLAIM_EXTENSION_SECS = 10.0
POLL_SECS = 0.1


def write_request(channel_dir: Path, request: Mapping[str, Any]) -> Path:
    """Drop `request` into a channel atomically; returns the `req-<uuid>.json` path."""
    rid = str(uuid.uuid4())
    final = channel_dir / f"req-{rid}.json"
    tmp = channel_dir / f"{final.name}.tmp-{uuid.uuid4()}"
    data = json.dumps(dict(request), separators=(",", ":")).encode("utf-8")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    paths.hold_while_writing(fd)  # a channel prune never takes it while it is written
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(tmp, final)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return final


AckStatus = Literal["acked", "unanswered", "claimed_no_ack"]


@dataclass
class AckWait:
    status: AckStatus
    ack: SpawnAck | None = None

    @property
    def message(self) -> str:
        if self.status == "unanswered":
            return f"dashboard did not answer within {ACK_TIMEOUT_SECS:g}s"
        if self.status == "claimed_no_ack":
            return (
                "dashboard claimed the request but never confirmed; "
                "check zirv ctx status / the dashboard"
            )
        return ""


def wait_for_ack(
    req_path: Path,
    timeout: float = ACK_TIMEOUT_SECS,
    claim_extension: float = CLAIM_EXTENSION_SECS,
    poll: float = POLL_SECS,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> AckWait:
    """Poll for the ack of `req_path` (§5.7).

    At the deadline, deleting our own request proves nobody claimed it
    ("unanswered": the caller may go elsewhere). If it is gone, it was claimed:
    wait `claim_extension` more, then give up without falling back, so the task
    never runs twice.
    """
    channel = req_path.parent
    ack_file = ack_path(channel, request_id(req_path))
    deadline = clock() + timeout
    extended = False
    while True:
        got = _take_ack(ack_file)
        if got is not None:
            return got
        if clock() >= deadline:
            if extended:
                return AckWait("claimed_no_ack")
            try:
                req_path.unlink()
            except FileNotFoundError:
                extended = True
                deadline = clock() + claim_extension
                continue
            except OSError:
                return AckWait("claimed_no_ack")
            got = _take_ack(ack_file)  # answered between our last poll and the unlink
            return got if got is not None else AckWait("unanswered")
        sleep(poll)


def _take_ack(ack_file: Path) -> AckWait | None:
    if not os.path.lexists(ack_file):
        return None
    obj = read_json_tolerant(ack_file, MAX_ACK_BYTES)
    try:
        ack_file.unlink()
    except OSError:
        pass
    ack = decode_ack(obj, source=str(ack_file))
    if ack is None:
        return AckWait("claimed_no_ack")
    return AckWait("acked", ack)


@dataclass
class DashTarget:
    """One live dashboard a requester may write to."""

    token_dir: Path
    channel: Path
    owner_pid: int
    why: Literal["inherited", "hosting", "repo", "any"]

    @property
    def private(self) -> bool:
        """Writing into a pane's own channel (identity proven by location)."""
        return self.channel.name != REQUESTS_DIR


def live_dashboards(
    state: Path,
    env: Mapping[str, str] | None = None,
    repo: Path | None = None,
    notes: list[str] | None = None,
) -> list[DashTarget]:
    """Live dashboards in the §5.7 preference order.

    1. the inherited `ZIRV_CTX_DASH_REQUESTS` channel (if its owner is live);
    2. the dashboard hosting the caller (its registry record's `owner_pid`);
    3. dashboards hosting `repo` (registry records with verb dash/chat);
    4. any other live dashboard; newest first within 3 and 4.
    """
    env = os.environ if env is None else env
    notes = [] if notes is None else notes
    inherited = _inherited_target(env, notes)
    targets = [inherited] if inherited is not None else []
    live = _live_token_dirs(state, inherited.token_dir if inherited else None, notes)
    records = _registry_records(state)
    host_pid = _hosting_owner_pid(records, env)
    repo_shorts = _repo_dash_shorts(records, repo)
    return targets + _preferred(live, host_pid, repo_shorts)


_Live = tuple[float, str, Path, int]
"""A live token dir: its owner file's mtime, its name, its path, the owner pid."""


def _inherited_target(env: Mapping[str, str], notes: list[str]) -> DashTarget | None:
    """The channel the caller inherited, while its owner lives."""
    inherited = env.get("ZIRV_CTX_DASH_REQUESTS", "")
    if not inherited:
        return None
    chan = Path(inherited)
    root = chan.parent
    pid = owner_alive(root) if is_real_dir(chan) else None
    if pid is not None:
        return DashTarget(root, chan, pid, "inherited")
    notes.append(
        f"inherited dashboard channel {show(inherited)} is gone or its owner is dead; "
        "looking for another dashboard"
    )
    return None


def _live_token_dirs(state: Path, skip: Path | None, notes: list[str]) -> list[_Live]:
    """Token dirs with a live owner and a shared channel, newest first (`skip`:
    the inherited dashboard, already first in the order)."""
    live: list[_Live] = []
    try:
        entries = list(dash_root(state).iterdir())
    except OSError:
        entries = []
    for entry in entries:
        if not TOKEN_DIR_RE.match(entry.name) or not is_real_dir(entry):
            continue
        if skip is not None and _same_path(entry, skip):
            continue
        pid = owner_alive(entry)
        if pid is None:
            dead = read_owner_pid(entry)
            if dead is not None:
                notes.append(f"candidate {entry.name} names dead pid {dead}; skipped")
            continue
        if not is_real_dir(entry / REQUESTS_DIR):
            continue
        try:
            mtime = (entry / OWNER_PID).stat().st_mtime
        except OSError:
            continue
        live.append((mtime, entry.name, entry, pid))
    live.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return live


def _preferred(live: list[_Live], host_pid: int | None, repo_shorts: set[str]) -> list[DashTarget]:
    """The hosting dashboard, then those of the repo, then any other."""
    targets: list[DashTarget] = []
    picked: set[str] = set()
    order: tuple[Literal["hosting", "repo", "any"], ...] = ("hosting", "repo", "any")
    for why in order:
        for _, name, entry, pid in live:
            if name in picked:
                continue
            dash_short = name.split("-", 1)[0]
            if (
                (why == "hosting" and host_pid is not None and pid == host_pid)
                or (why == "repo" and dash_short in repo_shorts)
                or why == "any"
            ):
                picked.add(name)
                targets.append(DashTarget(entry, entry / REQUESTS_DIR, pid, why))
    return targets


def _same_path(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _registry_records(state: Path) -> list[registry.SessionRecord]:
    """Registry records, each through the registry's own strict decoder; one that
    fails it is skipped (discovery never fails on another process's garbage)."""
    out: list[registry.SessionRecord] = []
    try:
        files = sorted((state / "sessions").glob("*.json"))
    except OSError:
        return out
    for path in files[:4096]:
        try:
            out.append(registry.read_record(path))
        except (registry.RecordError, OSError):
            continue
    return out


def _hosting_owner_pid(
    records: Iterable[registry.SessionRecord], env: Mapping[str, str]
) -> int | None:
    session = env.get("ZIRV_CTX_SESSION", "")
    if not session:
        return None
    short = paths.short_id(session)
    for rec in records:
        if (rec.session == session or (short and rec.short == short)) and rec.owner_pid:
            return rec.owner_pid
    return None


def _repo_dash_shorts(records: Iterable[registry.SessionRecord], repo: Path | None) -> set[str]:
    if repo is None:
        return set()
    want = str(repo.resolve())
    out: set[str] = set()
    for rec in records:
        if rec.verb not in ("dash", "chat") or not rec.repo:
            continue
        try:
            same = str(Path(rec.repo).resolve()) == want
        except (OSError, RuntimeError, ValueError):
            same = False
        if same:
            out.add(rec.short)
    return out
