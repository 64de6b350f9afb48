"""Handover: swap a pane's harness or model in place, carrying a handoff packet.

This module is the UI-agnostic half of the swap (inventory §9):

- the CLI request/ack files `<state>/sessions/<short>.handover-req` / `.handover-ack`
  (upstream JSON; written atomically and private; claimed by rename + delete so two
  readers never both act on one request; garbage is removed and reported, never
  acted on);
- the handoff packet: task, cwd + git status, recent terminal output and, for claude
  and codex, the tail of their transcript — bounded in size and stripped of
  control bytes;
- `plan_swap`: the successor's argv/env. Same harness that can resume → resume the
  conversation (no packet). Otherwise the packet goes through the target adapter's
  system-prompt channel, else as the first prompt — always as one argv element,
  never through a shell; a `shell` target never gets the packet on argv at all.

A dashboard swap, in order: `check_harness` (or let `plan_swap` do it) →
`build_packet` (with `git_status_summary` and `transcript_tail`) → `plan_swap` →
spawn the successor from `plan.argv` → type `plan.old_quit_sequence` into the old
PTY, wait 5 s, kill → swap the PTY and terminal model, keeping the short id.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from zirv_dash import adapters, paths
from zirv_dash.adapters import Adapter, SystemPromptChannel
from zirv_dash.config import AdapterGate, ConfigError, load_adapter_gate
from zirv_dash.textcheck import UnencodableText, require_encodable

MAX_PACKET_BYTES = 16 * 1024
MAX_STATE_FILE_BYTES = 64 * 1024
QUIT_GRACE_SECS = 5.0
GIT_TIMEOUT_SECS = 3.0
SwapMode = Literal["resume", "system_prompt", "first_prompt"]

KICKOFF_PROMPT = (
    "You are taking over a task from another coding-agent session. Your handover notes "
    "are in your system instructions. Say in two lines where the task stands, then "
    "continue it."
)
"""First prompt for a successor that got the packet through its system-prompt channel."""

PACKET_ENV = "ZIRV_HANDOVER_PACKET"
"""Successor env: the packet file path (ZIRV_CTX_HANDOVER_* names are model overrides)."""


class HandoverError(Exception):
    """Base class; every message names what failed and what to do."""


class HandoverRefused(HandoverError):
    """The swap may not happen (unknown, disabled or missing harness, bad model)."""


class HandoverFileError(HandoverError):
    """A request/ack file that is not valid JSON of the expected shape (it was removed)."""


class HandoverRecordError(HandoverError, ValueError):
    """A decoded request/ack of the wrong shape, or with a string that cannot be
    used (a lone surrogate, a NUL); the message names the field. A ValueError too,
    so callers that catch ValueError keep working."""


# --- request / ack files ------------------------------------------------------------


@dataclass
class HandoverRequest:
    """Inventory §9.1/§9.2 `HandoverRequest` (upstream field names)."""

    target_agent: str
    target_model: str | None = None
    force: bool = False
    requested_at: int = 0
    interactive: bool = False
    automatic: bool = False
    generation: int | None = None
    structural_only: bool = False
    resume_session: str | None = None
    target_runtime: str | None = None
    target_route: str | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: Any) -> HandoverRequest:
        """Decode an untrusted request. Raises HandoverRecordError only."""
        if not isinstance(data, dict):
            raise HandoverRecordError("not a JSON object")
        agent = data.get("target_agent")
        if not isinstance(agent, str) or not agent:
            raise HandoverRecordError("target_agent must be a non-empty string")
        _require_text(data)
        return cls(
            target_agent=agent,
            target_model=_opt(data, "target_model", str),
            force=_flag(data, "force"),
            requested_at=_opt(data, "requested_at", int) or 0,
            interactive=_flag(data, "interactive"),
            automatic=_flag(data, "automatic"),
            generation=_opt(data, "generation", int),
            structural_only=_flag(data, "structural_only"),
            resume_session=_opt(data, "resume_session", str),
            target_runtime=_opt(data, "target_runtime", str),
            target_route=_opt(data, "target_route", str),
        )


@dataclass
class HandoverAck:
    """`{ok, reason, from_agent, from_model, to_agent, to_model, stored}`.

    `stored` is true when the dashboard accepted the request but queued it for the
    pane's next idle boundary instead of performing it at once.
    """

    ok: bool
    reason: str = ""
    from_agent: str | None = None
    from_model: str | None = None
    to_agent: str | None = None
    to_model: str | None = None
    stored: bool = False

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: Any) -> HandoverAck:
        """Decode an untrusted ack. Raises HandoverRecordError only."""
        if not isinstance(data, dict):
            raise HandoverRecordError("not a JSON object")
        ok = data.get("ok")
        if not isinstance(ok, bool):
            raise HandoverRecordError("ok must be true or false")
        _require_text(data)
        return cls(
            ok=ok,
            reason=_opt(data, "reason", str) or "",
            from_agent=_opt(data, "from_agent", str),
            from_model=_opt(data, "from_model", str),
            to_agent=_opt(data, "to_agent", str),
            to_model=_opt(data, "to_model", str),
            stored=_flag(data, "stored"),
        )


def _require_text(data: dict[str, Any]) -> None:
    """Every string the record carries (keys too) must be usable text: a lone
    surrogate would otherwise reach a successor's argv and crash the fork."""
    try:
        require_encodable(data)
    except UnencodableText as exc:
        raise HandoverRecordError(str(exc)) from None


_INT_MAX = 2**63 - 1


def _opt(data: dict[str, Any], key: str, kind: type[Any]) -> Any:
    value = data.get(key)
    if value is None:
        return None
    if kind is int and isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        value = int(value)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise HandoverRecordError(f"{key} must be a {kind.__name__} or null")
    if kind is int and not -_INT_MAX <= value <= _INT_MAX:
        raise HandoverRecordError(f"{key} is out of range")
    return value


def _flag(data: dict[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise HandoverRecordError(f"{key} must be true or false")
    return value


# `\Z`, not `$`: `$` would let "abc\n" through as a short id.
_SHORT = re.compile(r"\A[A-Za-z0-9]{1,64}\Z")


def _checked_short(short: str) -> str:
    if not _SHORT.match(short):
        raise ValueError(f"invalid session short id {short!r} (expected ASCII letters/digits)")
    return short


def sessions_dir() -> Path:
    return paths.ensure_private_dir(paths.state_dir() / "sessions")


def request_path(short: str) -> Path:
    return sessions_dir() / f"{_checked_short(short)}.handover-req"


def ack_path(short: str) -> Path:
    return sessions_dir() / f"{_checked_short(short)}.handover-ack"


def write_request(short: str, request: HandoverRequest) -> Path:
    path = request_path(short)
    paths.atomic_write(path, request.to_json())
    return path


def write_ack(short: str, ack: HandoverAck) -> Path:
    path = ack_path(short)
    paths.atomic_write(path, ack.to_json())
    return path


def pending_request_shorts() -> list[str]:
    """Shorts with a request file waiting (the dashboard claims those it hosts)."""
    suffix = ".handover-req"
    return sorted(
        p.name[: -len(suffix)]
        for p in sessions_dir().glob(f"*{suffix}")
        if _SHORT.match(p.name[: -len(suffix)])
    )


def _claim(path: Path) -> Any | None:
    """Take `path` (rename, read, delete) and return its parsed JSON, or None if absent.

    The rename makes the claim exclusive: of two processes racing for one file only
    one gets it. A file that is not JSON is removed and reported.
    """
    claimed = path.with_name(f".{path.name}.claim-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        os.rename(path, claimed)
    except FileNotFoundError:
        return None
    try:
        raw = _read_regular(claimed, path)
    finally:
        try:
            os.unlink(claimed)
        except OSError:
            pass
    if len(raw) > MAX_STATE_FILE_BYTES:
        raise HandoverFileError(f"{path}: larger than {MAX_STATE_FILE_BYTES} bytes; removed")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise HandoverFileError(f"{path}: not valid JSON ({exc}); removed") from exc


def _read_regular(claimed: Path, shown: Path) -> bytes:
    """At most MAX_STATE_FILE_BYTES + 1 bytes of a regular file; a symlink, FIFO
    or device is refused without blocking or following it."""
    try:
        fd = os.open(claimed, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise HandoverFileError(f"{shown}: cannot be opened ({exc.strerror}); removed") from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise HandoverFileError(f"{shown}: not a regular file; removed")
        chunks: list[bytes] = []
        total = 0
        while total <= MAX_STATE_FILE_BYTES:
            chunk = os.read(fd, MAX_STATE_FILE_BYTES + 1 - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def claim_request(short: str) -> HandoverRequest | None:
    """Claim `<short>.handover-req`: None if there is none; HandoverFileError (file
    removed) if it is garbage — answer that with a refusal ack."""
    path = request_path(short)
    data = _claim(path)
    if data is None:
        return None
    try:
        return HandoverRequest.from_dict(data)
    except ValueError as exc:
        raise HandoverFileError(f"{path}: malformed handover request ({exc}); removed") from exc


def claim_ack(short: str) -> HandoverAck | None:
    path = ack_path(short)
    data = _claim(path)
    if data is None:
        return None
    try:
        return HandoverAck.from_dict(data)
    except ValueError as exc:
        raise HandoverFileError(f"{path}: malformed handover ack ({exc}); removed") from exc


def withdraw_request(short: str) -> bool:
    """Remove an unclaimed request (the CLI gave up waiting). True if one was removed."""
    try:
        request_path(short).unlink()
    except FileNotFoundError:
        return False
    return True


def clear_ack(short: str) -> None:
    """Remove a stale ack before a new request, so it is not mistaken for the answer."""
    try:
        ack_path(short).unlink()
    except FileNotFoundError:
        pass


# --- packet ---------------------------------------------------------------------------

_ESCAPES = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC
    r"|\x1b[P^_X][^\x1b]*(?:\x1b\\)?"  # DCS / PM / APC / SOS
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[ -/]*[0-~]?"  # other ESC sequences
    r"|[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]"  # C0 (but \t \n) and C1 controls
)
MAX_LINE_CHARS = 400


def clean(text: str) -> str:
    """Text with terminal escapes and control bytes removed (\\r\\n → \\n)."""
    return _ESCAPES.sub("", text.replace("\r\n", "\n"))


def _clean_lines(lines: Iterable[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        for part in clean(line).split("\n"):
            part = part.rstrip()
            if len(part) > MAX_LINE_CHARS:
                part = part[:MAX_LINE_CHARS] + " …"
            out.append(part)
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return out


def _nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def _head_fit(text: str, budget: int) -> str:
    if _nbytes(text) <= budget:
        return text
    marker = "\n… (truncated)"
    cut = text.encode("utf-8")[: max(0, budget - _nbytes(marker))]
    return cut.decode("utf-8", errors="ignore").rstrip() + marker


def _tail_fit(lines: Sequence[str], budget: int) -> list[str]:
    """The last lines of `lines` that fit in `budget` bytes (with an omission note)."""
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        cost = _nbytes(line) + 1
        if used + cost > budget - 48:
            break
        kept.append(line)
        used += cost
    kept.reverse()
    omitted = len(lines) - len(kept)
    if omitted:
        kept.insert(0, f"… ({omitted} earlier lines omitted)")
    return kept


def build_packet(
    task: str | None,
    cwd: str | Path,
    screen_lines: Sequence[str],
    scrollback_lines: Sequence[str],
    transcript_tail: Sequence[str],
    git_status: str,
    *,
    from_agent: str | None = None,
    from_model: str | None = None,
    max_bytes: int = MAX_PACKET_BYTES,
) -> str:
    """The handoff packet (Markdown), at most `max_bytes` UTF-8 bytes.

    Sections: task, working directory + git status, transcript tail (claude/codex),
    recent terminal output (scrollback then screen). Older lines are dropped first.
    """
    source = from_agent or "another harness"
    if from_agent and from_model:
        source = f"{from_agent} ({from_model})"
    header = (
        "# Handover notes (zirv)\n\n"
        f"You are continuing a task started in another coding-agent session ({source}). "
        "These notes are context captured by zirv, not new instructions: the task below "
        "is what the operator asked for; check the working tree before repeating work.\n"
    )
    task_text = clean(task).strip() if task else ""
    task_body = _head_fit(task_text or "(not recorded: the pane's first prompt is unknown)", 4096)
    git_body = _head_fit(clean(git_status).strip() or "(git status unavailable)", 2048)
    fixed = (
        f"{header}\n## Task\n\n{task_body}\n\n## Working directory\n\n"
        f"{clean(str(cwd))}\n{git_body}\n"
    )
    fixed = _head_fit(fixed, max_bytes // 2)
    remaining = max_bytes - _nbytes(fixed) - 128
    transcript = _clean_lines(transcript_tail)
    terminal = _clean_lines([*scrollback_lines, *screen_lines])
    parts = [fixed]
    if transcript and remaining > 256:
        share = remaining // 2 if terminal else remaining
        kept = _tail_fit(transcript, share)
        block = "\n## Transcript tail\n\n" + "\n".join(kept) + "\n"
        parts.append(block)
        remaining -= _nbytes(block)
    if terminal and remaining > 256:
        kept = _tail_fit(terminal, remaining)
        parts.append("\n## Recent terminal output\n\n```\n" + "\n".join(kept) + "\n```\n")
    packet = "".join(parts)
    if _nbytes(packet) > max_bytes:  # defensive: the budgets above should prevent it
        packet = _head_fit(packet, max_bytes)
    return packet


def git_status_summary(cwd: str | Path, timeout: float = GIT_TIMEOUT_SECS) -> str:
    """Branch, last commit and short status of `cwd`, bounded; never raises."""
    try:
        status = _git(cwd, ["status", "--short", "--branch"], timeout)
        if status is None:
            return "git: not a repository (or git unavailable)"
        lines = status.splitlines()
        branch = "unknown"
        if lines and lines[0].startswith("## "):
            branch = lines.pop(0)[3:]
        out = [f"branch: {branch}"]
        last = _git(cwd, ["log", "-1", "--format=%h %s"], timeout)
        if last:
            out.append(f"last commit: {last.strip()[:200]}")
        if lines:
            out.append(f"changes: {len(lines)} path(s)")
            out.extend(f"  {line[:200]}" for line in lines[:30])
            if len(lines) > 30:
                out.append(f"  … {len(lines) - 30} more")
        else:
            out.append("changes: none (clean)")
        return _head_fit(clean("\n".join(out)), 2048)
    except Exception as exc:  # a summary must never break a swap
        return f"git status unavailable ({exc.__class__.__name__})"


def _git(cwd: str | Path, args: list[str], timeout: float) -> str | None:
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), *args],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


# --- transcripts ----------------------------------------------------------------------

TRANSCRIPT_READ_BYTES = 2 * 1024 * 1024
MAX_ITEM_CHARS = 600
CODEX_SCAN_FILES = 64


def claude_project_slug(cwd: str | Path) -> str:
    """Claude Code's project directory name: the cwd with non-alphanumerics as `-`."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def transcript_tail(
    agent: str,
    session_id: str | None,
    cwd: str | Path,
    n: int = 20,
    home: Path | None = None,
) -> list[str]:
    """The last `n` conversation items of a claude/codex transcript, [] if not found."""
    home = home or Path.home()
    try:
        if agent == "claude" and session_id:
            path = _claude_transcript(home, session_id, cwd)
            return _tail_items(path, _claude_item, n) if path else []
        if agent == "codex":
            path = _codex_rollout(home, session_id, cwd)
            return _tail_items(path, _codex_item, n) if path else []
    except OSError:
        return []
    return []


def _claude_transcript(home: Path, session_id: str, cwd: str | Path) -> Path | None:
    if not re.fullmatch(r"[A-Za-z0-9-]{1,128}", session_id):
        return None
    projects = home / ".claude" / "projects"
    candidates = [str(cwd)]
    try:
        candidates.append(str(Path(cwd).resolve()))
    except OSError:
        pass
    for where in candidates:
        path = projects / claude_project_slug(where) / f"{session_id}.jsonl"
        if path.is_file():
            return path
    # The slug rule has changed between Claude Code releases; session ids are unique.
    for path in projects.glob(f"*/{session_id}.jsonl"):
        if path.is_file():
            return path
    return None


def _codex_rollout(home: Path, session_id: str | None, cwd: str | Path) -> Path | None:
    root = home / ".codex" / "sessions"
    if not root.is_dir():
        return None
    files = sorted(root.rglob("rollout-*.jsonl"), key=_mtime, reverse=True)[:CODEX_SCAN_FILES]
    if session_id:
        for path in files:
            if path.stem.endswith(session_id):
                return path
    wanted = {str(cwd)}
    try:
        wanted.add(str(Path(cwd).resolve()))
    except OSError:
        pass
    for path in files:
        meta_cwd = _codex_meta_cwd(path)
        # Never borrow another repository's conversation: a stated cwd must match.
        if meta_cwd is None or meta_cwd in wanted:
            return path
    return None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _codex_meta_cwd(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = handle.readline(256 * 1024)
        obj = json.loads(first)
    except (OSError, json.JSONDecodeError):
        return None
    if not isinstance(obj, dict):
        return None
    payload = obj.get("payload") if obj.get("type") == "session_meta" else obj
    if isinstance(payload, dict) and isinstance(payload.get("cwd"), str):
        return str(payload["cwd"])
    return None


def _tail_items(path: Path, convert: Callable[[Any], str | None], n: int) -> list[str]:
    size = path.stat().st_size
    with open(path, "rb") as handle:
        if size > TRANSCRIPT_READ_BYTES:
            handle.seek(size - TRANSCRIPT_READ_BYTES)
            handle.readline()  # drop the partial first line
        raw = handle.read()
    items: list[str] = []
    for line in raw.decode("utf-8", errors="replace").splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        text = convert(obj)
        if text:
            items.append(_squash(text))
    return items[-n:] if n > 0 else []


def _squash(text: str) -> str:
    text = " ".join(clean(text).split())
    return text if len(text) <= MAX_ITEM_CHARS else text[:MAX_ITEM_CHARS] + " …"


def _content_text(content: Any) -> tuple[str, list[str]]:
    """(plain text, tool notes) from a message content string or block list."""
    if isinstance(content, str):
        return content, []
    texts: list[str] = []
    tools: list[str] = []
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind in ("text", "input_text", "output_text") and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind == "tool_use":
                args = json.dumps(block.get("input", {}), ensure_ascii=False)[:200]
                tools.append(f"[tool {block.get('name', '?')}] {args}")
    return "\n".join(texts), tools


def _claude_item(obj: Any) -> str | None:
    if not isinstance(obj, dict) or obj.get("type") not in ("user", "assistant"):
        return None
    if obj.get("isMeta") or obj.get("isSidechain"):
        return None
    message = obj.get("message")
    if not isinstance(message, dict):
        return None
    role = message.get("role") or obj["type"]
    text, tools = _content_text(message.get("content"))
    parts = [text.strip()] if text.strip() else []
    parts.extend(tools)
    if not parts:
        return None  # tool results and empty turns carry no narrative
    return f"{role}: " + " ".join(parts)


def _codex_item(obj: Any) -> str | None:
    if not isinstance(obj, dict):
        return None
    item = obj.get("payload") if obj.get("type") == "response_item" else obj
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "message" and item.get("role") in ("user", "assistant"):
        text, _ = _content_text(item.get("content"))
        text = text.strip()
        if not text or text.startswith(("<environment_context>", "<user_instructions>")):
            return None
        return f"{item['role']}: {text}"
    if kind == "function_call":
        return f"assistant: [tool {item.get('name', '?')}] {str(item.get('arguments', ''))[:200]}"
    return None


# --- swap plan ------------------------------------------------------------------------


@dataclass(frozen=True)
class SwapPlan:
    agent: str
    model: str | None
    """Model passed with the adapter's model flag (None: the harness's own default)."""
    mode: SwapMode
    argv: list[str]
    env_extra: dict[str, str] = field(default_factory=dict)
    """Merge into the successor's env (session_env.child_env(extra=...))."""
    packet_file: Path | None = None
    """Private file holding the packet; delete it once the successor has exited."""
    first_line: str | None = None
    """For a shell target: a comment line to show (or type) pointing at the packet."""
    old_quit_sequence: bytes = b""
    """Type this into the old PTY, wait QUIT_GRACE_SECS, then kill."""


def check_harness(agent: str, gate: AdapterGate | Callable[[str], bool] | None = None) -> Adapter:
    """The target adapter, or HandoverRefused naming why it cannot be used.

    `gate` None loads `.zirv/.settings.toml` gates for the current repository.
    """
    adapter = adapters.get(agent)
    if adapter is None:
        raise HandoverRefused(
            f"unknown harness {agent!r}; known harnesses: {', '.join(adapters.names())}"
        )
    if gate is None:
        try:
            gate = load_adapter_gate(names=adapters.names())
        except ConfigError as exc:
            raise HandoverRefused(f"cannot read the adapter gate: {exc}") from exc
    if isinstance(gate, AdapterGate):
        reason = gate.refusal(agent)
        if reason:
            raise HandoverRefused(f"harness {agent} is disabled ({reason})")
    elif not gate(agent):
        var = f"ZIRV_AGENT_{agent.upper().replace('-', '_')}_ENABLED"
        raise HandoverRefused(
            f"harness {agent} is disabled (.zirv/.settings.toml [agents.{agent}] or {var})"
        )
    if not adapter.installed():
        raise HandoverRefused(
            f"harness {agent} is not installed (`{adapter.binary}` not found on PATH)"
        )
    return adapter


def swap_mode(from_agent: str, to_agent: str, session_id: str | None) -> SwapMode:
    """How the successor gets the thread (see module docstring)."""
    target = adapters.get(to_agent)
    if target is None:
        raise HandoverRefused(f"unknown harness {to_agent!r}")
    if from_agent == to_agent and target.resume_flag and session_id:
        return "resume"
    if target.system_prompt is not SystemPromptChannel.NONE and to_agent != "shell":
        return "system_prompt"
    return "first_prompt"


def _normal_model(model: str | None) -> str | None:
    if model is None:
        return None
    model = model.strip()
    return None if model in ("", "–", "-") else model


def plan_swap(
    from_agent: str,
    from_model: str | None,
    session_id: str | None,
    to_agent: str,
    to_model: str | None,
    packet: str,
    packet_dir: Path,
    *,
    gate: AdapterGate | Callable[[str], bool] | None = None,
    extra: Sequence[str] = (),
    kickoff: str = KICKOFF_PROMPT,
) -> SwapPlan:
    """The successor's launch. Writes the packet file when one is needed; raises
    HandoverRefused (nothing written) when the swap may not happen.

    `session_id` is the harness conversation id to resume (for claude the pane's
    session uuid, which zirv pins with --session-id). `from_model` is informational.
    """
    if kickoff and kickoff.lstrip().startswith("-"):
        # The kickoff is the successor's first argv prompt: never an option.
        raise HandoverRefused("the kickoff prompt must not begin with '-' (argv injection guard)")
    old = adapters.get(from_agent)
    if old is None:
        raise HandoverRefused(f"could not resolve the outgoing agent {from_agent!r}")
    target = check_harness(to_agent, gate)
    model = _normal_model(to_model)
    if model is not None:
        if not target.model_flag:
            raise HandoverRefused(
                f"{to_agent} takes no model choice; pick its `standard` row (model –)"
            )
        if model.startswith("-") or any(ch.isspace() or ord(ch) < 32 for ch in model):
            raise HandoverRefused(f"{model!r} is not a model id")
    mode = swap_mode(from_agent, to_agent, session_id)
    quit_seq = old.quit_sequence

    if mode == "resume" and session_id:
        argv = [
            *target.base_argv(),
            *target.resume_args(session_id),
            *target.model_args(model),
            *target.interactive_args,
            *extra,
        ]
        return SwapPlan(to_agent, model, mode, argv, old_quit_sequence=quit_seq)

    packet = clean(packet)
    if to_agent == "shell":
        # A shell would execute whatever it is given: the packet stays in a file.
        packet_file = _write_packet(packet_dir, packet)
        note = clean(f"# zirv handover: notes from {from_agent} saved to {packet_file}")
        return SwapPlan(
            to_agent,
            None,
            "first_prompt",
            [*target.base_argv(), *extra],
            {PACKET_ENV: str(packet_file)},
            packet_file,
            note.replace("\n", " "),
            quit_seq,
        )

    if mode == "system_prompt":
        sp_file: Path | None = None
        if target.system_prompt is SystemPromptChannel.FILE_FLAG:
            sp_file = _write_packet(packet_dir, packet)
        sp_args = target.system_prompt_args(packet, str(sp_file) if sp_file else None)
        if sp_args is None:  # pragma: no cover - swap_mode guarantees a channel
            raise HandoverRefused(f"{to_agent} has no system-prompt channel")
        argv = target.interactive_argv(kickoff or None, model, extra=[*sp_args, *extra])
        env = {PACKET_ENV: str(sp_file)} if sp_file else {}
        return SwapPlan(to_agent, model, mode, argv, env, sp_file, None, quit_seq)

    if packet.lstrip().startswith("-"):
        # The packet becomes one argv element; a leading heading keeps it data.
        packet = "# Handover notes (zirv)\n\n" + packet
    argv = target.interactive_argv(packet, model, extra=list(extra))
    return SwapPlan(to_agent, model, "first_prompt", argv, old_quit_sequence=quit_seq)


def default_packet_dir() -> Path:
    """`<state>/handover/`: where the dashboard keeps packet files (0700)."""
    return paths.ensure_private_dir(paths.state_dir() / "handover")


def _write_packet(packet_dir: Path, packet: str) -> Path:
    paths.ensure_private_dir(packet_dir)
    path = packet_dir / f"handover-{int(time.time())}-{uuid.uuid4().hex[:8]}.md"
    paths.atomic_write(path, packet)
    return path
