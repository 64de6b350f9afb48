"""Each harness's reader over fixtures in that harness's real schema (sources in comments)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from zirv_dash.context.detect import harness_of
from zirv_dash.context.reader import TranscriptReader


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


# --- claude: @anthropic-ai/claude-code 2.1.197 (binary's embedded JS) -----------------


def _claude_line(kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "uuid": "u",
        "parentUuid": None,
        "sessionId": "s1",
        "isSidechain": False,
        "userType": "external",
        "cwd": "/repo",
        "message": message,
        **extra,
    }


def _usage(fresh: int, write: int, read: int, out: int) -> dict[str, int]:
    return {
        "input_tokens": fresh,
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
        "output_tokens": out,
    }


def claude_fixture(path: Path) -> Path:
    model = "claude-sonnet-4-5-20250929"
    usage = _usage(10, 2_000, 48_000, 500)
    tool = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest"}}
    return _write(
        path,
        [
            _claude_line("user", {"role": "user", "content": "fix the tests"}),
            # One API message, two lines (one per content block), same id and usage.
            _claude_line(
                "assistant",
                {
                    "id": "msg_1",
                    "model": model,
                    "role": "assistant",
                    "usage": usage,
                    "content": [{"type": "text", "text": "Running them."}],
                },
            ),
            _claude_line(
                "assistant",
                {
                    "id": "msg_1",
                    "model": model,
                    "role": "assistant",
                    "usage": usage,
                    "content": [tool],
                },
            ),
            _claude_line(
                "user",
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "is_error": True,
                            "content": "exit 1",
                        }
                    ],
                },
            ),
            # A subagent's line in the main file is not the main context.
            {
                **_claude_line(
                    "assistant", {"id": "msg_s", "model": model, "usage": _usage(1, 0, 900_000, 1)}
                ),
                "isSidechain": True,
            },
            _claude_line(
                "assistant",
                {
                    "id": "<synthetic>-1",
                    "model": "<synthetic>",
                    "usage": _usage(0, 0, 0, 0),
                    "content": [{"type": "text", "text": "No response requested."}],
                },
            ),
        ],
    )


def test_claude_reading(tmp_path: Path) -> None:
    reader = TranscriptReader(claude_fixture(tmp_path / "s1.jsonl"))
    reading = reader.read()
    assert reader.harness == "claude"
    assert reading is not None
    assert reading.tokens == 50_010
    assert reading.window == 200_000
    assert reading.percent == 25.0
    assert reading.session_tokens == 50_510  # msg_1 counted once
    assert reading.model == "claude-sonnet-4-5-20250929"
    assert reading.turns == 1
    assert "message.usage" in reading.source
    # Sonnet 4.5: 10×$3 + 2000×$3.75 + 48000×$0.30 + 500×$15 per MTok
    assert reading.cost_usd == pytest.approx((30 + 7_500 + 14_400 + 7_500) / 1e6)
    (turn,) = reader.turns()
    assert [c.name for c in turn.calls] == ["Bash"]
    assert turn.failures == (True,)
    assert turn.final_text == "Running them."


def test_claude_compaction_resets_the_behaviour_window(tmp_path: Path) -> None:
    path = claude_fixture(tmp_path / "s1.jsonl")
    with path.open("a") as fh:
        boundary = {
            "type": "system",
            "subtype": "compact_boundary",
            "isSidechain": False,
            "content": "Conversation compacted",
            "uuid": "b",
            "compactMetadata": {"trigger": "auto", "preTokens": 150_000},
        }
        summary = _claude_line(
            "user", {"role": "user", "content": "summary…"}, isCompactSummary=True
        )
        fh.write(json.dumps(boundary) + "\n" + json.dumps(summary) + "\n")
    reader = TranscriptReader(path)
    reading = reader.read()
    assert reading is not None and reading.turns == 1  # the summary is not a prompt
    assert reader.turns() == []


# --- codex: @openai/codex 0.171.0 (binary strings; codex-rs/protocol) ------------------


def _token_count(last_total: int, total: dict[str, int], window: int | None) -> dict[str, Any]:
    info = {
        "total_token_usage": total,
        "last_token_usage": {
            "input_tokens": last_total - 100,
            "cached_input_tokens": 0,
            "output_tokens": 100,
            "reasoning_output_tokens": 0,
            "total_tokens": last_total,
        },
        "model_context_window": window,
    }
    return {
        "timestamp": "t",
        "type": "event_msg",
        "payload": {"type": "token_count", "info": info, "rate_limits": None},
    }


def codex_fixture(path: Path) -> Path:
    total = {
        "input_tokens": 30_000,
        "cached_input_tokens": 20_000,
        "output_tokens": 1_000,
        "reasoning_output_tokens": 400,
        "total_tokens": 31_000,
    }
    return _write(
        path,
        [
            {"timestamp": "t", "type": "session_meta", "payload": {"id": "abc", "cwd": "/repo"}},
            {
                "timestamp": "t",
                "type": "turn_context",
                "payload": {"cwd": "/repo", "model": "gpt-5-codex"},
            },
            {
                "timestamp": "t",
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": "c1",
                    "arguments": '{"command":["pytest"]}',
                },
            },
            {
                "timestamp": "t",
                "type": "response_item",
                "payload": {
                    "type": "function_call_output",
                    "call_id": "c1",
                    "output": "Exit code: 1\nWall time: 2 seconds\nOutput:\nFAILED",
                },
            },
            {
                "timestamp": "t",
                "type": "event_msg",
                "payload": {"type": "token_count", "info": None, "rate_limits": {}},
            },
            _token_count(21_000, total, 272_000),
            {
                "timestamp": "t",
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Tests fail."}],
                },
            },
        ],
    )


def test_codex_reading(tmp_path: Path) -> None:
    reader = TranscriptReader(codex_fixture(tmp_path / "rollout-2026-01-01T00-00-00-abc.jsonl"))
    reading = reader.read()
    assert reader.harness == "codex"
    assert reading is not None
    assert (reading.tokens, reading.window, reading.percent) == (21_000, 272_000, 7.7)
    assert reading.session_tokens == 31_000
    assert reading.model == "gpt-5-codex"
    # 10000 fresh × $1.25 + 20000 cached × $0.125 + 1000 out × $10 per MTok
    assert reading.cost_usd == pytest.approx((12_500 + 2_500 + 10_000) / 1e6)
    (turn,) = reader.turns()
    assert turn.failures == (True,)
    assert turn.final_text == "Tests fail."


def test_codex_output_failure_forms() -> None:
    from zirv_dash.context.codex import output_failed

    assert output_failed("Exit code: 2\nOutput:")
    assert not output_failed("Exit code: 0\nOutput:")
    assert output_failed("Process exited with code 127\n")
    assert output_failed(json.dumps({"output": "x", "metadata": {"exit_code": 1}}))
    assert not output_failed(json.dumps({"output": "x", "metadata": {"exit_code": 0}}))
    assert output_failed({"content": "x", "success": False})
    assert not output_failed("Success. Updated the following files:")


# --- gemini: @google/gemini-cli 0.61.0 (bundle/chunk-5FZXKDXH.js ChatRecordingService) ---


def test_gemini_reading_counts_a_rewritten_message_once(tmp_path: Path) -> None:
    tokens = {
        "input": 40_000,
        "output": 300,
        "cached": 30_000,
        "thoughts": 200,
        "tool": 0,
        "total": 40_500,
    }
    call = {"id": "c1", "name": "run_shell_command", "args": {"command": "ls"}}
    reply = {
        "id": "g1",
        "timestamp": "t",
        "type": "gemini",
        "content": "",
        "model": "gemini-2.5-pro",
    }
    path = _write(
        tmp_path / "session-2026-01-01T00-00-abcd1234.jsonl",
        [
            {
                "sessionId": "abcd1234",
                "projectHash": "h",
                "startTime": "t",
                "lastUpdated": "t",
                "kind": "main",
            },
            {"id": "u1", "timestamp": "t", "type": "user", "content": [{"text": "list"}]},
            {**reply, "toolCalls": [{**call, "status": "executing"}]},
            {**reply, "tokens": tokens, "toolCalls": [{**call, "status": "error"}]},
            {
                **reply,
                "tokens": tokens,
                "toolCalls": [{**call, "status": "error"}],
                "content": "It failed.",
            },
            {"$set": {"lastUpdated": "t2"}},
        ],
    )
    reader = TranscriptReader(path)
    reading = reader.read()
    assert reader.harness == "gemini"
    assert reading is not None
    assert (reading.tokens, reading.window) == (40_000, 1_048_576)
    assert reading.session_tokens == 40_500
    assert reading.cost_usd is None  # no cited gemini price
    (turn,) = reader.turns()
    assert len(turn.calls) == 1 and turn.failures == (True,)


# --- qwen: @qwen-code/qwen-code 0.15.10 (cli.js ChatRecordingService) ----------------------


def test_qwen_reading(tmp_path: Path) -> None:
    base = {
        "uuid": "x",
        "parentUuid": None,
        "sessionId": "s",
        "timestamp": "t",
        "cwd": "/r",
        "version": "0.15.10",
        "gitBranch": "main",
    }
    usage = {
        "promptTokenCount": 9_000,
        "candidatesTokenCount": 50,
        "cachedContentTokenCount": 1_000,
        "totalTokenCount": 9_050,
    }
    path = _write(
        tmp_path / "s.jsonl",
        [
            {**base, "type": "user", "message": {"role": "user", "parts": [{"text": "go"}]}},
            {
                **base,
                "type": "assistant",
                "model": "qwen3-coder-plus",
                "usageMetadata": usage,
                "contextWindowSize": 1_000_000,
                "message": {
                    "role": "model",
                    "parts": [
                        {"text": "Reading."},
                        {"functionCall": {"name": "read_file", "args": {"p": 1}}},
                    ],
                },
            },
            {
                **base,
                "type": "tool_result",
                "message": {"role": "user", "parts": []},
                "toolCallResult": {"callId": "c", "status": "error", "error": {}},
            },
            {**base, "type": "system", "subtype": "slash_command", "systemPayload": {}},
        ],
    )
    reader = TranscriptReader(path)
    reading = reader.read()
    assert reader.harness == "qwen"
    assert reading is not None
    assert (reading.tokens, reading.window, reading.percent) == (9_000, 1_000_000, 0.9)
    assert reading.session_tokens == 9_050
    (turn,) = reader.turns()
    assert turn.failures == (True,) and turn.final_text == "Reading."


def test_detection_from_single_records() -> None:
    assert harness_of({"type": "user", "isSidechain": False, "message": {}}) == "claude"
    assert harness_of({"type": "event_msg", "payload": {}}) == "codex"
    assert harness_of({"sessionId": "s", "projectHash": "h"}) == "gemini"
    assert harness_of({"type": "tool_result", "uuid": "u"}) == "qwen"
    assert harness_of({"hello": 1}) is None


def test_unknown_records_give_no_reading(tmp_path: Path) -> None:
    reader = TranscriptReader(_write(tmp_path / "x.jsonl", [{"hello": 1}]))
    assert reader.read() is None
    with pytest.raises(ValueError):
        TranscriptReader(tmp_path / "x.jsonl", "nope")


# --- native panes: the journal (zirv_dash/native/journal.py) -------------------------------


def test_native_reading_from_the_journal(tmp_path: Path) -> None:
    from zirv_dash.context.native import NativeReader
    from zirv_dash.native.journal import Journal

    journal = Journal(tmp_path / "j.sqlite")
    journal.append("open", route="r", model="claude-sonnet-4-5")
    journal.append("input", id="in-1", text="hi", steering=False)
    journal.append("tool_call", id="c1", message_id="m", name="read", arguments={"p": "a"})
    journal.append("tool_finish", id="c1", ok=False, output="no such file", display="")
    journal.append("usage", input=12_000, output=300)
    reader = NativeReader(journal)
    reading = reader.read()
    assert (reading.tokens, reading.window, reading.model) == (12_000, 200_000, "claude-sonnet-4-5")
    assert reading.turns == 1 and reader.turns()[0].failures == (True,)
    journal.append("input", id="in-2", text="more", steering=False)
    journal.append("usage", input=15_000, output=10)
    again = reader.read()
    assert (again.tokens, again.turns, again.session_tokens) == (15_000, 2, 27_310)
    journal.close()
