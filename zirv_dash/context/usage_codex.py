"""Codex's own usage windows: the latest `rate_limits` in its newest rollout files.

Schema verified in @openai/codex 0.171.0 (native binary
`node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex`,
its strings): an `event_msg` line whose payload is `token_count`
(`TokenCountEvent`, 2 fields: `info`, `rate_limits`) carries
`rate_limits` (`RateLimitSnapshot`: `limit_id`, `limit_name`, `primary`,
`secondary`, …) where each window is `RateLimitWindow` {used_percent ("Can
exceed 100"), window_minutes ("Rolling window duration, in minutes", or null),
resets_at ("Unix timestamp (seconds since epoch) when the window resets", or
null)}, the binary's own TypeScript declaration. A 300-minute window is the
5-hour one, 10080 minutes the weekly one; with no duration, primary is taken
as 5-hour and secondary as weekly (codex's own TUI labels them so). Older
rollouts' relative `resets_in_seconds` is not in this version and is not read.

Bounded: only the rollouts of the last `DAY_DIRS` date directories are listed,
only the `NEWEST_FILES` most recently written are opened, and each is read from
its last `TAIL_BYTES` only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from zirv_dash.context.collector import CollectorRecord, WindowRecord, window_record
from zirv_dash.context.stamps import parse_iso

OPENAI = "openai"
DAY_DIRS = 8
NEWEST_FILES = 3
TAIL_BYTES = 512 * 1024
MAX_LISTED = 2000
_MINUTES = {300: "five_hour", 10080: "seven_day"}


def sessions_root(home: Path | None = None) -> Path:
    return (Path.home() if home is None else home) / ".codex" / "sessions"


def _sorted_dirs(path: Path) -> list[Path]:
    try:
        names = [e.name for e in os.scandir(path) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    return [path / n for n in sorted((n for n in names if n.isdigit()), reverse=True)]


def newest_rollouts(root: Path, count: int = NEWEST_FILES) -> list[Path]:
    """The `count` most recently written rollouts of the newest date directories."""
    days: list[Path] = []
    for year in _sorted_dirs(root):
        for month in _sorted_dirs(year):
            days.extend(_sorted_dirs(month)[: DAY_DIRS - len(days)])
            if len(days) >= DAY_DIRS:
                break
        if len(days) >= DAY_DIRS:
            break
    found: list[tuple[float, Path]] = []
    for day in days:
        try:
            entries = list(os.scandir(day))[:MAX_LISTED]
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("rollout-") and entry.name.endswith(".jsonl"):
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                found.append((st.st_mtime, Path(entry.path)))
    found.sort(reverse=True)
    return [path for _, path in found[:count]]


def read_tail(path: Path, limit: int = TAIL_BYTES) -> tuple[list[bytes], float]:
    """The complete lines of the file's last `limit` bytes, and its mtime."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY | os.O_NOFOLLOW
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        start = max(0, st.st_size - limit)
        os.lseek(fd, start, os.SEEK_SET)
        data = os.read(fd, min(limit, st.st_size))
    finally:
        os.close(fd)
    lines = data.split(b"\n")
    if start > 0:
        lines = lines[1:]  # the first is only part of a line
    return [line for line in lines if line.strip()], st.st_mtime


def stamp(value: object) -> float | None:
    """Epoch seconds of an ISO 8601 timestamp (rollouts write UTC with `Z`)."""
    moment = parse_iso(value)
    if moment is None or moment.tzinfo is None:
        return None
    return moment.timestamp()


def snapshot_windows(limits: dict[str, Any]) -> dict[str, WindowRecord]:
    """`primary` / `secondary` as our named windows (see the module docstring)."""
    out: dict[str, WindowRecord] = {}
    for key, default in (("primary", "five_hour"), ("secondary", "seven_day")):
        raw = limits.get(key)
        window = window_record(raw, "used_percent", "resets_at")
        if window is None or not isinstance(raw, dict):
            continue
        minutes = raw.get("window_minutes")
        name = (
            default
            if minutes is None
            else _MINUTES.get(minutes if isinstance(minutes, int) else -1)
        )
        if name is not None and name not in out:
            out[name] = window
    return out


def latest_in(path: Path) -> tuple[float, dict[str, WindowRecord]] | None:
    """The last `rate_limits` of one rollout's tail, with when it was written."""
    lines, mtime = read_tail(path)
    for line in reversed(lines):
        if b"token_count" not in line or b"rate_limits" not in line:
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict) or obj.get("type") != "event_msg":
            continue
        payload = obj.get("payload")
        if not isinstance(payload, dict) or payload.get("type") != "token_count":
            continue
        limits = payload.get("rate_limits")
        if not isinstance(limits, dict):
            continue
        windows = snapshot_windows(limits)
        if windows:
            return stamp(obj.get("timestamp")) or mtime, windows
    return None


def codex_rate_limits(home: Path | None = None) -> CollectorRecord | None:
    """The newest codex reading of its own windows, None when no rollout has one."""
    best: tuple[float, dict[str, WindowRecord], Path] | None = None
    for path in newest_rollouts(sessions_root(home)):
        try:
            found = latest_in(path)
        except OSError:
            continue
        if found is not None and (best is None or found[0] > best[0]):
            best = (found[0], found[1], path)
    if best is None:
        return None
    read_at, windows, path = best
    return CollectorRecord(
        vendor=OPENAI,
        read_at=read_at,
        source=f"codex rollout rate_limits ({path.name})",
        five_hour=windows.get("five_hour"),
        seven_day=windows.get("seven_day"),
    )
