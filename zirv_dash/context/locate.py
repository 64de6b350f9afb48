"""Where a live pane's conversation file is: claude by its pinned session id, codex by cwd and time.

- claude (@anthropic-ai/claude-code 2.1.197): a session pinned with
  `--session-id <id>` writes `<config>/projects/<slug>/<id>.jsonl`, `<config>`
  being `$CLAUDE_CONFIG_DIR` or `~/.claude` and `<slug>` the cwd with every
  non-alphanumeric character as `-`. The dashboard pins claude panes to their
  own session id, so the file is known by name.
- codex (@openai/codex 0.171.0): rollouts are
  `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl` (`$CODEX_HOME`
  moves the root), their first line the `session_meta` with the `cwd`. Codex
  takes no id of ours: a pane's rollout is the oldest one created since the
  pane started whose `cwd` is the pane's, not already claimed by another pane.
- gemini and qwen write per-project chat files whose names we cannot tie to
  a pane; they are not located (the reading stays unknown, never a guess).

Bounded: claude is one `stat`; codex lists only the day directories since the
pane started and reads one line of each candidate.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

CODEX_SCAN = 64
"""Rollout files looked at per search, newest day first."""
FIRST_LINE_CAP = 256 * 1024


def claude_root(home: Path | None = None) -> Path:
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    if configured and Path(configured).is_absolute():
        return Path(configured)
    return (home or Path.home()) / ".claude"


def claude_slug(cwd: str | Path) -> str:
    """Claude Code's project directory name for `cwd`."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def codex_root(home: Path | None = None) -> Path:
    configured = os.environ.get("CODEX_HOME")
    if configured and Path(configured).is_absolute():
        return Path(configured) / "sessions"
    return (home or Path.home()) / ".codex" / "sessions"


def watch_root(harness: str, cwd: Path, *, home: Path | None = None) -> Path | None:
    """The directory a file watcher should watch for this harness's files."""
    if harness == "claude":
        return claude_root(home) / "projects" / claude_slug(cwd)
    if harness == "codex":
        return codex_root(home)
    return None


def relevant(harness: str, session_id: str) -> Callable[[str], bool]:
    """A filter on changed paths under `watch_root`."""
    if harness == "claude":
        return lambda path: session_id in path and path.endswith(".jsonl")
    return lambda path: path.endswith(".jsonl")


def locate(
    harness: str,
    session_id: str,
    cwd: Path,
    started_at: float,
    *,
    home: Path | None = None,
    exclude: frozenset[Path] = frozenset(),
) -> Path | None:
    """The pane's transcript, or None while it does not exist (or cannot be told)."""
    if harness == "claude":
        return _claude(session_id, cwd, home)
    if harness == "codex":
        return _codex(cwd, started_at, home, exclude)
    return None


def _claude(session_id: str, cwd: Path, home: Path | None) -> Path | None:
    if not re.fullmatch(r"[A-Za-z0-9-]{1,128}", session_id):
        return None
    projects = claude_root(home) / "projects"
    for where in _spellings(cwd):
        path = projects / claude_slug(where) / f"{session_id}.jsonl"
        if path.is_file():
            return path
    return None


def _spellings(cwd: Path) -> list[str]:
    out = [str(cwd)]
    try:
        resolved = str(cwd.resolve())
    except OSError:
        return out
    return out if resolved in out else [*out, resolved]


def _codex(
    cwd: Path, started_at: float, home: Path | None, exclude: frozenset[Path]
) -> Path | None:
    wanted = set(_spellings(cwd))
    candidates: list[tuple[float, Path]] = []
    for day in _days_since(codex_root(home), started_at):
        try:
            names = os.listdir(day)
        except OSError:
            continue
        for name in names:
            path = day / name
            if not (name.startswith("rollout-") and name.endswith(".jsonl")) or path in exclude:
                continue
            try:
                created = path.stat().st_mtime
            except OSError:
                continue
            if created + 1 >= started_at:
                candidates.append((created, path))
    candidates.sort()
    for _, path in candidates[:CODEX_SCAN]:
        if _codex_cwd(path) in wanted:
            return path
    return None


def _days_since(root: Path, started_at: float) -> list[Path]:
    """`root/YYYY/MM/DD` for each local day from the pane's start until now."""
    days: list[Path] = []
    moment = started_at - 86_400  # a rollout dated by UTC may sit a day off local time
    now = time.time() + 86_400
    while moment <= now and len(days) < 40:
        days.append(root / time.strftime("%Y/%m/%d", time.localtime(moment)))
        moment += 86_400
    return [d for d in dict.fromkeys(days) if d.is_dir()]


def _codex_cwd(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            first = handle.readline(FIRST_LINE_CAP)
        obj = json.loads(first)
    except (OSError, ValueError):
        return None
    payload = obj.get("payload") if isinstance(obj, dict) else None
    if isinstance(payload, dict) and isinstance(payload.get("cwd"), str):
        return str(payload["cwd"])
    return None
