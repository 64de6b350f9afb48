"""Usage windows: the collector and its age, codex's own rate_limits, the estimator, the layers.

Transcripts are built here in each harness's real schema: claude as verified in
@anthropic-ai/claude-code 2.1.197 (`bin/claude.exe`; see context/claude.py),
codex as verified in @openai/codex 0.171.0 (the native binary's strings:
`TokenCountEvent` {info, rate_limits}, `RateLimitWindow` {used_percent,
window_minutes, resets_at}; see context/codex.py and context/usage_codex.py).
"""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

from zirv_dash.context import collector, limits, usage
from zirv_dash.context.estimate import estimate
from zirv_dash.context.window import FIVE_HOUR, SEVEN_DAY, PaceConfig, UsageWindow


def iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


def write_lines(path: Path, lines: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def by(windows: list[UsageWindow], vendor: str, window: str) -> UsageWindow:
    return next(w for w in windows if w.vendor == vendor and w.window == window)


def record_statusline(state: Path, now: float, five: float, seven: float) -> None:
    info = {
        "model": {"id": "claude-opus-5", "display_name": "Opus 5"},
        "rate_limits": {
            "five_hour": {"used_percentage": five, "resets_at": now + 3600},
            "seven_day": {"used_percentage": seven, "resets_at": now + 86400},
        },
    }
    reading = collector.parse_statusline(info, now)
    assert reading is not None
    collector.record_collector(reading, state)


# --- the collector ---------------------------------------------------------------------


def test_collector_reading_is_read_back_with_its_age(isolated_state: Path, tmp_path: Path) -> None:
    now = time.time()
    record_statusline(isolated_state, now - 120, 62.0, 40.0)
    windows = usage.read_windows(["anthropic"], now=now, home=tmp_path)
    five, seven = windows
    assert (five.window, five.percent, five.source) == (FIVE_HOUR, 62.0, "collector")
    assert (seven.window, seven.percent) == (SEVEN_DAY, 40.0)
    assert five.age(now) == 120.0
    assert five.resets_at == now - 120 + 3600
    assert five.to_json(now)["age_s"] == 120.0


def test_a_stale_collector_reading_gives_way(isolated_state: Path, tmp_path: Path) -> None:
    now = time.time()
    record_statusline(isolated_state, now - 1000, 62.0, 40.0)
    pace = PaceConfig(collector_max_age_secs=900)
    five = by(
        usage.read_windows(["anthropic"], pace, now=now, home=tmp_path), "anthropic", FIVE_HOUR
    )
    assert (five.percent, five.source) == (None, "unknown")
    assert "old" in five.detail
    fresh = by(
        usage.read_windows(
            ["anthropic"], PaceConfig(collector_max_age_secs=1200), now=now, home=tmp_path
        ),
        "anthropic",
        FIVE_HOUR,
    )
    assert fresh.percent == 62.0


def test_a_window_that_reset_since_the_reading_is_not_read(
    isolated_state: Path, tmp_path: Path
) -> None:
    now = time.time()
    record_statusline(isolated_state, now - 300, 99.0, 40.0)
    # five_hour resets at (now - 300) + 3600: read it two hours later with a long max age
    later = now + 7200
    windows = usage.read_windows(
        ["anthropic"], PaceConfig(collector_max_age_secs=10**6), now=later, home=tmp_path
    )
    assert by(windows, "anthropic", FIVE_HOUR).percent is None
    assert by(windows, "anthropic", SEVEN_DAY).percent == 40.0


def test_statusline_without_plan_limits_is_no_reading() -> None:
    assert collector.parse_statusline({"model": {"id": "x"}}) is None
    assert (
        collector.parse_statusline({"rate_limits": {"five_hour": {"used_percentage": "9"}}}) is None
    )
    assert collector.statusline_info(b"[1, 2]") is None
    assert collector.statusline_info(b"\xff") is None


# --- codex's own rate limits -----------------------------------------------------------


def codex_rollout(home: Path, now: float, name: str, events: list[dict[str, object]]) -> Path:
    day = time.strftime("%Y/%m/%d", time.localtime(now))
    path = home / ".codex" / "sessions" / day / f"rollout-{name}.jsonl"
    head: list[dict[str, object]] = [
        {"timestamp": iso(now - 900), "type": "session_meta", "payload": {"id": name}},
        {
            "timestamp": iso(now - 890),
            "type": "turn_context",
            "payload": {"model": "gpt-5.6-terra"},
        },
    ]
    return write_lines(path, head + events)


def token_count(moment: float, five: float, seven: float, total: int = 5000) -> dict[str, object]:
    usage_ = {
        "input_tokens": 4000,
        "cached_input_tokens": 3000,
        "cache_write_input_tokens": 0,
        "output_tokens": 1000,
        "reasoning_output_tokens": 200,
        "total_tokens": 5000,
    }
    return {
        "timestamp": iso(moment),
        "type": "event_msg",
        "payload": {
            "type": "token_count",
            "info": {
                "total_token_usage": {**usage_, "total_tokens": total},
                "last_token_usage": usage_,
                "model_context_window": 272000,
            },
            "rate_limits": {
                "limit_id": "codex",
                "limit_name": None,
                "primary": {
                    "used_percent": five,
                    "window_minutes": 300,
                    "resets_at": int(moment + 4000),
                },
                "secondary": {
                    "used_percent": seven,
                    "window_minutes": 10080,
                    "resets_at": int(moment + 90000),
                },
            },
        },
    }


def test_codex_rate_limits_from_its_newest_rollout(tmp_path: Path) -> None:
    now = time.time()
    old = codex_rollout(tmp_path, now, "old", [token_count(now - 800, 90.0, 50.0)])
    os.utime(old, (now - 800, now - 800))
    codex_rollout(
        tmp_path, now, "new", [token_count(now - 200, 20.0, 7.0), token_count(now - 60, 37.5, 12.0)]
    )
    windows = usage.read_windows(["openai"], now=now, home=tmp_path)
    five, seven = by(windows, "openai", FIVE_HOUR), by(windows, "openai", SEVEN_DAY)
    assert (five.percent, five.source, seven.percent) == (37.5, "collector", 12.0)
    assert abs((five.age(now) or 0) - 60) < 1  # the line's own timestamp
    assert five.resets_at == int(now - 60 + 4000)
    assert "rollout-new.jsonl" in five.detail


def test_codex_window_without_a_known_duration_is_not_guessed(tmp_path: Path) -> None:
    now = time.time()
    event = token_count(now - 30, 10.0, 20.0)
    payload = event["payload"]
    assert isinstance(payload, dict)
    payload["rate_limits"]["primary"]["window_minutes"] = 1440  # a daily window: neither of ours
    payload["rate_limits"]["secondary"]["window_minutes"] = None  # no duration: secondary is weekly
    codex_rollout(tmp_path, now, "x", [event])
    windows = usage.read_windows(["openai"], now=now, home=tmp_path)
    assert by(windows, "openai", FIVE_HOUR).percent is None
    assert by(windows, "openai", SEVEN_DAY).percent == 20.0


def test_codex_rate_limits_null_and_torn_lines_are_skipped(tmp_path: Path) -> None:
    now = time.time()
    event = token_count(now - 30, 10.0, 20.0)
    null_limits = json.loads(json.dumps(token_count(now - 10, 0, 0)))
    null_limits["payload"]["rate_limits"] = None
    path = codex_rollout(tmp_path, now, "x", [event, null_limits])
    with path.open("a") as handle:
        handle.write('{"timestamp": "x", "type": "event_msg", "payload": {"type": "token_cou')
    windows = usage.read_windows(["openai"], now=now, home=tmp_path)
    assert by(windows, "openai", FIVE_HOUR).percent == 10.0


# --- the estimator ---------------------------------------------------------------------


def claude_line(moment: float, msg_id: str, side: bool = False) -> dict[str, object]:
    return {
        "type": "assistant",
        "timestamp": iso(moment),
        "sessionId": "s1",
        "isSidechain": side,
        "message": {
            "id": msg_id,
            "model": "claude-sonnet-5",
            "usage": {
                "input_tokens": 100,
                "cache_creation_input_tokens": 1000,
                "cache_read_input_tokens": 5000,
                "output_tokens": 400,
            },
            "content": [{"type": "text", "text": "ok"}],
        },
    }


def claude_transcripts(home: Path, now: float) -> None:
    project = home / ".claude" / "projects" / "-tmp-proj"
    write_lines(
        project / "s1.jsonl",
        [
            {"type": "user", "timestamp": iso(now - 700), "message": {"content": "hi"}},
            claude_line(now - 600, "msg_1"),
            claude_line(now - 600, "msg_1"),  # the same message's second content block
            claude_line(now - 6 * 3600, "msg_0"),  # outside the 5 h window, inside 7 d
            {
                "type": "assistant",
                "timestamp": iso(now - 500),
                "message": {"model": "<synthetic>", "usage": {"output_tokens": 999}},
            },
        ],
    )
    with (project / "s1.jsonl").open("a") as handle:
        handle.write("not json\n")
    write_lines(
        project / "s1" / "subagents" / "agent-a1.jsonl", [claude_line(now - 300, "msg_2", True)]
    )
    ancient = write_lines(project / "s0.jsonl", [claude_line(now - 30 * 86400, "msg_9")])
    os.utime(ancient, (now - 30 * 86400, now - 30 * 86400))


def test_estimator_sums_claude_transcripts_and_subagents(tmp_path: Path) -> None:
    now = time.time()
    claude_transcripts(tmp_path, now)
    pace = PaceConfig(five_hour_budget_tokens=10000, seven_day_budget_tokens=100000)
    five = estimate("anthropic", 5 * 3600, now, tmp_path, pace)
    assert five is not None
    assert five.tokens == 2 * 1500  # msg_1 once + msg_2; cache reads left out
    assert five.files == 2  # the 30-day-old file is skipped by its mtime
    assert five.malformed == 1
    windows = usage.read_windows(["anthropic"], pace, now=now, home=tmp_path)
    assert by(windows, "anthropic", FIVE_HOUR).percent == 30.0
    assert by(windows, "anthropic", SEVEN_DAY).percent == 4.5  # msg_0 too
    assert by(windows, "anthropic", FIVE_HOUR).source == "estimator"
    assert "estimate" in by(windows, "anthropic", FIVE_HOUR).detail
    counted = PaceConfig(five_hour_budget_tokens=10000, count_cache_reads=True)
    assert (
        by(
            usage.read_windows(["anthropic"], counted, now=now, home=tmp_path),
            "anthropic",
            FIVE_HOUR,
        ).percent
        == 2 * 6500 / 100
    )


def test_estimator_is_off_without_budgets(tmp_path: Path) -> None:
    now = time.time()
    claude_transcripts(tmp_path, now)
    windows = usage.read_windows(["anthropic", "openai"], PaceConfig(), now=now, home=tmp_path)
    assert all(w.percent is None and w.source == "unknown" for w in windows)


def test_estimator_sums_codex_rollouts_once_per_change(tmp_path: Path) -> None:
    now = time.time()
    codex_rollout(
        tmp_path,
        now,
        "c1",
        [
            token_count(now - 600, 1.0, 1.0, total=5000),
            token_count(now - 590, 1.0, 1.0, total=5000),  # a repeat of the same usage
            token_count(now - 300, 1.0, 1.0, total=10000),
        ],
    )
    pace = PaceConfig(five_hour_budget_tokens=20000)
    acc = estimate("openai", 5 * 3600, now, tmp_path, pace)
    assert acc is not None and acc.tokens == 2 * 2000  # (4000 - 3000 cached) + 1000 output
    # a fresh collector reading wins over the estimate
    five = by(usage.read_windows(["openai"], pace, now=now, home=tmp_path), "openai", FIVE_HOUR)
    assert five.source == "collector"


def test_other_vendors_record_nothing(tmp_path: Path) -> None:
    windows = usage.read_windows(
        ["google", "qwen"], PaceConfig(five_hour_budget_tokens=5), home=tmp_path
    )
    assert [(w.vendor, w.percent) for w in windows] == [
        ("google", None),
        ("google", None),
        ("qwen", None),
        ("qwen", None),
    ]


# --- the layers --------------------------------------------------------------------------


def test_a_tripped_breaker_beats_a_fresh_collector(isolated_state: Path, tmp_path: Path) -> None:
    now = time.time()
    record_statusline(isolated_state, now, 30.0, 10.0)
    notice = limits.LimitNotice(
        "claude", "anthropic", "You've hit your session limit · resets 5pm", now + 3600, FIVE_HOUR
    )
    limits.trip(notice, now, isolated_state)
    windows = usage.read_windows(["anthropic"], now=now + 1, home=tmp_path)
    five, seven = by(windows, "anthropic", FIVE_HOUR), by(windows, "anthropic", SEVEN_DAY)
    assert (five.percent, five.source, five.resets_at) == (100.0, "breaker", now + 3600)
    assert (seven.percent, seven.source) == (10.0, "collector")
    after = usage.read_windows(
        ["anthropic"], PaceConfig(collector_max_age_secs=10**6), now=now + 3601, home=tmp_path
    )
    assert by(after, "anthropic", FIVE_HOUR).source != "breaker"  # expired by itself


def test_a_2_gb_sparse_transcript_is_read_in_bounded_time(tmp_path: Path) -> None:
    now = time.time()
    path = tmp_path / ".claude" / "projects" / "-big" / "big.jsonl"
    path.parent.mkdir(parents=True)
    with path.open("wb") as handle:
        handle.truncate(2 * 1024**3)  # sparse: 2 GB of holes, no disk used
        handle.seek(0, 2)
        handle.write(b"\n" + json.dumps(claude_line(now - 60, "msg_big")).encode() + b"\n")
    start = time.monotonic()
    acc = estimate("anthropic", 5 * 3600, now, tmp_path, PaceConfig(five_hour_budget_tokens=1))
    assert time.monotonic() - start < 10
    assert acc is not None and acc.tokens == 1500
    assert acc.partial == 1  # read from its tail only: the sum is a lower bound
