"""`zirv ctx score TRANSCRIPT [--json]`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_context_readers import claude_fixture, codex_fixture
from zirv_dash.cli.ctx_score import score_main


def test_json_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = claude_fixture(tmp_path / "s1.jsonl")
    assert score_main([str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("score", "verdict", "signals", "turns", "context_tokens", "floor", "ceiling"):
        assert key in out
    assert out["context_tokens"] == 50_010
    assert (out["floor"], out["ceiling"]) == (100_000, 160_000)
    assert out["signals"]["tool_failure"] == {"value": 1.0, "points": 40.0}
    assert out["score"] == 40
    assert out["verdict"] == "healthy"  # 50k is below the floor
    assert out["harness"] == "claude"


def test_human_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = codex_fixture(tmp_path / "rollout-x.jsonl")
    assert score_main([str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("✻ 40 healthy")
    assert "21,000 / 272,000" in out
    assert "tool_failure" in out


def test_missing_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert score_main([str(tmp_path / "nope.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file" in err


def test_a_directory_or_unknown_records_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert score_main([str(tmp_path)]) == 2
    other = tmp_path / "x.jsonl"
    other.write_text('{"hello": 1}\n')
    assert score_main([str(other)]) == 2
    assert "--agent" in capsys.readouterr().err


def test_usage_error_is_exit_2() -> None:
    assert score_main([]) == 2


def test_score_settings_move_the_gates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = claude_fixture(tmp_path / "s1.jsonl")
    monkeypatch.setenv("ZIRV_CTX_TOKEN_FLOOR", "10000")
    monkeypatch.setenv("ZIRV_CTX_SCORE_ADVISE_AT", "30")
    assert score_main([str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["floor"] == 10_000
    assert out["verdict"] == "advise"  # 40 points, over the floor, advise from 30


def test_bad_score_settings_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = claude_fixture(tmp_path / "s1.jsonl")
    monkeypatch.setenv("ZIRV_CTX_SCORE_WINDOW", "0")
    assert score_main([str(path)]) == 2
    assert "score.window" in capsys.readouterr().err
