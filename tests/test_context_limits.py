"""Each CLI's usage-limit notice from its exact wording, near misses; the breaker and its expiry.

Where each wording comes from:
- claude: @anthropic-ai/claude-code 2.1.197, `bin/claude.exe` (embedded JS:
  `You've hit your ${kind}${suffix}`, suffix ` · resets ${when}`);
- codex: @openai/codex 0.171.0, `node_modules/@openai/codex-linux-x64/vendor/
  x86_64-unknown-linux-musl/bin/codex` (strings `You've hit your usage limit.`,
  ` or try again at `, `%b %-d`, `, %Y %-I:%M %p`);
- gemini: @google/gemini-cli 0.61.0, `bundle/interactiveCli-4ZJLSCID.js`
  (`Usage limit reached for ${model}.`, `Access resets at ${time}.`) and
  `bundle/chunk-5FZXKDXH.js` (`You have exhausted your daily quota on this model.`);
- qwen: @qwen-code/qwen-code 0.15.10, `cli.js` (`Qwen OAuth quota exceeded:`).
"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path

import pytest

from zirv_dash import records
from zirv_dash.context import limits
from zirv_dash.context.window import FIVE_HOUR, SEVEN_DAY

# 2026-12-07 10:00 local time
NOW = datetime(2026, 12, 7, 10, 0).timestamp()


def local(*parts: int) -> float:
    return datetime(*parts).timestamp()


# --- the notices -------------------------------------------------------------------------


def test_claude_session_limit_with_its_reset_and_zone() -> None:
    screen = "● Working on it\n  ⎿  You've hit your session limit · resets 3pm (UTC)\n\n> "
    notice = limits.match("claude", screen, NOW)
    assert notice is not None
    assert (notice.harness, notice.vendor, notice.window) == ("claude", "anthropic", FIVE_HOUR)
    assert notice.text == "⎿  You've hit your session limit · resets 3pm (UTC)"
    assert notice.resets_at == datetime.fromisoformat("2026-12-07T15:00:00+00:00").timestamp()


@pytest.mark.parametrize(
    ("line", "window", "reset"),
    [
        ("You've hit your weekly limit · resets Dec 9, 3:30pm", SEVEN_DAY, (2026, 12, 9, 15, 30)),
        ("You've hit your Opus limit · resets Dec 9, 2027, 9am", SEVEN_DAY, (2027, 12, 9, 9, 0)),
        ("You've hit your Sonnet limit", SEVEN_DAY, None),
        ("You've hit your Fable 5 limit · resets 11:15am", SEVEN_DAY, (2026, 12, 7, 11, 15)),
        ("You've hit your usage limit · resets 9am", None, (2026, 12, 8, 9, 0)),  # past: tomorrow
        ("You've hit your limit · resets 4\u202fPM", None, (2026, 12, 7, 16, 0)),
        (
            "You've hit your org's monthly usage limit · resets Jan 1, 12am",
            None,
            (2027, 1, 1, 0, 0),
        ),
    ],
)
def test_claude_notices(line: str, window: str | None, reset: tuple[int, ...] | None) -> None:
    notice = limits.match("claude", line, NOW)
    assert notice is not None and notice.window == window
    assert notice.resets_at == (None if reset is None else local(*reset))


@pytest.mark.parametrize(
    ("screen", "reset"),
    [
        ("■ You've hit your usage limit. Try again at 3:05 PM.", (2026, 12, 7, 15, 5)),
        (
            "■ You've hit your usage limit. Upgrade to Plus to continue using Codex\n"
            "(https://chatgpt.com/explore/plus), or try again at Dec 8th, 2026 9:05 AM.",
            (2026, 12, 8, 9, 5),
        ),
        (
            "■ You've hit your usage limit for gpt-5.6-sol. Switch to another model now, or try "
            "again at 11:00 AM.",
            (2026, 12, 7, 11, 0),
        ),
        ("You've reached your usage limit. Increase your limits to continue using codex.", None),
    ],
)
def test_codex_notices(screen: str, reset: tuple[int, ...] | None) -> None:
    notice = limits.match("codex", screen, NOW)
    assert notice is not None and notice.vendor == "openai"
    assert notice.resets_at == (None if reset is None else local(*reset))


def test_gemini_notices() -> None:
    screen = (
        "│ Usage limit reached for all Pro models.   │\n"
        "│ Access resets at 2:45 PM PST.             │\n"
        "│ /stats model for usage details            │\n"
    )
    notice = limits.match("gemini", screen, NOW)
    assert notice is not None and notice.vendor == "google"
    assert notice.text == "Usage limit reached for all Pro models."
    assert notice.resets_at == local(2026, 12, 7, 14, 45)
    daily = limits.match("gemini", "✕ You have exhausted your daily quota on this model.", NOW)
    assert daily is not None and daily.resets_at is None


def test_qwen_notice() -> None:
    notice = limits.match("qwen", "✕ Qwen OAuth quota exceeded: your daily limit is used", NOW)
    assert notice is not None and (notice.vendor, notice.resets_at) == ("qwen", None)


@pytest.mark.parametrize(
    ("harness", "screen"),
    [
        ("claude", "You've hit your fast limit · resets in 5m"),  # fast mode only
        ("claude", "You've hit your monthly spend limit. /model to switch models."),
        ("claude", "You're close to your session limit"),
        ("claude", "The docs say You've hit your session limit when it is over."),  # prose
        ("claude", "> what does You've hit your usage limit mean?"),
        ("codex", "You've hit your usage limit"),  # no full stop: not the CLI's sentence
        ("codex", "We are currently experiencing high demand"),
        ("gemini", "We are currently experiencing high demand for all Pro models."),
        ("qwen", "Possible quota limitations in place or slow response times detected."),
        ("aider", "You've hit your usage limit."),  # no documented notice for this harness
        ("codex", ""),
    ],
)
def test_near_misses_are_not_notices(harness: str, screen: str) -> None:
    assert limits.match(harness, screen, NOW) is None


def test_the_lowest_notice_on_screen_is_the_one_read() -> None:
    screen = "You've hit your session limit · resets 1pm\nok\nYou've hit your weekly limit"
    notice = limits.match("claude", screen, NOW)
    assert notice is not None and notice.window == SEVEN_DAY


# --- the breaker -------------------------------------------------------------------------


def test_a_trip_holds_until_the_stated_reset_then_expires(isolated_state: Path) -> None:
    notice = limits.match("codex", "■ You've hit your usage limit. Try again at 3:05 PM.", NOW)
    assert notice is not None
    assert limits.record_trip(notice, NOW) is None
    path = isolated_state / "usage" / "breaker-openai.json"
    assert path.stat().st_mode & 0o777 == 0o600
    held = limits.active_breaker("openai", NOW + 60)
    assert held is not None and held.resets_at == local(2026, 12, 7, 15, 5) and held.resets_stated
    windows = limits.breaker_windows(held)
    assert {w.window: w.percent for w in windows.values()} == {FIVE_HOUR: 100.0, SEVEN_DAY: 100.0}
    assert limits.active_breaker("openai", local(2026, 12, 7, 15, 5)) is None
    assert limits.read_breaker("openai") is not None  # left on disk, read as expired
    assert limits.active_breaker("anthropic", NOW) is None


def test_a_trip_without_a_reset_holds_the_default(isolated_state: Path) -> None:
    notice = limits.match("qwen", "Qwen OAuth quota exceeded: x", NOW)
    assert notice is not None
    record = limits.trip(notice, NOW, isolated_state)
    assert (record.resets_at, record.resets_stated) == (NOW + limits.DEFAULT_HOLD_SECS, False)
    assert limits.active_breaker("qwen", NOW + limits.DEFAULT_HOLD_SECS - 1) is not None
    assert limits.active_breaker("qwen", NOW + limits.DEFAULT_HOLD_SECS) is None


def test_a_named_window_fills_only_that_window(isolated_state: Path) -> None:
    notice = limits.match("claude", "You've hit your weekly limit · resets Dec 9, 3pm", NOW)
    assert notice is not None
    record = limits.trip(notice, NOW)
    assert set(limits.breaker_windows(record)) == {SEVEN_DAY}


def test_a_malformed_breaker_file_is_refused_and_left_alone(isolated_state: Path) -> None:
    path = isolated_state / "usage" / "breaker-anthropic.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"vendor": "anthropic", "tripped_at": 1}')
    with pytest.raises(records.RecordError, match="breaker-anthropic.json"):
        limits.active_breaker("anthropic", time.time())
    assert path.read_text() == '{"vendor": "anthropic", "tripped_at": 1}'


def test_an_unwritable_state_dir_is_reported_not_raised(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    notice = limits.LimitNotice("claude", "anthropic", "You've hit your limit", None)
    problem = limits.record_trip(notice, NOW, state=blocker)
    assert problem is not None and "anthropic" in problem
