"""A pane's context health as shown: row mark, inspector, status JSON, today's figures, the log."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.test_context_readers import _claude_line, _usage, _write
from zirv_dash.cli.ctx_context import context_of, status_words
from zirv_dash.context import decisions
from zirv_dash.context.facts import local_day
from zirv_dash.context.health import PaneHealth, fill_bar, inspector_rows
from zirv_dash.context.reader import TranscriptReader
from zirv_dash.context.score import ScoreConfig, score_turns
from zirv_dash.panes import registry

MODEL = "claude-sonnet-4-5-20250929"


def _assistant(n: int, tokens: int, when: datetime) -> dict[str, object]:
    line = _claude_line(
        "assistant",
        {
            "id": f"msg_{n}",
            "model": MODEL,
            "role": "assistant",
            "usage": _usage(10, 0, tokens, 100),
            "content": [{"type": "text", "text": "ok"}],
        },
    )
    line["timestamp"] = when.astimezone().isoformat()
    return line


def _health(tmp_path: Path, tokens: int) -> PaneHealth:
    now = datetime.now().astimezone()
    path = _write(
        tmp_path / "s.jsonl",
        [
            _claude_line("user", {"role": "user", "content": "go"}),
            _assistant(1, 1_000_000, now - timedelta(days=2)),
            _assistant(2, tokens, now),
        ],
    )
    reader = TranscriptReader(path)
    reading = reader.catch_up()
    assert reading is not None
    score = score_turns(reader.turns(), reading.tokens, reading.window, ScoreConfig())
    return PaneHealth("claude", reading, score, "ok")


def test_row_mark_follows_the_fill_and_the_verdict(tmp_path: Path) -> None:
    low = _health(tmp_path, 20_000)
    assert low.reading is not None and low.reading.percent == 10.0
    assert low.row_mark() == "▁"
    full = _health(tmp_path, 180_000)  # 90 % of 200k: past the ceiling, at least compact
    assert full.verdict == "compact"
    assert full.row_mark() == "█⚠"
    assert PaneHealth("claude").row_mark() == "·"  # nothing read yet: unknown, not empty
    assert PaneHealth("opencode", status="unsupported").row_mark() == ""


def test_today_counts_only_records_stamped_today(tmp_path: Path) -> None:
    reading = _health(tmp_path, 20_000).reading
    assert reading is not None
    assert reading.session_tokens == 1_000_110 + 20_110
    assert reading.today_tokens == 20_110  # the 2-day-old message is not today's
    assert reading.today_cost_usd == pytest.approx((10 * 3 + 20_000 * 0.3 + 100 * 15) / 1e6)
    assert local_day("not a time") is None
    assert local_day(12) is None


def test_inspector_rows_name_each_figure_and_its_source(tmp_path: Path) -> None:
    rows = dict(inspector_rows(_health(tmp_path, 180_000), ages=False))
    assert rows["fill"].endswith("90%")
    assert rows["tokens"] == "180.0k of 200.0k"
    assert "estimate" in rows["cost"]
    assert rows["file"].endswith("s.jsonl") and rows["field"].startswith("message.usage")
    assert rows["verdict"].startswith("compact")
    assert rows["read"] == "–"
    assert inspector_rows(PaneHealth("pi", status="unsupported"))[0][1].startswith("– (pi")
    assert fill_bar(None) == "–"


def test_status_json_reads_back_what_the_dashboard_wrote(tmp_path: Path) -> None:
    health = _health(tmp_path, 180_000)
    body = {"status": "ok", "harness": "claude", "context": health.to_json()}
    path = registry.sibling_path("abcd1234", ".context")
    path.write_text(json.dumps(body))
    context = context_of("abcd1234")
    assert context is not None
    assert (context["tokens"], context["window"], context["percent"]) == (180_010, 200_000, 90.0)
    assert context["verdict"] == "compact" and context["cost_is_estimate"] is True
    assert 0 <= context["age_s"] < 60
    assert status_words(context).startswith(" · ctx 90% compact ~$")


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        json.dumps({"context": {"tokens": "many", "read_at": 1}}),
        json.dumps({"context": {"tokens": -5, "read_at": 1}}),
        json.dumps({"context": {"verdict": "\x1b[31m", "read_at": 1}}),
        json.dumps({"context": {"tokens": 5}}),  # no read time: no age, not shown
    ],
)
def test_a_bad_context_file_is_null_and_named(body: str) -> None:
    registry.sibling_path("abcd1234", ".context").write_text(body)
    problems: list[str] = []
    assert context_of("abcd1234", problems) is None
    assert context_of("ffff0000") is None  # none written: null, never a guess


def test_decisions_are_appended_as_json_lines_and_rotated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert decisions.record("advise", short="abcd", harness="claude", detail="82% full") is None
    assert decisions.record("compact", short="abcd", detail="x" * 10_000) is None
    got = decisions.read()
    assert [d["kind"] for d in got] == ["advise", "compact"]
    # `ts` is rounded to the millisecond: it may be up to half of one ahead.
    assert got[0]["detail"] == "82% full" and got[0]["ts"] <= time.time() + 0.001
    assert len(json.dumps(got[1])) <= decisions.MAX_LINE + 16
    path = decisions.log_path()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    monkeypatch.setattr(decisions, "MAX_BYTES", 10)
    assert decisions.record("restart-offer", short="abcd") is None
    assert path.with_name("decisions.jsonl.1").exists()
    assert [d["kind"] for d in decisions.read()] == ["restart-offer"]


def test_a_decision_that_cannot_be_written_says_why() -> None:
    logs = decisions.log_path().parent
    logs.parent.mkdir(parents=True, exist_ok=True)
    logs.write_text("a file where the logs directory should be")
    problem = decisions.record("advise", short="abcd")
    assert problem is not None and "decision log" in problem
    assert logs.read_text() == "a file where the logs directory should be"  # nothing lost
