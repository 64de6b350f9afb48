"""The rot score's verdict table (upstream's "Signals and verdicts" contract)."""

from __future__ import annotations

from zirv_dash.context.reading import ToolCall, Turn
from zirv_dash.context.score import (
    ScoreConfig,
    gates,
    has_marker,
    repetition_share,
    score_turns,
)

CFG = ScoreConfig()
WINDOW_200K = 200_000
MID = 120_000  # between the 200k window's floor (100k) and ceiling (160k)
HIGH = 170_000  # at/above that ceiling


def _turns(n: int, fails: int = 0, ok: int = 0) -> list[Turn]:
    """`n` turns; the last one holds `fails` failed and `ok` good tool results."""
    turns = [Turn(final_text="done") for _ in range(n - 1)]
    turns.append(Turn(failures=(True,) * fails + (False,) * ok, final_text="done"))
    return turns


def _loop(repeats: int) -> list[Turn]:
    call = ToolCall("Bash", "same-input")
    return [Turn(calls=(call,) * repeats)]


def _looping(final: str) -> Turn:
    """A turn scoring the full 70: six failed runs of one identical call."""
    return Turn(calls=(ToolCall("Bash", "x"),) * 6, failures=(True,) * 6, final_text=final)


def _marked(n: int, misses: int) -> list[Turn]:
    return [Turn(final_text="[zirv] ok") for _ in range(n - misses)] + [
        Turn(final_text="no marker") for _ in range(misses)
    ]


def test_gates_scale_with_the_window_and_fall_back_to_absolutes() -> None:
    assert gates(CFG, 200_000) == (100_000, 160_000)
    assert gates(CFG, 1_000_000) == (500_000, 800_000)
    assert gates(CFG, None) == (100_000, 160_000)
    pinned = ScoreConfig(token_floor=10, token_ceiling=20)
    assert gates(pinned, 1_000_000) == (10, 20)


def test_below_the_floor_is_always_healthy() -> None:
    result = score_turns(_turns(3, fails=4), 50_000, WINDOW_200K)
    assert result.score == 40
    assert result.verdict == "healthy"


def test_unknown_context_size_reads_as_below_the_floor() -> None:
    assert score_turns(_turns(3, fails=4), None, None).verdict == "healthy"


def test_score_thresholds_between_floor_and_ceiling() -> None:
    assert score_turns(_turns(3, ok=4), MID, WINDOW_200K).verdict == "healthy"
    advise = score_turns(_turns(3, fails=4), MID, WINDOW_200K)
    assert (advise.score, advise.verdict) == (40, "advise")
    # 40 (all failed) + 30 (a 5-call loop) = 70: compact.
    compact = score_turns(_turns(3, fails=4) + _loop(5), MID, WINDOW_200K)
    assert compact.verdict == "compact"


def test_without_the_marker_the_score_tops_out_at_70_and_never_restarts_below_the_ceiling() -> None:
    turns = [Turn(calls=(ToolCall("Bash", "x"),) * 6, failures=(True,) * 6)]
    result = score_turns(turns, MID, WINDOW_200K)
    assert result.score == 70
    assert result.verdict == "compact"


def test_the_marker_signal_lifts_the_score_to_restart() -> None:
    # 9 earlier replies plus the looping turn: the window's 10 finals all miss.
    turns = [Turn(final_text="[zirv] first")] + _marked(9, misses=9) + [_looping("no marker")]
    result = score_turns(turns, MID, WINDOW_200K, marker_hook=True)
    assert result.score == 100
    assert result.verdict == "restart"


def test_marker_signal_needs_the_hook_min_turns_and_a_seen_marker() -> None:
    assert score_turns(_marked(12, 5), MID, WINDOW_200K).signals[3].value is None
    few = score_turns(_marked(9, 5), MID, WINDOW_200K, marker_hook=True)
    assert few.signals[3].value is None
    never = [Turn(final_text="plain") for _ in range(12)]
    assert score_turns(never, MID, WINDOW_200K, marker_hook=True).signals[3].value is None
    active = score_turns(_marked(12, 5), MID, WINDOW_200K, marker_hook=True)
    assert active.signals[3].value == 0.5  # 5 of the last 10 finals miss
    assert active.signals[3].points == 15.0


def test_at_the_ceiling_the_verdict_is_at_least_compact() -> None:
    assert score_turns(_turns(3, ok=2), HIGH, WINDOW_200K).verdict == "compact"


def test_at_the_ceiling_60_or_more_escalates_to_restart() -> None:
    result = score_turns(_turns(3, fails=4) + _loop(4), HIGH, WINDOW_200K)
    assert result.score == 60
    assert result.verdict == "restart"
    below = score_turns(_turns(3, fails=4) + _loop(3), HIGH, WINDOW_200K)
    assert below.score == 50
    assert below.verdict == "compact"


def test_restart_at_80_between_floor_and_ceiling() -> None:
    turns = _marked(9, misses=3) + [_looping("also no marker")]  # 4 of 10 miss: 12 → 82
    result = score_turns(turns, MID, WINDOW_200K, marker_hook=True)
    assert result.score == 82
    assert result.verdict == "restart"


def test_repetition_ramp_and_edits_break_streaks() -> None:
    assert [repetition_share(n, 3) for n in (2, 3, 4, 5, 9)] == [0.0, 1 / 3, 2 / 3, 1.0, 1.0]
    call, edit = ToolCall("Bash", "pytest"), ToolCall("Edit", "a")
    tdd = [Turn(calls=(call, edit, call, edit, call, edit, call))]
    assert score_turns(tdd, MID, WINDOW_200K).signals[2].points == 0.0
    other_inputs = [Turn(calls=(call, ToolCall("Bash", "ls"), call))]
    assert score_turns(other_inputs, MID, WINDOW_200K).signals[2].value == 2.0


def test_only_the_trailing_window_counts() -> None:
    old = [Turn(failures=(True,) * 5) for _ in range(5)]
    fresh = [Turn(failures=(False,)) for _ in range(10)]
    assert score_turns(old + fresh, MID, WINDOW_200K).score == 0


def test_marker_tolerates_leading_markdown() -> None:
    assert has_marker("> **[zirv]** done", "[zirv]")
    assert has_marker("  - [zirv] done", "[zirv]")
    assert not has_marker("done [zirv]", "[zirv]")


def test_json_shape() -> None:
    out = score_turns(_turns(3, fails=1, ok=1), MID, WINDOW_200K).to_json()
    assert set(out) == {
        "score",
        "verdict",
        "signals",
        "turns",
        "context_tokens",
        "floor",
        "ceiling",
    }
    assert set(out["signals"]) == {"context_size", "tool_failure", "repetition", "marker_miss"}
    assert out["signals"]["tool_failure"] == {"value": 0.5, "points": 20.0}
