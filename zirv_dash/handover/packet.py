"""The handoff packet a successor harness gets: task, cwd + git status, transcript
tail and recent terminal output, bounded in size and stripped of control bytes."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

MAX_PACKET_BYTES = 16 * 1024
GIT_TIMEOUT_SECS = 3.0

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
