"""Incremental, bounded reading of a growing transcript."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from zirv_dash.context.reader import TranscriptReader
from zirv_dash.context.tail import JsonlTail


def _line(n: int) -> str:
    return json.dumps({"n": n}) + "\n"


def test_only_appended_lines_are_parsed(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(_line(1) + _line(2))
    tail = JsonlTail(path)
    assert tail.read() == [{"n": 1}, {"n": 2}]
    assert tail.read() == []
    with path.open("a") as fh:
        fh.write(_line(3))
    assert tail.read() == [{"n": 3}]
    assert tail.lines == 3


def test_a_torn_last_line_completes_later(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    whole = _line(1) + _line(2)
    path.write_text(whole[:-6])  # the second line is still being written
    tail = JsonlTail(path)
    assert tail.read() == [{"n": 1}]
    assert tail.malformed == 0
    with path.open("a") as fh:
        fh.write(whole[-6:])
    assert tail.read() == [{"n": 2}]
    assert tail.malformed == 0


def test_malformed_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        _line(1)
        + "{not json\n"
        + "[1, 2]\n"
        + "\n"
        + b"\xff\xfe".decode("latin-1")
        + "\n"
        + _line(2)
    )
    tail = JsonlTail(path)
    assert tail.read() == [{"n": 1}, {"n": 2}]
    assert tail.malformed == 3


def test_a_line_longer_than_a_chunk_is_dropped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"big": "x" * 5000}) + "\n" + _line(7))
    tail = JsonlTail(path, chunk_bytes=1024)
    seen: list[dict[str, object]] = []
    while not tail.at_end():
        seen.extend(tail.read())
    assert seen == [{"n": 7}]
    assert tail.malformed == 1


def test_each_read_is_bounded_by_the_chunk(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("".join(_line(n) for n in range(1000)))
    tail = JsonlTail(path, chunk_bytes=100)
    first = tail.read()
    assert tail.offset == 100
    assert 0 < len(first) < 20
    rest: list[dict[str, object]] = []
    while not tail.at_end():
        rest.extend(tail.read())
    assert [o["n"] for o in first + rest] == list(range(1000))


def test_a_rewritten_file_is_read_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(_line(1) + _line(2))
    tail = JsonlTail(path)
    tail.read()
    path.write_text(_line(9))  # truncated and rewritten: shorter than the offset
    assert tail.read() == [{"n": 9}]


def test_a_growing_claude_transcript_reads_incrementally(tmp_path: Path) -> None:
    # Claude Code 2.1.197 line shape (see test_context_readers).
    def assistant(msg_id: str, cached: int) -> str:
        message = {
            "id": msg_id,
            "model": "claude-opus-4-8",
            "content": [],
            "usage": {
                "input_tokens": 5,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": cached,
                "output_tokens": 1,
            },
        }
        return (
            json.dumps(
                {"type": "assistant", "isSidechain": False, "uuid": msg_id, "message": message}
            )
            + "\n"
        )

    path = tmp_path / "s.jsonl"
    path.write_text(assistant("m1", 100_000))
    reader = TranscriptReader(path)
    first = reader.read()
    assert first is not None and first.tokens == 100_005 and first.window == 1_000_000
    parsed_before = reader.tail.lines
    line = assistant("m2", 300_000)
    with path.open("a") as fh:
        fh.write(line[:20])
    torn = reader.read()
    assert torn is not None and torn.tokens == 100_005
    with path.open("a") as fh:
        fh.write(line[20:])
    grown = reader.read()
    assert grown is not None and grown.tokens == 300_005 and grown.percent == 30.0
    assert reader.tail.lines == parsed_before + 1  # only the new line was parsed


@pytest.mark.timeout(30)
def test_a_2_gb_sparse_transcript_reads_in_bounded_steps(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    subprocess.run(["truncate", "-s", "2G", str(path)], check=True)
    with path.open("r+b") as fh:
        fh.seek(os.path.getsize(path) - 100)
        fh.write(b"\n" + _line(1).encode())
    reader = TranscriptReader(path, "claude")
    reading = reader.read()  # one 4 MiB chunk of a 2 GB file
    assert reading is not None
    assert reader.tail.offset == 4 * 1024 * 1024
    assert reading.malformed_lines == 1  # the zero run is one over-long line
