"""The estimator: tokens spent in a trailing window, summed over the local transcripts.

An approximation, off until a budget is set (`[pace] five_hour_budget_tokens` /
`seven_day_budget_tokens`): a plan's real allowance is undocumented, so the
percent is the sum over the operator's budget. Cache reads are left out unless
`count_cache_reads` (they are discounted). Sources, schemas as in `claude.py`
and `codex.py`:

- anthropic: `~/.claude/projects/<slug>/*.jsonl` and the subagent files
  `<slug>/<session>/subagents/agent-*.jsonl`; each assistant line's
  `message.usage` (input + cache creation + output, + cache read), counted once
  per `message.id`, for lines whose `timestamp` is inside the window;
- openai: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`; each `token_count`
  event's `info.last_token_usage` (input − cached input + output, + cached),
  once per change of `total_token_usage` (a rate-limit-only repeat is skipped).

Bounded: files last written before the window starts are skipped, each file is
read from its last `FILE_BYTES` only, and at most `TOTAL_BYTES` in all, newest
files first; a file read in part makes the sum a lower bound (`partial`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zirv_dash.context.usage_codex import read_tail, sessions_root, stamp
from zirv_dash.context.window import ESTIMATOR, WINDOW_SECS, PaceConfig, UsageWindow

FILE_BYTES = 4 * 1024 * 1024
TOTAL_BYTES = 32 * 1024 * 1024
MAX_FILES = 4000
ESTIMATED_VENDORS: tuple[str, ...] = ("anthropic", "openai")


@dataclass
class Estimate:
    tokens: int = 0
    files: int = 0
    partial: int = 0
    """Files read only in part (or not at all, past the total cap)."""
    malformed: int = 0
    _seen: set[str] = field(default_factory=set, repr=False)


def _recent(paths: Iterator[Path], since: float) -> list[Path]:
    """Regular files written at or after `since`, newest first."""
    found: list[tuple[float, Path]] = []
    for path in paths:
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError:
            continue
        if st.st_mtime >= since and len(found) < MAX_FILES:
            found.append((st.st_mtime, path))
    found.sort(reverse=True)
    return [path for _, path in found]


def claude_files(home: Path) -> Iterator[Path]:
    projects = home / ".claude" / "projects"
    yield from projects.glob("*/*.jsonl")
    yield from projects.glob("*/*/subagents/*.jsonl")


def codex_files(home: Path, since: float, now: float) -> Iterator[Path]:
    """The rollouts of each date directory the window meets (a day's slack either
    side, whether codex dated the directory in local time or UTC)."""
    import time

    root = sessions_root(home)
    day = 86400.0
    seen: set[str] = set()
    moment = now + day
    while moment >= since - day:
        for parts in (time.strftime("%Y/%m/%d", f(moment)) for f in (time.localtime, time.gmtime)):
            if parts not in seen:
                seen.add(parts)
                yield from (root / parts).glob("rollout-*.jsonl")
        moment -= day


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return max(0, int(value))


def _claude_tokens(obj: dict[str, Any], acc: Estimate, count_reads: bool) -> int:
    message = obj.get("message")
    if obj.get("type") != "assistant" or not isinstance(message, dict):
        return 0
    usage = message.get("usage")
    if not isinstance(usage, dict) or message.get("model") == "<synthetic>":
        return 0
    msg_id = message.get("id")
    if isinstance(msg_id, str):
        if msg_id in acc._seen:
            return 0  # one API message is written as several lines
        acc._seen.add(msg_id)
    tokens = _int(usage.get("input_tokens")) + _int(usage.get("cache_creation_input_tokens"))
    tokens += _int(usage.get("output_tokens"))
    return tokens + (_int(usage.get("cache_read_input_tokens")) if count_reads else 0)


class _CodexFile:
    def __init__(self) -> None:
        self.last_total: int | None = None

    def tokens(self, obj: dict[str, Any], count_reads: bool) -> int:
        payload = obj.get("payload")
        if obj.get("type") != "event_msg" or not isinstance(payload, dict):
            return 0
        info = payload.get("info")
        if payload.get("type") != "token_count" or not isinstance(info, dict):
            return 0
        total = info.get("total_token_usage")
        total_tokens = _int(total.get("total_tokens")) if isinstance(total, dict) else None
        if total_tokens is not None and total_tokens == self.last_total:
            return 0  # the same usage reported again
        self.last_total = total_tokens
        last = info.get("last_token_usage")
        if not isinstance(last, dict):
            return 0
        cached = _int(last.get("cached_input_tokens"))
        fresh = max(0, _int(last.get("input_tokens")) - cached)
        return fresh + _int(last.get("output_tokens")) + (cached if count_reads else 0)


def _sum_file(vendor: str, path: Path, since: float, acc: Estimate, pace: PaceConfig) -> int:
    """Add one file's in-window tokens to `acc`; returns the bytes it read."""
    try:
        size = os.stat(path).st_size
        lines, _ = read_tail(path, FILE_BYTES)
    except OSError:
        acc.partial += 1
        return 0
    acc.files += 1
    acc.partial += size > FILE_BYTES
    codex = _CodexFile()
    for line in lines:
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            acc.malformed += 1
            continue
        if not isinstance(obj, dict):
            acc.malformed += 1
            continue
        moment = stamp(obj.get("timestamp"))
        if vendor == "openai":
            tokens = codex.tokens(obj, pace.count_cache_reads)  # keeps its dedupe state
        elif moment is not None and moment >= since:
            tokens = _claude_tokens(obj, acc, pace.count_cache_reads)
        else:
            tokens = 0
        if moment is not None and moment >= since:
            acc.tokens += tokens
    return min(size, FILE_BYTES)


def estimate(
    vendor: str, window_secs: float, now: float, home: Path, pace: PaceConfig
) -> Estimate | None:
    """Tokens of `vendor`'s local transcripts in the trailing window; None for a
    vendor whose transcripts record no usage zirv can read."""
    since = now - window_secs
    if vendor == "anthropic":
        files = _recent(claude_files(home), since)
    elif vendor == "openai":
        files = _recent(codex_files(home, since, now), since)
    else:
        return None
    acc = Estimate()
    budget = TOTAL_BYTES
    for index, path in enumerate(files):
        if budget <= 0:
            acc.partial += len(files) - index
            break
        budget -= _sum_file(vendor, path, since, acc, pace)
    return acc


def estimate_window(
    vendor: str, window: str, pace: PaceConfig, now: float, home: Path
) -> UsageWindow | None:
    """The estimator's reading of one window, None while its budget is unset."""
    budget = pace.budget(window)
    if budget <= 0:
        return None
    acc = estimate(vendor, WINDOW_SECS[window], now, home, pace)
    if acc is None:
        return None
    detail = f"estimate: {acc.tokens} of {budget} budget tokens over {acc.files} transcript(s)"
    if acc.partial:
        detail += f", {acc.partial} read in part (a lower bound)"
    return UsageWindow(vendor, window, 100.0 * acc.tokens / budget, None, ESTIMATOR, now, detail)
