"""Nudge markers: written after the mail, claimed by exactly one reader."""

from __future__ import annotations

import stat
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from zirv_dash.mail import nudge


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(tmp_path))
    return tmp_path


def test_write_then_claim(state: Path) -> None:
    path = nudge.write_marker("abcdef12", "11223344")
    assert path == state / "sessions" / "abcdef12.nudge"
    assert path.read_text() == "11223344\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert nudge.has_marker("abcdef12")
    assert nudge.claim_marker("abcdef12") == "11223344"
    assert not path.exists()
    assert nudge.claim_marker("abcdef12") is None


def test_no_marker_claims_nothing(state: Path) -> None:
    assert nudge.claim_marker("abcdef12") is None


@pytest.mark.parametrize("content", [b"", b"\n\n", b"\xff\xfe\x00", b"\x1b[31m!!\x07"])
def test_empty_or_garbage_marker_reads_as_unknown(state: Path, content: bytes) -> None:
    path = state / "sessions" / "abcdef12.nudge"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    assert nudge.claim_marker("abcdef12") == "unknown"
    assert not path.exists()


def test_sender_is_sanitised(state: Path) -> None:
    nudge.write_marker("abcdef12", "op\x1berator\nsecond line")
    assert nudge.claim_marker("abcdef12") == "operator"


def test_only_one_concurrent_claimer_wins(state: Path) -> None:
    for round_no in range(10):
        nudge.write_marker("abcdef12", f"sender{round_no}")
        barrier = threading.Barrier(8)

        def claim(_: int, barrier: threading.Barrier = barrier) -> str | None:
            barrier.wait()
            return nudge.claim_marker("abcdef12")

        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(claim, range(8)))
        winners = [r for r in results if r is not None]
        assert winners == [f"sender{round_no}"]
    assert [p.name for p in (state / "sessions").iterdir()] == []  # no claim leftovers


def test_invalid_short_is_refused(state: Path) -> None:
    with pytest.raises(ValueError):
        nudge.write_marker("../../x", "me")
