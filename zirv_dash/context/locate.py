"""Where a live pane's conversation file is: claude by its pinned session id, codex by cwd and time.

- claude (@anthropic-ai/claude-code 2.1.197): a session pinned with
  `--session-id <id>` writes `<config>/projects/<slug>/<id>.jsonl`, `<config>`
  being `$CLAUDE_CONFIG_DIR` or `~/.claude` and `<slug>` the cwd with every
  non-alphanumeric character as `-`. The dashboard pins claude panes to their
  own session id, so the file is known by name (a successor started without
  the pin is found by time, as below).
- codex (@openai/codex 0.171.0): rollouts are
  `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl` (`$CODEX_HOME`
  moves the root), their first line the `session_meta` with the `cwd`. Codex
  takes no id of ours: a pane's rollout is the oldest one created since the
  pane started whose `cwd` is the pane's, not already claimed by another pane.
- gemini (@google/gemini-cli 0.61.0, `bundle/chunk-5FZXKDXH.js`, `Storage`
  and `ProjectRegistry`): `~/.gemini/projects.json` maps each project root to
  a short id, and that project's chats are
  `~/.gemini/tmp/<short id>/chats/session-<time>-<id8>.jsonl`.
- qwen (@qwen-code/qwen-code 0.15.10, `cli.js`, `Storage.getProjectDir`,
  `sanitizeCwd`): `~/.qwen/projects/<cwd, non-alphanumerics as ->/chats/<session>.jsonl`
  (`QWEN_RUNTIME_DIR` moves the root).
Neither takes an id of ours: as for codex, a pane's file is the oldest one
created in its project's chat directory since the pane started, not claimed by
another pane.

Bounded: claude is one `stat`; the others list one directory (codex: the day
directories since the pane started) and codex reads one line of a candidate.
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


def gemini_chats(cwd: Path, home: Path | None = None) -> Path | None:
    """The project's chat directory, from gemini-cli's project registry."""
    registry = (home or Path.home()) / ".gemini" / "projects.json"
    try:
        with open(registry, "rb") as handle:
            data = json.loads(handle.read(FIRST_LINE_CAP))
    except (OSError, ValueError):
        return None
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return None
    for where in _spellings(cwd):
        short = projects.get(where)
        if isinstance(short, str) and re.fullmatch(r"[A-Za-z0-9._-]{1,128}", short):
            return (home or Path.home()) / ".gemini" / "tmp" / short / "chats"
    return None


def qwen_chats(cwd: Path, home: Path | None = None) -> Path:
    configured = os.environ.get("QWEN_RUNTIME_DIR")
    root = Path(configured) if configured and Path(configured).is_absolute() else None
    root = root or (home or Path.home()) / ".qwen"
    return root / "projects" / claude_slug(cwd) / "chats"


def watch_root(harness: str, cwd: Path, *, home: Path | None = None) -> Path | None:
    """The directory a file watcher should watch for this harness's files."""
    if harness == "claude":
        return claude_root(home) / "projects" / claude_slug(cwd)
    if harness == "codex":
        return codex_root(home)
    if harness == "gemini":
        return gemini_chats(cwd, home)
    if harness == "qwen":
        return qwen_chats(cwd, home)
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
    pinned: bool = True,
) -> Path | None:
    """The pane's transcript, or None while it does not exist (or cannot be told).

    `pinned`: claude runs with our session id (`--session-id`, or `--resume` of
    it), so its file is known by name. A claude started by a handover without
    one (from another harness, or a fresh restart) is found like codex's: the
    oldest file of its project written since it started, not claimed."""
    if harness == "claude":
        if not pinned:
            found = _since(claude_root(home) / "projects" / claude_slug(cwd), started_at, exclude)
            return found[0] if found else None
        return _claude(session_id, cwd, home)
    if harness == "codex":
        return _codex(cwd, started_at, home, exclude)
    if harness in ("gemini", "qwen"):
        chats = watch_root(harness, cwd, home=home)
        found = _since(chats, started_at, exclude) if chats is not None else []
        return found[0] if found else None
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
    candidates: list[Path] = []
    for day in _days_since(codex_root(home), started_at):
        candidates += _since(day, started_at, exclude, prefix="rollout-")
    for path in candidates[:CODEX_SCAN]:
        if _codex_cwd(path) in wanted:
            return path
    return None


def _since(
    directory: Path, started_at: float, exclude: frozenset[Path], prefix: str = ""
) -> list[Path]:
    """The `.jsonl` files of `directory` written since `started_at`, oldest first."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    found: list[tuple[float, Path]] = []
    for name in names:
        path = directory / name
        if not (name.startswith(prefix) and name.endswith(".jsonl")) or path in exclude:
            continue
        try:
            written = path.stat().st_mtime
        except OSError:
            continue
        if written + 1 >= started_at:
            found.append((written, path))
    return [path for _, path in sorted(found)]


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
