"""A transcript read as it grows: only what was appended is parsed, and a 2 GB file never stalls."""

from __future__ import annotations

import json
import os
import time
import tracemalloc
from pathlib import Path

import pytest

from tests.test_context_readers import _claude_line, _token_count, _usage
from zirv_dash.context.reader import TranscriptReader
from zirv_dash.context.session_watch import STEP_BYTES

MODEL = "claude-sonnet-4-5-20250929"


def turn(n: int, context: int) -> str:
    user = _claude_line("user", {"role": "user", "content": f"step {n}"})
    reply = _claude_line(
        "assistant",
        {
            "id": f"msg_{n}",
            "model": MODEL,
            "role": "assistant",
            "usage": _usage(10, 0, context - 10, 20),
            "content": [{"type": "text", "text": f"done {n}"}],
        },
    )
    return json.dumps(user) + "\n" + json.dumps(reply) + "\n"


def test_each_read_sees_exactly_what_was_appended(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(turn(0, 10_000))
    reader = TranscriptReader(path, "claude")
    first = reader.read()
    assert first is not None and (first.turns, first.tokens) == (1, 10_000)
    offset = reader.tail.offset
    again = reader.read()  # nothing appended: nothing parsed, the same figures
    assert again is not None and (again.turns, again.tokens) == (1, 10_000)
    assert reader.tail.offset == offset
    with path.open("a") as out:
        out.write(turn(1, 30_000))
        whole = turn(2, 50_000)
        out.write(whole[: len(whole) - 25])  # the harness is still writing this line
    grown = reader.read()
    assert grown is not None and (grown.turns, grown.tokens) == (3, 30_000)
    with path.open("a") as out:
        out.write(whole[len(whole) - 25 :])  # the torn line completes
        out.write("not json\n[1, 2]\n")
    done = reader.read()
    assert done is not None and done.tokens == 50_000 and done.turns == 3
    assert done.malformed_lines == 2  # skipped and counted
    assert done.session_tokens == 10_020 + 30_020 + 50_020  # each turn once: prompt + reply


def codex_turn(n: int, context: int, total: int) -> str:
    """One codex turn in the rollout schema (@openai/codex 0.171.0; see context/codex.py)."""
    cumulative = {
        "input_tokens": total - 10 * (n + 1),
        "cached_input_tokens": 0,
        "output_tokens": 10 * (n + 1),
        "reasoning_output_tokens": 0,
        "total_tokens": total,
    }
    lines = [
        {
            "timestamp": "t",
            "type": "turn_context",
            "payload": {"cwd": "/r", "model": "gpt-5-codex"},
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {"type": "function_call", "name": "shell", "arguments": f'{{"n":{n}}}'},
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {"type": "function_call_output", "output": f"Exit code: {n % 2}"},
        },
        _token_count(context, cumulative, 272_000),
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def test_a_growing_codex_rollout_reads_each_turn_once(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2026-01-01T00-00-00-abc.jsonl"
    meta = {"timestamp": "t", "type": "session_meta", "payload": {"id": "abc", "cwd": "/r"}}
    path.write_text(json.dumps(meta) + "\n" + codex_turn(0, 12_000, 12_000))
    reader = TranscriptReader(path, "codex")
    first = reader.read()
    assert first is not None
    assert (first.turns, first.tokens, first.window, first.session_tokens) == (
        1,
        12_000,
        272_000,
        12_000,
    )
    with path.open("a") as out:
        second = codex_turn(1, 40_000, 52_000)
        out.write(second[:-40])  # the token_count line is half written
    grown = reader.read()
    assert grown is not None and grown.turns == 2
    assert (grown.tokens, grown.session_tokens) == (12_000, 12_000)  # not yet reported
    with path.open("a") as out:
        out.write(second[-40:] + "{torn garbage\n")
    done = reader.read()
    assert done is not None and (done.turns, done.tokens, done.session_tokens) == (
        2,
        40_000,
        52_000,
    )
    assert done.malformed_lines == 1
    assert [t.failures for t in reader.turns()] == [(False,), (True,)]  # each call once


def _sparse_ok(path: Path) -> bool:
    st = path.stat()
    return st.st_blocks * 512 < st.st_size // 2


@pytest.mark.timeout(120)
@pytest.mark.parametrize("records_first", [False, True])
def test_a_2gb_sparse_transcript_is_read_in_bounded_time_and_memory(
    tmp_path: Path, records_first: bool
) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as out:
        if records_first:
            out.write(turn(0, 20_000).encode())
        out.truncate(2 * 1024**3)
    if not _sparse_ok(path):
        pytest.skip("this filesystem cannot make sparse files")
    with path.open("a") as out:
        out.write("\n" + turn(1, 90_000))  # a record after the 2 GB hole
    reader = TranscriptReader(path, "claude", chunk_bytes=STEP_BYTES * 16)
    tracemalloc.start()
    began = time.monotonic()
    try:
        reading = reader.catch_up()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    took = time.monotonic() - began
    assert reading is not None and reading.tokens == 90_000
    assert reading.turns == (2 if records_first else 1)
    assert reading.malformed_lines >= 1  # the hole: one over-long line, dropped
    assert took < 60, f"{took:.1f} s for 2 GB"
    assert peak < 64 * 1024 * 1024, f"peak {peak / 1e6:.0f} MB"
    assert reader.tail.offset == os.path.getsize(path)
