"""Durable delegation records: `<state>/delegations/<repo-key>/<handle>.json`.

Every delegation (`zirv agent …`, a native `delegate` call, a spawn request a
dashboard accepts) has a stable handle minted by zirv — never a vendor
conversation id — and one private (0600) record, written atomically:

- the launch receipt, written *before* anything runs (state `launching`);
- the owner (who delegated it) and the writer permit it holds, if any;
- every attempt (a pane or an inline run; a follow-up of an ended worker is a
  new attempt on the same handle);
- every delivery (report-back mail) with its identity
  `<handle>:<attempt>:<kind>`, when it was published and when consumed;
- the terminal outcome, persisted before anyone is told of it.

A record is read one strict way (`records.decode`); one that is torn, of
another repository, or names another handle than its file is reported as a
problem, never trusted. Read-modify-write goes through `update`, under one
`flock` per repository directory, so the dashboard, an inline run and a
consuming `zirv ctx inbox` never lose each other's changes.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal, TypeVar

import msgspec

from zirv_dash import paths, records

SCHEMA_VERSION = 1
RECORD_CAP = 512 * 1024
PROMPT_KEPT = 2000
"""Characters of the prompt kept in the record (the pane has the whole of it)."""
MAX_ATTEMPTS = 32
MAX_DELIVERIES = 128
HANDLE_RE = re.compile(r"\Ad-[0-9a-f]{12}\Z")
IDENTITY_RE = re.compile(r"\A(d-[0-9a-f]{12}):([0-9]{1,4}):([a-z_]{1,16})\Z")

State = Literal["launching", "running", "settled", "ended", "closed", "failed"]
TERMINAL: frozenset[str] = frozenset({"ended", "closed", "failed"})
Mode = Literal["write", "read-only"]


class RecordProblem(ValueError):
    """A record that is absent, torn or foreign; the message says which."""


class Attempt(records.Record, frozen=True):
    n: int
    short: str
    session: str
    mode: str
    """`dashboard_pane` | `inline`."""
    started_at: float
    ended_at: float | None = None
    exit_code: int | None = None
    checkpoint: str | None = None
    """For a follow-up of an ended worker: what the new attempt was told it lacks."""


class Delivery(records.Record, frozen=True):
    identity: str
    kind: str
    to: str
    published_at: float | None = None
    consumed_at: float | None = None


class Outcome(records.Record, frozen=True):
    kind: str
    """`settled` (the turn ended, the worker lives) | `ended` | `closed` | `launch_failed`."""
    attempt: int
    at: float
    exit_code: int | None = None
    result_path: str | None = None
    tail: str = ""
    tail_cut: bool = False
    identity: str = ""
    unknown_tools: list[str] = msgspec.field(default_factory=list)
    """Tool calls of a native worker whose outcome is unknown (check their effect)."""


class Delegation(records.Record, frozen=True):
    handle: str
    repo_key: str
    repo: str
    harness: str
    owner: str
    """The delegating session's short id, or `operator` from a plain terminal."""
    workdir: str
    created_at: float
    schema_version: int = SCHEMA_VERSION
    model: str | None = None
    mode: Mode = "write"
    prompt: str = ""
    worktree: bool = False
    state: State = "launching"
    permit: str | None = None
    """The tree this delegation holds the writer permit of."""
    host_pid: int | None = None
    """The process that carries the run (a dashboard, an inline `zirv agent`)."""
    attempts: list[Attempt] = msgspec.field(default_factory=list)
    deliveries: list[Delivery] = msgspec.field(default_factory=list)
    outcome: Outcome | None = None
    note: str = ""

    @property
    def current(self) -> Attempt | None:
        return self.attempts[-1] if self.attempts else None

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL


def repo_key(repo: Path) -> str:
    """The mailbox's slug: one key per repository, whatever worktree asks."""
    return paths.repo_slug(repo)


def repo_dir(repo: Path) -> Path:
    return paths.state_dir() / "delegations" / repo_key(repo)


def new_handle() -> str:
    # os.urandom, not `secrets`: that module loads hmac and hashlib, which the
    # dashboard's first frame does not need (ARCHITECTURE.md, the import graph).
    return "d-" + os.urandom(6).hex()


def identity(handle: str, attempt: int, kind: str) -> str:
    return f"{handle}:{attempt}:{kind}"


def _path(repo: Path, handle: str) -> Path:
    if not HANDLE_RE.match(handle):
        raise RecordProblem(f"{handle[:40]!r} is not a delegation handle (d-<12 hex>)")
    return repo_dir(repo) / f"{handle}.json"


def read(repo: Path, handle: str) -> Delegation:
    """The record of `handle` in `repo`; RecordProblem if absent, torn or foreign."""
    path = _path(repo, handle)
    try:
        record = records.read(Delegation, path, RECORD_CAP)
    except records.RecordError as exc:
        raise RecordProblem(f"delegation {handle}: torn or invalid record ({exc})") from exc
    except OSError as exc:
        raise RecordProblem(f"delegation {handle}: unreadable record ({exc})") from exc
    if record is None:
        raise RecordProblem(f"no delegation {handle} in this repository")
    if record.handle != handle or record.repo_key != repo_key(repo):
        raise RecordProblem(f"delegation {handle}: the record belongs elsewhere (not trusted)")
    return record


def list_all(repo: Path, problems: list[str] | None = None) -> list[Delegation]:
    """Every trusted record of `repo`, oldest first; the rest named in `problems`."""
    try:
        names = sorted(os.listdir(repo_dir(repo)))
    except FileNotFoundError:
        return []
    except OSError as exc:
        if problems is not None:
            problems.append(f"delegations: {exc}")
        return []
    found: list[Delegation] = []
    for name in names:
        if not name.endswith(".json") or name.startswith("."):
            continue
        try:
            found.append(read(repo, name[: -len(".json")]))
        except RecordProblem as exc:
            if problems is not None:
                problems.append(str(exc))
    found.sort(key=lambda r: r.created_at)
    return found


@contextlib.contextmanager
def locked(repo: Path) -> Iterator[None]:
    directory = paths.ensure_private_dir(repo_dir(repo))
    fd = os.open(directory / ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def write(repo: Path, record: Delegation) -> None:
    records.write(_path(repo, record.handle), record)


def create(
    repo: Path,
    *,
    harness: str,
    owner: str,
    workdir: str,
    model: str | None = None,
    mode: Mode = "write",
    prompt: str = "",
    worktree: bool = False,
    handle: str | None = None,
) -> Delegation:
    """Mint a handle and write its launch receipt; OSError if it cannot be stored
    (then nothing may run: a delegation without a record is not allowed)."""
    record = Delegation(
        handle=handle or new_handle(),
        repo_key=repo_key(repo),
        repo=str(repo),
        harness=harness,
        owner=owner,
        workdir=workdir,
        created_at=time.time(),
        model=model,
        mode=mode,
        prompt=prompt[:PROMPT_KEPT],
        worktree=worktree,
        host_pid=os.getpid(),
    )
    with locked(repo):
        write(repo, record)
    return record


def update(repo: Path, handle: str, change: Callable[[Delegation], Delegation]) -> Delegation:
    """Read, change and write one record under the repository's lock."""
    with locked(repo):
        record = change(read(repo, handle))
        write(repo, record)
        return record


T = TypeVar("T", Delegation, Attempt, Delivery)


def replace(record: T, **fields: object) -> T:
    return msgspec.structs.replace(record, **fields)


def add_attempt(
    record: Delegation, short: str, session: str, mode: str, checkpoint: str | None = None
) -> Delegation:
    attempt = Attempt(
        n=len(record.attempts) + 1,
        short=short,
        session=session,
        mode=mode,
        started_at=time.time(),
        checkpoint=checkpoint,
    )
    kept = [*record.attempts, attempt][-MAX_ATTEMPTS:]
    return replace(record, attempts=kept, state="running", outcome=None, host_pid=os.getpid())


def mark_failed(repo: Path, handle: str, reason: str) -> None:
    """A launch that never ran: state `failed` with why (kept as a receipt). A
    record some dashboard already took an attempt on is left to that dashboard."""

    def change(record: Delegation) -> Delegation:
        if record.state != "launching":
            return record
        return replace(record, state="failed", note=reason[:500], permit=None)

    try:
        update(repo, handle, change)
    except (OSError, RecordProblem):
        pass


KEEP_RECORDS = 500
"""Ended delegations kept per repository (pruned oldest first at a dashboard's start)."""


def prune(repo: Path, keep: int = KEEP_RECORDS) -> int:
    """Remove the oldest ended records past `keep`: only terminal ones whose every
    delivery was published (nothing left to tell) and that hold no permit."""
    with locked(repo):
        done = [
            r
            for r in list_all(repo)
            if r.terminal and r.permit is None and all(d.published_at for d in r.deliveries)
        ]
        removed = 0
        for record in done[: max(0, len(done) - keep)]:
            try:
                _path(repo, record.handle).unlink()
            except OSError:
                continue
            removed += 1
    return removed


def by_short(repo: Path, short: str) -> Delegation | None:
    """The live-or-latest delegation whose current attempt runs as pane `short`."""
    for record in reversed(list_all(repo)):
        current = record.current
        if current is not None and current.short == short:
            return record
    return None


def age_s(record: Delegation, now: float | None = None) -> int:
    return max(0, int((time.time() if now is None else now) - record.created_at))
