"""Usage windows per vendor: the best layer's reading of each 5-hour and 7-day window.

Layers, best first (upstream's pacing contract):

1. the circuit breaker (`limits.py`): a usage-limit notice seen on a pane, 100 %
   until its reset;
2. the collector: what the harness itself reported, while younger than
   `collector_max_age_secs` and its window has not reset since — anthropic from
   Claude Code's statusline (`zirv ctx usage tee`, `collector.py`), openai from
   codex's own rollouts (`usage_codex.py`);
3. the estimator (`estimate.py`), only where a budget is set;
4. unknown (`–`): gemini, qwen and the others record no usage windows in their
   own files (their packages write none), so nothing is guessed.

Malformed state files are refused with where they are bad (appended to
`problems`), never rewritten or deleted; the window then reads from the next layer.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from zirv_dash import records
from zirv_dash.context.collector import (
    ANTHROPIC,
    CollectorRecord,
    collector_windows,
    read_collector,
)
from zirv_dash.context.estimate import estimate_window
from zirv_dash.context.limits import active_breaker, breaker_windows
from zirv_dash.context.usage_codex import OPENAI, codex_rate_limits
from zirv_dash.context.window import WINDOWS, PaceConfig, UsageWindow, unknown

__all__ = ["DEFAULT_VENDORS", "PaceConfig", "UsageWindow", "read_windows", "collector_reading"]

DEFAULT_VENDORS: tuple[str, ...] = (ANTHROPIC, OPENAI, "google", "qwen")
COLLECTED: tuple[str, ...] = (ANTHROPIC, OPENAI)
"""Vendors whose CLI reports its own windows (the collector layer)."""


def collector_reading(
    vendor: str,
    state: Path | None = None,
    home: Path | None = None,
    problems: list[str] | None = None,
) -> CollectorRecord | None:
    """The vendor's own last report of its windows, None where it records none."""
    try:
        if vendor == ANTHROPIC:
            return read_collector(vendor, state)
        if vendor == OPENAI:
            return codex_rate_limits(home)
    except (records.RecordError, OSError) as exc:
        if problems is not None:
            problems.append(str(exc))
    return None


def _fresh(window: UsageWindow, now: float, max_age: float) -> str | None:
    """Why a collector reading no longer stands, None while it does."""
    age = window.age(now) or 0.0
    if age > max_age:
        return f"collector reading {age / 60:.0f} min old (over {max_age:.0f} s), not used"
    if window.resets_at is not None and window.resets_at <= now:
        return "the collector's window has reset since its last reading"
    return None


def vendor_windows(
    vendor: str,
    pace: PaceConfig,
    now: float,
    state: Path | None,
    home: Path,
    problems: list[str] | None,
) -> list[UsageWindow]:
    """One vendor's two windows, each from its best layer."""
    best: dict[str, UsageWindow] = {}
    stale: dict[str, str] = {}
    try:
        trip = active_breaker(vendor, now, state)
    except (records.RecordError, OSError) as exc:
        trip = None
        if problems is not None:
            problems.append(str(exc))
    if trip is not None:
        best.update(breaker_windows(trip))
    reading = collector_reading(vendor, state, home, problems)
    for name, window in (collector_windows(reading) if reading else {}).items():
        why = _fresh(window, now, pace.collector_max_age_secs)
        if why:
            stale[name] = why
        elif name not in best:
            best[name] = window
    nothing = "nothing recorded" if vendor in COLLECTED else "its CLI records no usage windows"
    for name in WINDOWS:
        if name not in best:
            estimated = estimate_window(vendor, name, pace, now, home)
            best[name] = estimated or unknown(vendor, name, stale.get(name, nothing))
    return [best[name] for name in WINDOWS]


def read_windows(
    vendors: Sequence[str] = DEFAULT_VENDORS,
    pace: PaceConfig | None = None,
    *,
    now: float | None = None,
    state: Path | None = None,
    home: Path | None = None,
    problems: list[str] | None = None,
) -> list[UsageWindow]:
    """Every vendor's `five_hour` and `seven_day` windows, in that order, each from
    the best layer that has a reading (see the module docstring)."""
    moment = time.time() if now is None else now
    where = Path.home() if home is None else home
    config = PaceConfig() if pace is None else pace
    out: list[UsageWindow] = []
    for vendor in vendors:
        out.extend(vendor_windows(vendor, config, moment, state, where, problems))
    return out
