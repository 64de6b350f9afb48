"""The rot score: upstream's contract (zirv README "Signals and verdicts"), pure and deterministic.

Four signals over the trailing `window` turns since the last compaction:

1. context size, a GATE, not a vote: floor and ceiling are `token_floor_ratio` /
   `token_ceiling_ratio` (50 % / 80 %) of the model's real window, or the absolute
   100,000 / 160,000 when the window is unknown; `token_floor` / `token_ceiling`
   pin a number outright. Below the floor the verdict is always `healthy`; at or
   above the ceiling it is at least `compact`, and a score of `compact_at` or more
   there is a `restart`. An unknown context size reads as below the floor.
2. tool-failure rate: failed / all tool results in the window, × 40 points
   (0 when no tool ran).
3. repetition loops: the longest streak of identical calls (same tool, same
   input); `repetition_threshold` (3) or more scores on upstream's linear ramp,
   (streak + 1 − threshold) / threshold capped at 1 — 3 calls 10 points, 4 calls
   20, 5 or more 30. An edit-like call (Edit, Write, MultiEdit, NotebookEdit,
   apply_patch) breaks every streak: edit → rerun → edit → rerun is a healthy
   test loop, the same check rerun with nothing changed is not.
4. reply-marker misses: the share of turn-final replies in the window not
   starting with `marker`, × 30. Active only when the marker hook is installed
   (`marker_hook`), the marker has been seen at least once since the last
   compaction, and at least `min_turns` (10, upstream's default) turns have
   passed since it — the one signal `min_turns` gates, as upstream does; the
   tool signals count from the first turn.

The score is the rounded sum, 0..100. Verdicts: `advise` at `advise_at` (40),
`compact` at `compact_at` (60), `restart` at `restart_at` (80). Without the
marker signal the score tops out at 70, so a restart then only comes from the
ceiling.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from zirv_dash.context.reading import Turn

FALLBACK_FLOOR = 100_000
FALLBACK_CEILING = 160_000
EDIT_LIKE = frozenset({"edit", "write", "multiedit", "notebookedit", "apply_patch"})
MARKER_LEAD = " \t\r\n>*_`#~-"
VERDICTS = ("healthy", "advise", "compact", "restart")


@dataclass(frozen=True)
class ScoreConfig:
    """Upstream's `[score]` settings, with upstream's defaults."""

    window: int = 10
    min_turns: int = 10
    token_floor: int | None = None
    token_ceiling: int | None = None
    token_floor_ratio: float = 0.5
    token_ceiling_ratio: float = 0.8
    advise_at: int = 40
    compact_at: int = 60
    restart_at: int = 80
    weight_tool_failure: float = 40.0
    weight_repetition: float = 30.0
    weight_marker: float = 30.0
    repetition_threshold: int = 3
    marker: str = "[zirv]"


@dataclass(frozen=True)
class Signal:
    name: str
    value: float | None
    """The measured value (a rate 0..1, or the streak length); None when inactive."""
    points: float


@dataclass(frozen=True)
class RotScore:
    score: int
    verdict: str
    signals: tuple[Signal, ...]
    turns: int
    context_tokens: int | None
    floor: int
    ceiling: int

    def to_json(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "verdict": self.verdict,
            "signals": {s.name: {"value": s.value, "points": s.points} for s in self.signals},
            "turns": self.turns,
            "context_tokens": self.context_tokens,
            "floor": self.floor,
            "ceiling": self.ceiling,
        }


def gates(config: ScoreConfig, window: int | None) -> tuple[int, int]:
    """(floor, ceiling) in tokens: pinned numbers, else ratios of the window, else
    the absolute fallbacks. Never inverted: a derived value moves, a pinned one not."""

    def scaled(ratio: float, fallback: int) -> int:
        if window and window > 0 and ratio > 0:
            return round(window * min(ratio, 1.0))
        return fallback

    floor = config.token_floor or scaled(config.token_floor_ratio, FALLBACK_FLOOR)
    ceiling = config.token_ceiling or scaled(config.token_ceiling_ratio, FALLBACK_CEILING)
    floor = max(1, floor)
    if ceiling <= floor:
        if config.token_ceiling and not config.token_floor:
            floor = max(1, ceiling - 1)
        elif not config.token_ceiling:
            ceiling = floor + 1
    return floor, ceiling


def failure_rate(turns: Sequence[Turn]) -> float:
    results = [failed for turn in turns for failed in turn.failures]
    return sum(results) / len(results) if results else 0.0


def longest_repeat(turns: Sequence[Turn]) -> int:
    """The longest run of one (tool, input) pair with no edit-like call in between."""
    streaks: dict[tuple[str, str], int] = {}
    longest = 0
    for turn in turns:
        for call in turn.calls:
            if call.name.lower() in EDIT_LIKE:
                streaks.clear()
                continue
            key = (call.name, call.digest)
            streaks[key] = streaks.get(key, 0) + 1
            longest = max(longest, streaks[key])
    return longest


def repetition_share(streak: int, threshold: int) -> float:
    if threshold <= 0 or streak < threshold:
        return 0.0
    return min(1.0, (streak + 1 - threshold) / threshold)


def has_marker(text: str, marker: str) -> bool:
    return bool(marker) and text.lstrip(MARKER_LEAD).startswith(marker)


def marker_miss_rate(turns: Sequence[Turn], config: ScoreConfig, marker_hook: bool) -> float | None:
    """The share of replies missing the marker, or None while the signal is inactive."""
    finals = [t.final_text for t in turns if t.final_text]
    if not marker_hook or not config.marker or len(finals) < config.min_turns:
        return None
    if not any(has_marker(text, config.marker) for text in finals):
        return None
    recent = finals[-config.window :] if config.window > 0 else finals
    return sum(not has_marker(text, config.marker) for text in recent) / len(recent)


def verdict_for(
    score: int, tokens: int | None, floor: int, ceiling: int, config: ScoreConfig
) -> str:
    if tokens is None or tokens < floor:
        return "healthy"
    if score >= config.restart_at:
        base = "restart"
    elif score >= config.compact_at:
        base = "compact"
    elif score >= config.advise_at:
        base = "advise"
    else:
        base = "healthy"
    if tokens < ceiling:
        return base
    if score >= config.compact_at:
        return "restart"
    return max(base, "compact", key=VERDICTS.index)


def score_turns(
    turns: Sequence[Turn],
    context_tokens: int | None,
    window: int | None = None,
    config: ScoreConfig | None = None,
    *,
    marker_hook: bool = False,
) -> RotScore:
    """Score the turns since the last compaction (oldest first).

    `window` is the model's context window (None: unknown); `marker_hook` says the
    reply-marker hook is installed for this session."""
    config = config or ScoreConfig()
    recent = list(turns[-config.window :]) if config.window > 0 else list(turns)
    rate = failure_rate(recent)
    streak = longest_repeat(recent)
    misses = marker_miss_rate(turns, config, marker_hook)
    signals = (
        # The gate carries no points; its value is the context size it gates on.
        Signal("context_size", None if context_tokens is None else float(context_tokens), 0.0),
        Signal("tool_failure", round(rate, 4), round(rate * config.weight_tool_failure, 2)),
        Signal(
            "repetition",
            float(streak),
            round(
                repetition_share(streak, config.repetition_threshold) * config.weight_repetition, 2
            ),
        ),
        Signal(
            "marker_miss",
            None if misses is None else round(misses, 4),
            0.0 if misses is None else round(misses * config.weight_marker, 2),
        ),
    )
    # Half up, like upstream's f64::round (Python's round() goes to even).
    score = max(0, min(100, math.floor(sum(s.points for s in signals) + 0.5)))
    floor, ceiling = gates(config, window)
    return RotScore(
        score=score,
        verdict=verdict_for(score, context_tokens, floor, ceiling, config),
        signals=signals,
        turns=len(turns),
        context_tokens=context_tokens,
        floor=floor,
        ceiling=ceiling,
    )
