"""Spawn requests: how other processes (and panes) ask a live dashboard for a pane.

Upstream-compatible file protocol (inventory §5):

    <state>/dash/<dash_short>-<token16>/owner.pid       the dashboard's pid (mtime = start)
    <state>/dash/<dash_short>-<token16>/requests/       the shared channel (proves nothing)
    <state>/dash/<dash_short>-<token16>/p-<token16>/    one private channel per pane

A requester writes ``req-<uuid>.json`` atomically; the dashboard claims it by
renaming it to ``claim-req-<uuid>`` and answers ``ack-req-<uuid>.json``.

Everything read from a channel is untrusted data: size-capped, never followed
through a symlink, type-checked field by field, and validated in the upstream
order before anything is launched. Nothing here raises on bad input; a bad
request becomes a refusal with a reason.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import shutil
import stat
import time
import uuid
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, Protocol

from zirv_dash import paths, procinfo
from zirv_dash.adapters import ADAPTERS, Adapter
from zirv_dash.textcheck import UnencodableText, check_text, text_problem

log = logging.getLogger(__name__)

DASH_DIR = "dash"
REQUESTS_DIR = "requests"
OWNER_PID = "owner.pid"
MAX_REQUEST_BYTES = 256 * 1024
MAX_ACK_BYTES = 64 * 1024
MAX_TIMEOUT_SECS = 30 * 24 * 3600
SYSTEM_PROMPT_CAP = 16 * 1024
MODEL_MAX_CHARS = 128
ACK_TIMEOUT_SECS = 5.0
CLAIM_EXTENSION_SECS = 10.0
POLL_SECS = 0.1
CLAIM_BATCH = 64
SWEEP_BUDGET = 256
"""At most this many claims per dashboard sweep over all channels (the rest wait)."""
GIT_CACHE_MAX = 256
PID_REUSE_SLACK_SECS = 60.0
LEFTOVER_MAX_AGE_SECS = 300.0
"""Acks nobody collected, abandoned temp files and orphaned claims older than
this are pruned from a channel."""
STALE_GRACE_SECS = 30.0
"""A token dir without a readable owner.pid is only swept once it is this old
(another dashboard may be between mkdir and writing its pid)."""

# `\A…\Z`, never `^…$`: `$` also matches before a trailing newline, so
# "model\n" or "abc\n" would pass a `$`-anchored check and reach argv or a path.
TOKEN_DIR_RE = re.compile(r"\A([A-Za-z0-9]{1,8})-([0-9a-f]{16})\Z")
PANE_CHANNEL_RE = re.compile(r"\Ap-[0-9a-f]{16}\Z")
REQ_ID_RE = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
SHORT_RE = re.compile(r"\A[A-Za-z0-9]{1,64}\Z")
MODEL_RE = re.compile(r"\A[A-Za-z0-9._:/@-]+\Z")

ARGV_GUARD = "prompt must not begin with '-' (argv injection guard)"
RESTART_ENV_HEADLESS = "ZIRV_CTX_HEADLESS"
RESTART_ENV_INTERACTIVE = "ZIRV_CTX_LAUNCH_MODE"

Role = Literal["orchestrator", "worker", "sub-orchestrator"]


def show(value: object, limit: int = 160) -> str:
    """Untrusted text made safe for a log line or an ack: control characters
    escaped, length capped."""
    text = value if isinstance(value, str) else repr(value)
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    joined = "".join(out)
    return joined if len(joined) <= limit else joined[: limit - 1] + "…"


# --- channel layout ----------------------------------------------------------------


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
        return sorted(p for p in entries if PANE_CHANNEL_RE.match(p.name) and _is_real_dir(p))

    def channels(self) -> list[Path]:
        """Every channel to sweep: the shared one first, then each pane's."""
        return [self.requests, *self.pane_channels()]

    def remove(self) -> None:
        """Delete the whole token dir (clean quit)."""
        _remove_tree(self.root)


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
        _remove_tree(entry)
        removed.append(entry)
        log.info("swept stale dashboard channel %s", entry)
    return removed


def _is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


def _remove_tree(path: Path) -> None:
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
        return _read_fd(fd, cap)
    except OSError:
        return None
    finally:
        os.close(fd)


def _read_fd(fd: int, cap: int) -> bytes:
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


# --- request and ack data ---------------------------------------------------------


class RequestError(ValueError):
    """An untrusted request that cannot be used; the message is the refusal reason."""


_U8 = 2**8 - 1
_U32 = 2**32 - 1
_U64 = 2**64 - 1


@dataclass
class SpawnRequest:
    """Every field of upstream `SpawnRequest` (inventory §5.3), with its default."""

    agent: str
    prompt: str
    cwd: str
    requested_by: str
    name: str | None = None
    kill: str | None = None
    model: str | None = None
    interactive: bool = False
    role: str | None = None
    parent_session: str | None = None
    work_group_id: str | None = None
    budget_tokens: int | None = None
    force: bool = False
    workdir: str | None = None
    mode: str = "writing"
    owns_workdir: bool = False
    result_schema: str | None = None
    envelope: str | None = None
    path_scope: list[str] = field(default_factory=list)
    no_network: bool = False
    depth: int | None = None
    max_restarts: int | None = None
    timeout_secs: int | None = None
    max_tool_calls: int | None = None
    flags: list[str] = field(default_factory=list)
    system_prompt: str | None = None
    parent_seat_generation: int | None = None
    worktree: bool = False
    """zirv-dash extension: run the pane in its own git worktree (branch
    `zirv/<short>`); omitted from the wire form when false, so upstream readers
    never see it unless asked for."""

    @classmethod
    def from_json(cls, obj: object) -> SpawnRequest:
        """Strictly type-check an untrusted JSON value. Raises RequestError."""
        if not isinstance(obj, dict):
            raise RequestError(f"request must be a JSON object, not {_json_type(obj)}")
        kw: dict[str, Any] = {}
        for name in ("agent", "prompt", "cwd", "requested_by"):
            if name not in obj:
                raise RequestError(f"request is missing the required field `{name}`")
            kw[name] = _want_str(obj, name)
        for name in (
            "name", "kill", "model", "role", "parent_session", "work_group_id",
            "workdir", "result_schema", "envelope", "system_prompt",
        ):  # fmt: skip
            kw[name] = _want_opt_str(obj, name)
        for name in ("interactive", "force", "owns_workdir", "no_network", "worktree"):
            kw[name] = _want_bool(obj, name)
        for name, top in (
            ("budget_tokens", _U64),
            ("depth", _U8),
            ("max_restarts", _U32),
            ("timeout_secs", _U64),
            ("max_tool_calls", _U32),
            ("parent_seat_generation", _U64),
        ):
            kw[name] = _want_opt_int(obj, name, top)
        for name in ("path_scope", "flags"):
            kw[name] = _want_str_list(obj, name)
        mode = obj.get("mode", "writing")
        if mode is None:
            mode = "writing"
        if mode not in ("read-only", "writing"):
            raise RequestError(f'field `mode` must be "read-only" or "writing", not {show(mode)}')
        kw["mode"] = mode
        req = cls(**kw)
        if req.system_prompt is not None and len(req.system_prompt.encode()) > SYSTEM_PROMPT_CAP:
            req.system_prompt = req.system_prompt.encode()[:SYSTEM_PROMPT_CAP].decode(
                "utf-8", "ignore"
            )
        return req

    def to_json(self) -> dict[str, Any]:
        """Wire form: defaults and nulls omitted (upstream fills them back in)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("agent", "prompt", "cwd", "requested_by"):
                out[f.name] = value
            elif value is None or value is False or value == []:
                continue
            elif f.name == "mode" and value == "writing":
                continue
            else:
                out[f.name] = value
        return out


def _json_type(value: object) -> str:
    return {
        dict: "an object", list: "an array", str: "a string", bool: "a boolean",
        int: "a number", float: "a number", type(None): "null",
    }.get(type(value), type(value).__name__)  # fmt: skip


def _check_text(name: str, value: str) -> str:
    """Every string of a request ends up in argv, env or a path: one that cannot
    be encoded for `execve` (a lone surrogate, a NUL) is refused here, naming the
    field, long before any fork."""
    try:
        return check_text(name, value)
    except UnencodableText as exc:
        raise RequestError(str(exc)) from None


def _want_str(obj: Mapping[str, Any], name: str) -> str:
    value = obj.get(name)
    if not isinstance(value, str):
        raise RequestError(f"field `{name}` must be a string, not {_json_type(value)}")
    return _check_text(name, value)


def _want_opt_str(obj: Mapping[str, Any], name: str) -> str | None:
    if obj.get(name) is None:
        return None
    return _want_str(obj, name)


def _want_bool(obj: Mapping[str, Any], name: str) -> bool:
    value = obj.get(name, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise RequestError(f"field `{name}` must be true or false, not {_json_type(value)}")
    return value


def _want_opt_int(obj: Mapping[str, Any], name: str, top: int) -> int | None:
    value = obj.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"field `{name}` must be a whole number, not {_json_type(value)}")
    if not 0 <= value <= top:
        raise RequestError(f"field `{name}` is out of range (0..{top})")
    return value


def _want_str_list(obj: Mapping[str, Any], name: str) -> list[str]:
    value = obj.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RequestError(f"field `{name}` must be a list of strings")
    return [_check_text(f"{name}[{i}]", v) for i, v in enumerate(value)]


@dataclass
class SpawnAck:
    """Upstream `SpawnAck` (inventory §5.4)."""

    ok: bool
    short: str | None = None
    reason: str | None = None
    retryable: bool = False
    budget_exhausted: bool = False
    capability_warnings: list[dict[str, str]] = field(default_factory=list)

    @classmethod
    def spawned(cls, short: str, warnings: Sequence[Mapping[str, str]] = ()) -> SpawnAck:
        return cls(True, short=short, capability_warnings=[dict(w) for w in warnings])

    @classmethod
    def refused(cls, reason: str, retryable: bool = False) -> SpawnAck:
        return cls(False, reason=reason, retryable=retryable)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ok": self.ok,
            "short": self.short,
            "reason": self.reason,
            "retryable": self.retryable,
            "budget_exhausted": self.budget_exhausted,
        }
        if self.capability_warnings:
            out["capability_warnings"] = self.capability_warnings
        return out

    @classmethod
    def from_json(cls, obj: object) -> SpawnAck | None:
        """Tolerant parse (the requester trusts its dashboard more than the reverse).

        Never raises: anything unusable gives None. Every string is checked the
        way a request's are, because the requester prints them: a short id that
        is not one makes the ack unusable, and free text (reason, warnings) that
        cannot be encoded is shown escaped instead of crashing the print.
        """
        if not isinstance(obj, dict) or not isinstance(obj.get("ok"), bool):
            return None
        short = obj.get("short")
        if short is not None and not (isinstance(short, str) and SHORT_RE.match(short)):
            if obj["ok"]:
                return None
            short = None
        reason = obj.get("reason")
        warnings = obj.get("capability_warnings")
        return cls(
            ok=obj["ok"],
            short=short,
            reason=_safe_text(reason) if isinstance(reason, str) else None,
            retryable=obj.get("retryable") is True,
            budget_exhausted=obj.get("budget_exhausted") is True,
            capability_warnings=[
                {_safe_text(str(k)): _safe_text(str(v)) for k, v in w.items()}
                for w in (warnings if isinstance(warnings, list) else [])[:32]
                if isinstance(w, dict)
            ],
        )


def _safe_text(value: str, limit: int = 2000) -> str:
    """`value` if it is usable text, else its escaped form (see `show`)."""
    return value if text_problem(value) is None else show(value, limit)


# --- requester side -------------------------------------------------------------------


def write_request(channel_dir: Path, request: Mapping[str, Any]) -> Path:
    """Drop `request` into a channel atomically; returns the `req-<uuid>.json` path."""
    rid = str(uuid.uuid4())
    final = channel_dir / f"req-{rid}.json"
    tmp = channel_dir / f"{final.name}.tmp-{uuid.uuid4()}"
    data = json.dumps(dict(request), separators=(",", ":")).encode("utf-8")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        try:
            _write_all(fd, data)
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


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def request_id(path: Path) -> str:
    """`req-<id>.json` → `<id>`."""
    name = path.name
    return name[len("req-") : -len(".json")]


def ack_path(channel_dir: Path, req_id: str) -> Path:
    return channel_dir / f"ack-req-{req_id}.json"


def claim_path(channel_dir: Path, req_id: str) -> Path:
    return channel_dir / f"claim-req-{req_id}"


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
    ack = SpawnAck.from_json(obj)
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
    targets: list[DashTarget] = []
    inherited_root: Path | None = None
    inherited = env.get("ZIRV_CTX_DASH_REQUESTS", "")
    if inherited:
        chan = Path(inherited)
        root = chan.parent
        pid = owner_alive(root) if _is_real_dir(chan) else None
        if pid is not None:
            targets.append(DashTarget(root, chan, pid, "inherited"))
            inherited_root = root
        else:
            notes.append(
                f"inherited dashboard channel {show(inherited)} is gone or its owner is dead; "
                "looking for another dashboard"
            )
    live: list[tuple[float, str, Path, int]] = []
    try:
        entries = list(dash_root(state).iterdir())
    except OSError:
        entries = []
    for entry in entries:
        if not TOKEN_DIR_RE.match(entry.name) or not _is_real_dir(entry):
            continue
        if inherited_root is not None and _same_path(entry, inherited_root):
            continue
        pid = owner_alive(entry)
        if pid is None:
            dead = read_owner_pid(entry)
            if dead is not None:
                notes.append(f"candidate {entry.name} names dead pid {dead}; skipped")
            continue
        if not _is_real_dir(entry / REQUESTS_DIR):
            continue
        try:
            mtime = (entry / OWNER_PID).stat().st_mtime
        except OSError:
            continue
        live.append((mtime, entry.name, entry, pid))
    live.sort(key=lambda t: (t[0], t[1]), reverse=True)
    records = _registry_records(state)
    host_pid = _hosting_owner_pid(records, env)
    repo_shorts = _repo_dash_shorts(records, repo)
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


def _registry_records(state: Path) -> list[dict[str, Any]]:
    """Registry records read directly and tolerantly (garbage files skipped)."""
    out: list[dict[str, Any]] = []
    try:
        files = sorted((state / "sessions").glob("*.json"))
    except OSError:
        return out
    for path in files[:4096]:
        rec = read_json_tolerant(path, 256 * 1024)
        if rec is not None:
            out.append(rec)
    return out


def _hosting_owner_pid(records: Iterable[Mapping[str, Any]], env: Mapping[str, str]) -> int | None:
    session = env.get("ZIRV_CTX_SESSION", "")
    if not session:
        return None
    short = paths.short_id(session)
    for rec in records:
        if rec.get("session") == session or (short and rec.get("short") == short):
            pid = rec.get("owner_pid")
            if isinstance(pid, int) and not isinstance(pid, bool):
                return pid
    return None


def _repo_dash_shorts(records: Iterable[Mapping[str, Any]], repo: Path | None) -> set[str]:
    if repo is None:
        return set()
    want = str(repo.resolve())
    out: set[str] = set()
    for rec in records:
        if rec.get("verb") not in ("dash", "chat"):
            continue
        where = rec.get("repo")
        short = rec.get("short")
        if isinstance(where, str) and isinstance(short, str):
            try:
                same = str(Path(where).resolve()) == want
            except (OSError, RuntimeError, ValueError):
                same = False
            if same:
                out.add(short)
    return out


# --- dashboard side: claiming ------------------------------------------------------


@dataclass
class Claimed:
    """One claimed request. Exactly one of `request`, `kill`, `error` is set."""

    channel: Path
    req_id: str
    path: Path
    request: SpawnRequest | None = None
    kill: str | None = None
    error: str | None = None
    decision: Decision | None = None
    """Set once validated and accepted, when launching happens in a later step."""

    @property
    def ackable(self) -> bool:
        return REQ_ID_RE.match(self.req_id) is not None

    def release(self) -> None:
        """Remove the claim file (done after the ack is written, or on refusal)."""
        _remove_tree(self.path)


def claim_requests(
    channel_dir: Path, cap: int = MAX_REQUEST_BYTES, limit: int = CLAIM_BATCH
) -> list[Claimed]:
    """Claim up to `limit` `req-*.json` files in `channel_dir` by rename and parse them.

    Never raises. A claim that cannot be used is deleted straight away and
    returned with `error` set so the dashboard can ack the refusal and log it.
    The batch limit keeps one sweep short under a flood; the rest wait for the
    next sweep.
    """
    out: list[Claimed] = []
    try:
        names = sorted(os.listdir(channel_dir))
    except OSError:
        return out
    for name in names:
        if len(out) >= limit:
            break
        if not (name.startswith("req-") and name.endswith(".json")) or len(name) <= 9:
            continue
        rid = name[len("req-") : -len(".json")]
        src = channel_dir / name
        if REQ_ID_RE.match(rid) is None:
            _remove_tree(src)
            log.warning("spawn request with a garbage name dropped: %s", show(name))
            out.append(
                Claimed(channel_dir, rid, src, error=f"request name {show(name)} is not valid")
            )
            continue
        dst = claim_path(channel_dir, rid)
        try:
            os.rename(src, dst)
        except OSError:
            continue  # another claimer won, or the requester withdrew it
        claimed = _parse_claim(channel_dir, rid, dst, cap)
        if claimed.error is not None:
            claimed.release()
            log.warning("spawn request %s refused: %s", rid, claimed.error)
        out.append(claimed)
    return out


def _parse_claim(channel: Path, rid: str, path: Path, cap: int) -> Claimed:
    def bad(reason: str) -> Claimed:
        return Claimed(channel, rid, path, error=reason)

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return bad("request is a symlink, not a regular file")
        return bad(f"request could not be opened ({exc.strerror})")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return bad("request is not a regular file")
        if st.st_size > cap:
            return bad(f"request is too large ({st.st_size} bytes; limit {cap})")
        data = _read_fd(fd, cap)
    except OSError as exc:
        return bad(f"request could not be read ({exc.strerror})")
    finally:
        os.close(fd)
    if len(data) > cap:
        return bad(f"request is too large (over {cap} bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return bad("request is not UTF-8 text")
    try:
        obj = json.loads(text)
    except RecursionError:
        return bad("malformed JSON: nested too deeply")
    except ValueError as exc:
        return bad(f"malformed JSON: {show(str(exc), 120)}")
    if isinstance(obj, dict) and "kill" in obj and not ("agent" in obj and "prompt" in obj):
        target = obj.get("kill")
        if not isinstance(target, str) or not SHORT_RE.match(target):
            return bad(f"kill target must be a short session id, not {show(target, 40)}")
        return Claimed(channel, rid, path, kill=target)
    try:
        req = SpawnRequest.from_json(obj)
    except RequestError as exc:
        return bad(str(exc))
    except (RecursionError, ValueError, TypeError) as exc:  # belt and braces
        return bad(f"request could not be read: {show(str(exc), 120)}")
    return Claimed(channel, rid, path, request=req)


def prune_channel(
    channel_dir: Path, max_age_secs: float = LEFTOVER_MAX_AGE_SECS, now: float | None = None
) -> int:
    """Remove old leftovers (uncollected acks, half-written temp files, claims a
    crashed dashboard never answered). Call it now and then; returns the count."""
    moment = time.time() if now is None else now
    removed = 0
    try:
        entries = list(os.scandir(channel_dir))
    except OSError:
        return 0
    for entry in entries:
        name = entry.name
        leftover = name.startswith(("ack-req-", "claim-req-")) or (
            name.startswith("req-") and ".tmp-" in name
        )
        if not leftover:
            continue
        try:
            age = moment - entry.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        if age > max_age_secs:
            _remove_tree(Path(entry.path))
            removed += 1
    return removed


def write_ack(channel_dir: Path, req_id: str, ack: SpawnAck) -> None:
    """Write `ack-req-<id>.json` atomically (0600). Raises OSError on failure."""
    if REQ_ID_RE.match(req_id) is None:
        raise OSError(errno.EINVAL, f"refusing to ack request id {show(req_id, 40)}")
    paths.atomic_write(
        ack_path(channel_dir, req_id), json.dumps(ack.to_json(), separators=(",", ":"))
    )


def answer(claimed: Claimed, ack: SpawnAck) -> str | None:
    """Ack a claim, then release it. Returns an error text if the ack could not be
    written; a successful spawn then keeps its claim (upstream `spawn ack: {e}`)."""
    if not ack.ok:
        log.warning("spawn request %s refused: %s", claimed.req_id, ack.reason)
    try:
        if claimed.ackable:
            write_ack(claimed.channel, claimed.req_id, ack)
    except OSError as exc:
        if not ack.ok:
            claimed.release()
        return f"spawn ack: {exc}"
    claimed.release()
    return None


# --- dashboard side: validation ----------------------------------------------------


class Gate(Protocol):
    def refusal(self, agent: str) -> str | None: ...


@dataclass
class ValidationContext:
    """What the dashboard knows when it validates one request.

    `channel_owner_*` describe the pane whose private channel the request came
    in on; all None means the shared channel (which proves no identity).
    """

    repo: Path
    workdir_roots: Sequence[str | Path] = ()
    live_panes: int = 0
    max_panes: int = 9
    gate: Gate | None = None
    channel_owner_role: Role | None = None
    channel_owner_short: str | None = None
    channel_owner_session: str | None = None
    live_shorts: Collection[str] = ()
    file_drop: bool = True
    adapters: Mapping[str, Adapter] = field(default_factory=lambda: ADAPTERS)
    repo_common_dir: Path | None = None
    """Filled in on first use (one `git rev-parse`)."""
    git_dirs: dict[str, Path | None] = field(default_factory=dict)
    """`git rev-parse` answers by path. Share one dict between the contexts of a
    sweep so a flood naming one cwd costs one subprocess, not one per request."""
    _repo_resolved: Path | None = None
    _roots: list[Path] | None = None

    def git_dir_of(self, path: Path) -> Path | None:
        key = str(path)
        if key not in self.git_dirs:
            if len(self.git_dirs) >= GIT_CACHE_MAX:
                self.git_dirs.clear()  # hostile requests naming many paths stay bounded
            self.git_dirs[key] = paths.git_common_dir(path)
        return self.git_dirs[key]

    def common_dir(self) -> Path | None:
        if self.repo_common_dir is None:
            self.repo_common_dir = self.git_dir_of(self.repo_resolved())
        return self.repo_common_dir

    def repo_resolved(self) -> Path:
        if self._repo_resolved is None:
            self._repo_resolved = self.repo.resolve()
        return self._repo_resolved

    def roots(self) -> list[Path]:
        if self._roots is None:
            self._roots = self._compute_roots()
        return self._roots

    def _compute_roots(self) -> list[Path]:
        repo = self.repo_resolved()
        out = [repo]
        if repo.parent != repo:
            out.append(repo.parent)
        for extra in self.workdir_roots:
            text = str(extra).strip()
            if text:
                out.append(Path(text).expanduser().resolve())
        return out


@dataclass
class Decision:
    """The outcome of `validate`. On success `request` is the sanitised request."""

    ok: bool
    reason: str | None = None
    retryable: bool = False
    request: SpawnRequest | None = None
    adapter: Adapter | None = None
    role: Literal["worker", "sub-orchestrator"] = "worker"
    parent: str | None = None
    """The verified parent: the channel owner, never `request.parent_session`."""
    cwd: Path | None = None
    workdir: Path | None = None
    headless: bool = True
    notes: list[str] = field(default_factory=list)
    """Advisories for the error log (e.g. unenforced --max-tool-calls)."""

    @property
    def run_dir(self) -> Path | None:
        return self.workdir or self.cwd

    def ack(self, short: str | None = None) -> SpawnAck:
        if self.ok:
            return SpawnAck.spawned(short or "")
        return SpawnAck.refused(self.reason or "refused", self.retryable)


def _policy(reason: str) -> Decision:
    return Decision(False, reason=reason, retryable=False)


def _channel(reason: str) -> Decision:
    return Decision(False, reason=reason, retryable=True)


def sanitize_file_drop(req: SpawnRequest) -> SpawnRequest:
    """Strip widening fields from a file-dropped request (in place; returned)."""
    req.force = False
    req.flags = []
    req.interactive = False
    if req.timeout_secs is not None:
        req.timeout_secs = min(req.timeout_secs, MAX_TIMEOUT_SECS)
    return req


def prompt_refusal(prompt: str) -> str | None:
    """Why `prompt` may not be launched, or None. The prompt is one argv element
    on every path (inline, stdin, file drop, handover, the spawn dialog), and a
    harness would read one that begins with '-' as an option, so none does."""
    if prompt.lstrip().startswith("-"):
        return ARGV_GUARD
    problem = text_problem(prompt)
    if problem is not None:
        return f"prompt {problem}"
    if not prompt.strip():
        return "prompt is empty"
    return None


def model_refusal(model: str) -> str | None:
    if model.lstrip().startswith("-"):
        return f"model {show(model, 40)} refused: it looks like a flag"
    if len(model) > MODEL_MAX_CHARS:
        return f"model refused: longer than {MODEL_MAX_CHARS} characters"
    if not MODEL_RE.match(model):
        return f"model {show(model, 40)} refused: only letters, digits and ._:/@- are allowed"
    return None


def is_within(path: Path, root: Path) -> bool:
    """Component-wise containment (`/a/bc` is not inside `/a/b`)."""
    return path.parts[: len(root.parts)] == root.parts


def _resolve(text: str, base: Path) -> Path | None:
    try:
        p = Path(text).expanduser()
        return (p if p.is_absolute() else base / p).resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def validate(req: SpawnRequest, ctx: ValidationContext) -> Decision:
    """Upstream §5.5 order, minus budgets, permits, work groups and envelopes.

    The order decides which reason (and whether `retryable`) a request wrong in
    several ways gets, so it stays upstream's; the cost is kept low instead: a
    request naming the dashboard's own repo reaches the pane cap on string and
    `stat` checks alone, and `git` runs only for another cwd or a workdir, once
    per path per sweep (`ValidationContext.git_dirs`).

    `req` is normalised in place on the way (file-drop sanitising, absolute
    `cwd`/`workdir`, a display-safe `name`); on success `Decision.request` is it.
    """
    if ctx.file_drop:
        sanitize_file_drop(req)
    why_prompt = prompt_refusal(req.prompt)  # 2. argv guard
    if why_prompt:
        return _policy(why_prompt)
    cwd, workdir, refused = _place_check(req, ctx)  # 3. repo cwd, 4. workdir roots
    if refused is not None:
        return refused
    if ctx.live_panes >= ctx.max_panes:  # 6. pane cap
        return _policy(
            f"pane limit reached ({ctx.live_panes} live panes, dash.max_panes = {ctx.max_panes})"
        )
    refused = _identity_refusal(req, ctx)  # 7. parent claim, requester, 8. depth cap
    if refused is not None:
        return refused
    role: Literal["worker", "sub-orchestrator"] = (
        "sub-orchestrator" if req.role == "sub-orchestrator" else "worker"
    )
    adapter, refused = _adapter_check(req, ctx)  # 9. adapter gate, model
    if refused is not None:
        return refused
    req.cwd = str(cwd)
    if req.name is not None:
        req.name = show(req.name.strip(), 64) or None
    if workdir is not None:
        req.workdir = str(workdir)
    notes: list[str] = []
    if req.max_tool_calls is not None:
        notes.append("cannot enforce --max-tool-calls in a dashboard pane")
    private = ctx.channel_owner_role is not None
    return Decision(
        True,
        request=req,
        adapter=adapter,
        role=role,
        parent=ctx.channel_owner_short if private else None,
        cwd=cwd,
        workdir=workdir,
        headless=not req.interactive,
        notes=notes,
    )


def _identity_refusal(req: SpawnRequest, ctx: ValidationContext) -> Decision | None:
    """What the channel proves decides the parent and the role; a request's own
    words (`parent_session`, `requested_by`, `role`) can only narrow it."""
    private = ctx.channel_owner_role is not None
    claim = req.parent_session
    if claim:
        claimed_short = paths.short_id(claim)
        if private:
            if claim not in (ctx.channel_owner_short, ctx.channel_owner_session) and (
                claimed_short != ctx.channel_owner_short
            ):
                return _policy(
                    f"parent claim {show(claim, 40)} does not match the requesting pane "
                    f"({ctx.channel_owner_short})"
                )
        elif claim in ctx.live_shorts or claimed_short in ctx.live_shorts:
            return _channel(
                f"the shared channel cannot prove the parent claim {show(claim, 40)} "
                "(a live pane); request from the pane's own channel"
            )
    if private:
        # A pane's channel grants only what that pane may: a request in it that
        # names another live pane as its requester was written by someone else
        # (say a worker into its orchestrator's channel to get a sub-orchestrator).
        by = req.requested_by
        by_short = paths.short_id(by)
        foreign = by in ctx.live_shorts or by_short in ctx.live_shorts
        mine = by in (ctx.channel_owner_short, ctx.channel_owner_session) or (
            by_short == ctx.channel_owner_short
        )
        if foreign and not mine:
            return _policy(
                f"request names pane {show(by, 40)} as its requester but came in on pane "
                f"{ctx.channel_owner_short}'s channel; a pane may only use its own channel"
            )
    if req.role == "orchestrator":
        return _policy("a spawned pane is never a full orchestrator seat")
    if ctx.channel_owner_role == "worker":
        return _policy("a worker may not delegate onward (delegation depth cap: 2)")
    if ctx.channel_owner_role == "sub-orchestrator" and req.role == "sub-orchestrator":
        return _policy("a sub-orchestrator may not spawn another (delegation depth cap: 2)")
    if not private and req.role == "sub-orchestrator":
        return _policy("the shared channel cannot claim the sub-orchestrator role")
    return None


def _adapter_check(
    req: SpawnRequest, ctx: ValidationContext
) -> tuple[Adapter | None, Decision | None]:
    if req.agent == "native":
        return None, _policy("native panes are not available in this dashboard")
    adapter = ctx.adapters.get(req.agent)
    if adapter is None:
        return None, _policy(
            f"unknown adapter '{show(req.agent, 40)}'; known: {', '.join(sorted(ctx.adapters))}"
        )
    gate_reason = ctx.gate.refusal(req.agent) if ctx.gate is not None else None
    if gate_reason:
        return None, _policy(f"adapter {req.agent} is {gate_reason}")
    if req.model is not None:
        why = model_refusal(req.model)
        if why:
            return None, _policy(why)
    return adapter, None


def _place_check(
    req: SpawnRequest, ctx: ValidationContext
) -> tuple[Path | None, Path | None, Decision | None]:
    """The request's cwd must be this repo (or a linked worktree of it) and its
    workdir inside the workdir roots: the only checks that touch the file system
    and `git`, so they run last."""
    repo = ctx.repo_resolved()
    cwd = _resolve(req.cwd, repo)
    wrong_repo = (
        f"this dashboard only spawns panes in its own repo ({repo}); "
        f"the request named {show(req.cwd)}"
    )
    if cwd is None or not cwd.is_dir():
        return None, None, _channel(wrong_repo)
    if cwd != repo:
        common = ctx.common_dir()
        if common is None or ctx.git_dir_of(cwd) != common:
            return None, None, _channel(wrong_repo)
    if req.workdir is None:
        return cwd, None, None
    workdir = _resolve(req.workdir, cwd)
    roots = ctx.roots()
    shown = show(str(workdir) if workdir is not None else req.workdir)
    if workdir is None or not any(is_within(workdir, r) for r in roots):
        return (
            None,
            None,
            _policy(
                f"workdir {shown} is outside the dashboard's workdir roots "
                f"({', '.join(str(r) for r in roots)}); run `zirv ctx config add "
                f"dash.workdir_roots '{shown}'` (asks the operator for approval)"
            ),
        )
    if not workdir.is_dir():
        return None, None, _policy(f"workdir {shown} does not exist or is not a directory")
    if ctx.git_dir_of(workdir) is None:
        return None, None, _policy(f"workdir {shown} is not inside a git repository")
    return cwd, workdir, None


# --- kill requests -----------------------------------------------------------------


@dataclass
class KillDecision:
    ok: bool
    reason: str | None = None
    send_ack: bool = True
    """False on the shared channel: upstream only error-logs such a refusal."""


def authorize_kill(
    target: str,
    channel_owner: str | None,
    parents: Mapping[str, str | None],
) -> KillDecision:
    """May the pane owning this channel stop `target`?

    Only on a pane's own channel, and only its own pane or one it spawned:
    `parents` maps each live pane's short to its requester's short, and the
    chain is walked up from `target` (cycle-safe).
    """
    if channel_owner is None:
        return KillDecision(
            False, f"kill {show(target, 40)} refused: the shared channel cannot kill", False
        )
    if target not in parents:
        return KillDecision(False, f"kill {show(target, 40)} refused: no such live pane")
    seen: set[str] = set()
    node: str | None = target
    while node is not None and node not in seen:
        if node == channel_owner:
            return KillDecision(True)
        seen.add(node)
        node = parents.get(node)
    return KillDecision(
        False,
        f"kill {show(target, 40)} refused: pane {channel_owner} may only stop itself "
        "or panes it spawned",
    )


# --- one-call fulfilment (what a dashboard sweep does with each claim) ---------------


@dataclass
class Fulfilment:
    """What happened to one claim: the ack sent (None if none was due), the
    decision for spawn requests, the new pane's short, and error-log lines."""

    ack: SpawnAck | None
    decision: Decision | None = None
    short: str | None = None
    errors: list[str] = field(default_factory=list)


def fulfil(
    claimed: Claimed,
    ctx: ValidationContext,
    launch: Callable[[Decision], str],
    stop: Callable[[str], None],
    parents: Mapping[str, str | None],
) -> Fulfilment:
    """Validate and carry out one claim, ack it and release it. Never raises.

    `launch(decision)` spawns the pane and returns its short id (an exception is
    a channel-level refusal: the requester may go elsewhere). `stop(short)`
    kills a pane for an authorised kill request. `parents` maps live pane shorts
    to the short that requested them (for kill ancestry).
    """
    if claimed.error is not None:
        ack = SpawnAck.refused(claimed.error)
        errors = [f"spawn request refused: {claimed.error}"]
        if not claimed.ackable:
            claimed.release()
            return Fulfilment(None, errors=errors)
        return _answered(claimed, ack, Fulfilment(ack, errors=errors))
    if claimed.kill is not None:
        verdict = authorize_kill(claimed.kill, ctx.channel_owner_short, parents)
        if not verdict.ok:
            errors = [verdict.reason or "kill refused"]
            if not verdict.send_ack:
                claimed.release()
                return Fulfilment(None, errors=errors)
            ack = SpawnAck.refused(verdict.reason or "kill refused")
            return _answered(claimed, ack, Fulfilment(ack, errors=errors))
        try:
            stop(claimed.kill)
        except Exception as exc:  # noqa: BLE001 - a failing stop must not kill the sweep
            ack = SpawnAck.refused(f"kill {claimed.kill} failed: {exc}", retryable=True)
            return _answered(claimed, ack, Fulfilment(ack, errors=[ack.reason or ""]))
        ack = SpawnAck(True, short=claimed.kill)
        return _answered(claimed, ack, Fulfilment(ack, short=claimed.kill))
    if claimed.request is None:  # pragma: no cover - claim_requests never builds this
        claimed.release()
        return Fulfilment(None, errors=["spawn request with nothing in it"])
    decision = validate(claimed.request, ctx)
    if not decision.ok:
        return refuse(claimed, decision)
    return complete(claimed, decision, launch)


def refuse(claimed: Claimed, decision: Decision) -> Fulfilment:
    """Ack a refused decision and release its claim (file work only: safe off
    the dashboard's event loop)."""
    ack = decision.ack()
    out = Fulfilment(ack, decision, errors=[f"spawn refused: {decision.reason}"])
    return _answered(claimed, ack, out)


def complete(claimed: Claimed, decision: Decision, launch: Callable[[Decision], str]) -> Fulfilment:
    """Launch an accepted decision, ack it and release the claim. Never raises."""
    try:
        short = launch(decision)
    except Exception as exc:  # noqa: BLE001 - reported to the requester as retryable
        ack = SpawnAck.refused(f"pane spawn failed: {show(str(exc))}", retryable=True)
        return _answered(claimed, ack, Fulfilment(ack, decision, errors=[ack.reason or ""]))
    ack = decision.ack(short)
    return _answered(claimed, ack, Fulfilment(ack, decision, short, list(decision.notes)))


def _answered(claimed: Claimed, ack: SpawnAck, out: Fulfilment) -> Fulfilment:
    problem = answer(claimed, ack)
    if problem:
        out.errors.append(problem)
    return out


# --- launch -----------------------------------------------------------------------------


def build_launch(
    req: SpawnRequest, adapter: Adapter, headless: bool
) -> tuple[list[str], dict[str, str]]:
    """argv (the prompt is one element) and env additions for an accepted request.

    Pass `headless` to `session_env.child_env` too; the mode variable here
    matches it.
    """
    extra = list(req.flags)
    argv = adapter.interactive_argv(req.prompt, model=req.model, extra=extra, headless=headless)
    env: dict[str, str] = {}
    if headless:
        env[RESTART_ENV_HEADLESS] = "1"
    else:
        env[RESTART_ENV_INTERACTIVE] = "interactive"
    if req.result_schema:
        env["ZIRV_CTX_RESULT_SCHEMA"] = req.result_schema
    if req.workdir:
        env["ZIRV_CTX_RESULT_WORKDIR"] = req.workdir
    if req.work_group_id:
        env["ZIRV_CTX_WORK_GROUP"] = req.work_group_id
    return argv, env
