"""Where a live pane's conversation file is: claude by its pinned id, the others by cwd and time.

- claude (@anthropic-ai/claude-code 2.1.197, `bin/claude.exe`, functions
  `$E`, `Kx`, `Zh`, `Zn`, `Tk`): a session pinned with `--session-id <id>`
  writes `<config>/projects/<slug>/<id>.jsonl`. `<config>` is
  `$CLAUDE_CONFIG_DIR` or `~/.claude`; `<slug>` is the realpath of the cwd with
  every UTF-16 unit that is not `[a-zA-Z0-9]` as `-`, and a slug over 200
  units is cut to 200 and given `-<base36 of |31-hash of the path|>` (older
  releases used another hash there, so Claude also tries any directory with
  that 200-unit prefix). Subagents write
  `<slug>/<session>/subagents[/<subdir>]/agent-<id>.jsonl`. The dashboard pins
  claude panes to their own id, so the file is known by name (a successor
  started without the pin is found by time, as below).
- codex (@openai/codex 0.171.0): rollouts are
  `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl` (`$CODEX_HOME`
  moves the root), their first line the `session_meta` with the `cwd`. Codex
  takes no id of ours: a pane's rollout is the oldest one created since the
  pane started whose `cwd` is the pane's, not already claimed by another pane.
- gemini (@google/gemini-cli 0.61.0, `bundle/chunk-5FZXKDXH.js`, `homedir`,
  `Storage`, `ProjectRegistry`, `ChatRecordingService`): `$GEMINI_CLI_HOME`
  or the home holds `.gemini/projects.json`, mapping each project root
  (`path.resolve`d) to a short id; a root missing there is found by the
  `.project_root` marker file of `.gemini/tmp/<short id>/`, as gemini-cli
  itself does. Chats are `.gemini/tmp/<short id>/chats/session-<time>-<id8>.jsonl`
  (subagents: `chats/<parent session>/<id>.jsonl`). The older
  `tmp/<sha256 of the root>/` directory ("projectHash") is migrated into the
  short-id one at start-up, so it is not looked at.
- qwen (@qwen-code/qwen-code 0.15.10, `cli.js`, `Storage.getRuntimeBaseDir`,
  `getGlobalQwenDir`, `getProjectDir`, `sanitizeCwd`):
  `<runtime>/projects/<cwd, non-alphanumerics as ->/chats/<session>.jsonl`,
  `<runtime>` being `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`.
Gemini and qwen take no id of ours: as for codex, a pane's file is the oldest
one created in its project's chat directory since the pane started, not
claimed by another pane.

Bounded: claude is a `stat` or two; the others list one directory (codex: the
day directories since the pane started), codex reads one line of at most
`CODEX_SCAN` candidates, and no tree is walked without a cap.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

CODEX_SCAN = 64
"""Rollout files looked at per search, newest day first."""
FIRST_LINE_CAP = 256 * 1024
SLUG_MAX = 200
"""Claude Code's `rtt`: the longest slug kept whole."""
LIST_CAP = 4096
"""Directory entries looked at in one listing (project dirs, gemini markers)."""
SUBAGENT_CAP = 512
SESSION_ID = re.compile(r"[A-Za-z0-9-]{1,128}")


def _env_dir(name: str) -> Path | None:
    configured = os.environ.get(name)
    return Path(configured) if configured and Path(configured).is_absolute() else None


def claude_root(home: Path | None = None) -> Path:
    return _env_dir("CLAUDE_CONFIG_DIR") or (home or Path.home()) / ".claude"


def _js_hash36(text: str) -> str:
    """Claude Code's `jCe` (31-hash over UTF-16 units, 32-bit), as `Math.abs(h).toString(36)`."""
    data = text.encode("utf-16-le", "surrogatepass")
    value = 0
    for i in range(0, len(data), 2):
        value = (value * 31 + (data[i] | data[i + 1] << 8)) & 0xFFFFFFFF
    value = abs(value - (1 << 32) if value >= 1 << 31 else value)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        value, rest = divmod(value, 36)
        out = digits[rest] + out
        if not value:
            return out


def _slug_whole(cwd: str) -> str:
    # JavaScript replaces per UTF-16 unit: a character beyond the BMP is two.
    return "".join(
        ch if ch.isascii() and ch.isalnum() else ("--" if ord(ch) > 0xFFFF else "-") for ch in cwd
    )


def claude_slug(cwd: str | Path) -> str:
    """Claude Code's project directory name for `cwd`."""
    slug = _slug_whole(str(cwd))
    if len(slug) <= SLUG_MAX:
        return slug
    return f"{slug[:SLUG_MAX]}-{_js_hash36(str(cwd))}"


def codex_root(home: Path | None = None) -> Path:
    configured = _env_dir("CODEX_HOME")
    return configured / "sessions" if configured else (home or Path.home()) / ".codex" / "sessions"


def gemini_root(home: Path | None = None) -> Path:
    return (_env_dir("GEMINI_CLI_HOME") or home or Path.home()) / ".gemini"


def gemini_chats(cwd: Path, home: Path | None = None) -> Path | None:
    """The project's chat directory: gemini-cli's project registry, else its ownership markers."""
    root = gemini_root(home)
    short = _gemini_registered(root, cwd) or _gemini_marked(root, cwd)
    return root / "tmp" / short / "chats" if short else None


def _gemini_registered(root: Path, cwd: Path) -> str | None:
    try:
        with open(root / "projects.json", "rb") as handle:
            data = json.loads(handle.read(FIRST_LINE_CAP))
    except (OSError, ValueError):
        return None
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return None
    for where in _spellings(cwd):
        short = projects.get(where)
        if isinstance(short, str) and _safe_name(short):
            return short
    return None


def _gemini_marked(root: Path, cwd: Path) -> str | None:
    wanted = set(_spellings(cwd))
    for name in _listing(root / "tmp"):
        try:
            with open(root / "tmp" / name / ".project_root", "rb") as handle:
                owner = handle.read(8192).decode("utf-8", "replace").strip()
        except OSError:
            continue
        if owner in wanted and _safe_name(name):
            return name
    return None


def _safe_name(name: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9._-]{1,128}", name) is not None and name not in (".", "..")


def qwen_chats(cwd: Path, home: Path | None = None) -> Path:
    root = _env_dir("QWEN_RUNTIME_DIR") or _env_dir("QWEN_HOME")
    root = root or (home or Path.home()) / ".qwen"
    return root / "projects" / _slug_whole(str(cwd)) / "chats"


def watch_root(harness: str, cwd: Path, *, home: Path | None = None) -> Path | None:
    """The directory a file watcher should watch for this harness's files."""
    if harness == "claude":
        return claude_root(home) / "projects" / claude_slug(_resolved(cwd))
    if harness == "codex":
        return codex_root(home)
    if harness == "gemini":
        return gemini_chats(cwd, home)
    if harness == "qwen":
        return qwen_chats(cwd, home)
    return None


def relevant(harness: str, session_id: str, *, pinned: bool = True) -> Callable[[str], bool]:
    """A filter on changed paths under `watch_root`."""
    if harness == "claude" and pinned:
        # The session's file and its subagents' (`<id>/subagents/…`).
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
            found = _since(
                claude_root(home) / "projects" / claude_slug(_resolved(cwd)), started_at, exclude
            )
            return found[0] if found else None
        return claude_transcript(session_id, cwd, home=home)
    if harness == "codex":
        return _codex(cwd, started_at, home, exclude)
    if harness in ("gemini", "qwen"):
        chats = watch_root(harness, cwd, home=home)
        prefix = "session-" if harness == "gemini" else ""
        found = _since(chats, started_at, exclude, prefix) if chats is not None else []
        return found[0] if found else None
    return None


def claude_transcript(session_id: str, cwd: Path | str, *, home: Path | None = None) -> Path | None:
    """`<config>/projects/<slug>/<session_id>.jsonl` if it exists (Claude Code's `Kx` search)."""
    if not SESSION_ID.fullmatch(session_id):
        return None
    projects = claude_root(home) / "projects"
    name = f"{session_id}.jsonl"
    for where in _spellings(Path(cwd)):
        slug = claude_slug(where)
        path = projects / slug / name
        if path.is_file():
            return path
        if len(slug) > SLUG_MAX:
            stem = slug[:SLUG_MAX] + "-"
            for other in _listing(projects):
                if other.startswith(stem) and (projects / other / name).is_file():
                    return projects / other / name
    return None


def subagent_files(path: Path) -> list[Path]:
    """A claude session's subagent transcripts: `<session>/subagents/**/agent-*.jsonl`, sorted.

    Bounded: three directory levels below `subagents` (Claude Code nests
    workflow runs as `subagents/workflows/<run>/`) and `SUBAGENT_CAP` files."""
    found: list[Path] = []
    for found_path in _walk(path.with_suffix("") / "subagents", depth=3):
        found.append(found_path)
        if len(found) >= SUBAGENT_CAP:
            break
    return sorted(found)


def _walk(directory: Path, depth: int) -> Iterator[Path]:
    for name in sorted(_listing(directory)):
        entry = directory / name
        if name.startswith("agent-") and name.endswith(".jsonl") and entry.is_file():
            yield entry
        elif depth > 1 and not entry.is_symlink() and entry.is_dir():
            yield from _walk(entry, depth - 1)


def _listing(directory: Path) -> list[str]:
    """At most `LIST_CAP` names of `directory` ([] if it cannot be listed)."""
    names: list[str] = []
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                names.append(entry.name)
                if len(names) >= LIST_CAP:
                    break
    except OSError:
        return []
    return names


def _resolved(cwd: Path) -> Path:
    # Claude Code slugs the realpath of its cwd (`originalCwd`).
    try:
        return cwd.resolve()
    except OSError:
        return cwd


def _spellings(cwd: Path) -> list[str]:
    out = [str(cwd)]
    resolved = str(_resolved(cwd))
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


def recent_codex(
    cwd: Path | str, *, home: Path | None = None, session_id: str | None = None
) -> Path | None:
    """The most recently written rollout of `cwd` (or named by codex's `session_id`).

    For a handover, where the pane's start is not known: the newest
    `CODEX_SCAN` rollouts by name (their names carry their creation time),
    newest day directory first, never the whole tree."""
    candidates = _newest_rollouts(codex_root(home))
    if session_id:
        for path in candidates:
            if path.stem.endswith(session_id):
                return path
    wanted = set(_spellings(Path(cwd)))
    return next((p for p in _by_mtime(candidates) if _codex_cwd(p) in wanted), None)


def _newest_rollouts(root: Path) -> list[Path]:
    out: list[Path] = []
    for year in sorted(_listing(root), reverse=True):
        for month in sorted(_listing(root / year), reverse=True):
            for day in sorted(_listing(root / year / month), reverse=True):
                names = sorted(_listing(root / year / month / day), reverse=True)
                out += [
                    root / year / month / day / n
                    for n in names
                    if n.startswith("rollout-") and n.endswith(".jsonl")
                ]
                if len(out) >= CODEX_SCAN:
                    return out[:CODEX_SCAN]
    return out


def _by_mtime(paths: list[Path]) -> list[Path]:
    def written(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0

    return sorted(paths, key=written, reverse=True)


def _since(
    directory: Path, started_at: float, exclude: frozenset[Path], prefix: str = ""
) -> list[Path]:
    """The `.jsonl` files of `directory` written since `started_at`, oldest first."""
    found: list[tuple[float, Path]] = []
    for name in _listing(directory):
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
