"""`zirv ctx usage tee -- CMD` run as Claude Code runs it (a real subprocess), and `zirv ctx usage`.

The statusline input is built in Claude Code's own shape: @anthropic-ai/claude-code
2.1.197, `bin/claude.exe`, the function building the statusline's stdin object
(`rate_limits` {five_hour, seven_day} {used_percentage, resets_at (epoch s)}).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

TEE = [sys.executable, "-m", "zirv_dash.cli.main", "ctx", "usage", "tee"]
USAGE = [sys.executable, "-m", "zirv_dash.cli.main", "ctx", "usage"]


def statusline(five: float = 62.5, seven: float = 40.0) -> bytes:
    now = time.time()
    return json.dumps(
        {
            "session_id": "0b6c9d1e-1111-2222-3333-444455556666",
            "transcript_path": "/tmp/x.jsonl",
            "cwd": "/tmp",
            "model": {"id": "claude-sonnet-5", "display_name": "Sonnet 5"},
            "version": "2.1.197",
            "rate_limits": {
                "five_hour": {"used_percentage": five, "resets_at": int(now + 7200)},
                "seven_day": {"used_percentage": seven, "resets_at": int(now + 400000)},
            },
        }
    ).encode()


def env(tmp_path: Path) -> dict[str, str]:
    out = dict(os.environ)
    out["HOME"] = str(tmp_path / "home")
    return out


def tee(tmp_path: Path, cmd: list[str], data: bytes | None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        TEE + cmd,
        input=data,
        stdin=subprocess.DEVNULL if data is None else None,
        capture_output=True,
        env=env(tmp_path),
        timeout=60,
        check=False,
    )


def collector_file(state: Path) -> Path:
    return state / "usage" / "anthropic.json"


def test_valid_input_is_recorded_and_the_inner_command_gets_the_same_bytes(
    tmp_path: Path, isolated_state: Path
) -> None:
    data = statusline()
    seen = tmp_path / "seen.json"
    done = tee(tmp_path, ["--", "sh", "-c", f"cat > {seen}; echo my statusline"], data)
    assert done.returncode == 0
    assert done.stdout == b"my statusline\n"
    assert seen.read_bytes() == data
    path = collector_file(isolated_state)
    assert path.stat().st_mode & 0o777 == 0o600
    record = json.loads(path.read_text())
    assert record["vendor"] == "anthropic"
    assert record["five_hour"]["used_percentage"] == 62.5
    assert record["seven_day"]["used_percentage"] == 40.0
    assert abs(record["read_at"] - time.time()) < 60


def test_failing_inner_command_without_output_gets_our_own_line(
    tmp_path: Path, isolated_state: Path
) -> None:
    done = tee(tmp_path, ["--", "sh", "-c", "exit 3"], statusline(71.0, 12.0))
    assert done.returncode == 0
    assert done.stdout.decode() == "Sonnet 5 · 5h 71% · 7d 12%\n"
    assert collector_file(isolated_state).exists()  # recorded all the same


def test_failing_inner_command_output_is_passed_through(tmp_path: Path) -> None:
    done = tee(tmp_path, ["--", "sh", "-c", "printf partial; exit 1"], statusline())
    assert (done.returncode, done.stdout) == (0, b"partial\n")


def test_missing_inner_command(tmp_path: Path, isolated_state: Path) -> None:
    done = tee(tmp_path, ["--", str(tmp_path / "no-such-statusline")], statusline(5.0, 1.0))
    assert done.returncode == 0
    assert done.stdout.decode() == "Sonnet 5 · 5h 5% · 7d 1%\n"
    assert collector_file(isolated_state).exists()


def test_no_inner_command_at_all(tmp_path: Path) -> None:
    done = tee(tmp_path, [], statusline(33.0, 2.0))
    assert (done.returncode, done.stdout.decode()) == (0, "Sonnet 5 · 5h 33% · 7d 2%\n")


def test_invalid_json_is_recorded_as_nothing(tmp_path: Path, isolated_state: Path) -> None:
    seen = tmp_path / "seen"
    done = tee(tmp_path, ["--", "sh", "-c", f"cat > {seen}"], b'{"rate_limits": {"five_')
    assert (done.returncode, done.stdout) == (0, b"zirv\n")
    assert seen.read_bytes() == b'{"rate_limits": {"five_'
    assert not collector_file(isolated_state).exists()


def test_input_without_rate_limits_keeps_the_last_reading(
    tmp_path: Path, isolated_state: Path
) -> None:
    tee(tmp_path, [], statusline(50.0, 20.0))
    before = collector_file(isolated_state).read_bytes()
    done = tee(tmp_path, [], json.dumps({"model": {"display_name": "Opus 5"}}).encode())
    assert done.stdout == b"Opus 5\n"
    assert collector_file(isolated_state).read_bytes() == before


def test_no_stdin_and_a_stdin_never_closed_do_not_hang(tmp_path: Path) -> None:
    done = tee(tmp_path, ["--", "echo", "line"], None)
    assert (done.returncode, done.stdout) == (0, b"line\n")
    start = time.monotonic()
    # The pipe is held open and never written: the tee gives up on it by itself.
    proc = subprocess.Popen(TEE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env(tmp_path))
    assert proc.stdin is not None and proc.stdout is not None
    try:
        out = proc.stdout.read()  # EOF once the tee has exited
        assert proc.wait(timeout=30) == 0
    finally:
        proc.stdin.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert out == b"zirv\n"
    assert time.monotonic() - start < 20


def test_usage_shows_the_collector_reading_with_its_age(
    tmp_path: Path, isolated_state: Path
) -> None:
    tee(tmp_path, [], statusline(62.5, 40.0))
    done = subprocess.run(
        USAGE + ["--json"], capture_output=True, env=env(tmp_path), timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    five = out["vendors"]["anthropic"]["five_hour"]
    assert (five["percent"], five["source"]) == (62.5, "collector")
    assert 0 <= five["age_s"] < 60
    assert five["resets_at"] > time.time()
    assert out["vendors"]["google"]["five_hour"]["percent"] is None
    assert out["vendors"]["anthropic"]["breaker"] is None
    text = subprocess.run(USAGE, capture_output=True, env=env(tmp_path), timeout=60, check=False)
    lines = text.stdout.decode().splitlines()
    assert any(
        line.startswith("anthropic  5h") and "62%" in line and "collector" in line for line in lines
    )
    assert any(line.startswith("qwen       7d") and "–" in line for line in lines)
    assert "breaker anthropic: clear" in lines


def test_a_malformed_collector_file_is_refused_and_left_alone(
    tmp_path: Path, isolated_state: Path
) -> None:
    path = collector_file(isolated_state)
    path.parent.mkdir(parents=True)
    path.write_text('{"vendor": "anthropic", "read_at": "soon", "source": "x"}')
    done = subprocess.run(
        USAGE + ["--json"], capture_output=True, env=env(tmp_path), timeout=60, check=False
    )
    assert done.returncode == 0
    out = json.loads(done.stdout)
    assert out["vendors"]["anthropic"]["five_hour"]["source"] == "unknown"
    assert any(str(path) in p and "read_at" in p for p in out["problems"])
    assert str(path) in done.stderr.decode()
    assert path.read_text() == '{"vendor": "anthropic", "read_at": "soon", "source": "x"}'


@pytest.mark.parametrize("argv", [["--bogus"], ["extra"]])
def test_usage_errors_exit_2(tmp_path: Path, argv: list[str]) -> None:
    done = subprocess.run(USAGE + argv, capture_output=True, env=env(tmp_path), timeout=60)
    assert done.returncode == 2
