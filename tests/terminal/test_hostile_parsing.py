"""Parsing cost is linear in the input, whatever the child prints.

A corpus of hostile byte patterns (sequences that never end, controls inside
sequences, huge parameter lists, garbage UTF-8 ...) is fed at two sizes; the
larger must not cost disproportionately more.  The check is a ratio, not a
wall-clock budget, so a loaded machine does not make it flaky: 8x the input
may take at most 20x the time (a quadratic parser takes ~64x), measured up
to three times before failing.  A generous absolute bound guards against a
parser that is linear but absurdly slow.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import pytest

from zirv_dash.terminal import TerminalModel


def _utf8_garbage(n: int) -> bytes:
    rng = random.Random(1)
    return bytes(rng.getrandbits(8) for _ in range(n))


def _sequence_soup(n: int) -> bytes:
    rng = random.Random(2)
    alphabet = b"\x1b[;?0123456789mHJK\x07\x18 !\"#$%&'()*+,-./:<=>\x01\x02\r\n\tabc]P_^X\\"
    return bytes(rng.choice(alphabet) for _ in range(n))


_ALL_STOPS = b"\x1b[1;1H" + b" \x1bH" * 199 + b"\r"  # HTS in every column of 200

# name: a function of the size in bytes (roughly) giving the pattern
CORPUS: dict[str, Callable[[int], bytes]] = {
    "CSI then C0 controls": lambda n: b"\x1b[" + b"\x01" * n,
    "CSI, C0 controls, final": lambda n: b"\x1b[" + b"\x01" * n + b"m",
    "CSI with C0 between params": lambda n: b"\x1b[1" + b"\x01;" * (n // 2),
    "CSI with a huge parameter list": lambda n: b"\x1b[" + b"1;" * (n // 2),
    "huge parameter list, final": lambda n: b"\x1b[" + b"1;" * (n // 2) + b"m",
    "CSI with endless digits": lambda n: b"\x1b[" + b"9" * n,
    "CSI with endless intermediates": lambda n: b"\x1b[" + b" " * n,
    "many intermediates, final": lambda n: b"\x1b[1" + b"!" * n + b"p",
    "CSI introducers only": lambda n: b"\x1b[" * (n // 2),
    "endless ESC": lambda n: b"\x1b" * n,
    "ESC with endless intermediates": lambda n: b"\x1b" + b" " * n,
    "unterminated OSC": lambda n: b"\x1b]0;" + b"a" * n,
    "OSC broken by ESCs": lambda n: b"\x1b]0;" + b"\x1b" * n,
    "unterminated DCS": lambda n: b"\x1bP" + b"q" * n,
    "unterminated APC": lambda n: b"\x1b_" + b"x" * n,
    "many titles": lambda n: b"\x1b]2;t\x07" * (n // 6),
    "SGR with 10k params": lambda n: (
        (b"\x1b[" + b";".join([b"38;5;1"] * 3400) + b"m") * max(1, n // 20000)
    ),
    "SGR of colons": lambda n: b"\x1b[" + b":" * n + b"m",
    "UTF-8 garbage": _utf8_garbage,
    "UTF-8 lead bytes": lambda n: b"\xe4" * n,
    "UTF-8 continuation bytes": lambda n: b"\x80" * n,
    "combining marks": lambda n: "\u0301".encode() * (n // 2),
    "zero width joiners": lambda n: "\u200d".encode() * (n // 3),
    "wide characters": lambda n: "中".encode() * (n // 3),
    "tabs": lambda n: b"\t" * n,
    "tabs, a stop in every column": lambda n: _ALL_STOPS + b"\t\r" * (n // 2),
    "CBT 9999, a stop in every column": lambda n: _ALL_STOPS + b"\x1b[1;200H\x1b[9999Z" * (n // 15),
    "backspaces": lambda n: b"\x08" * n,
    "REP 9999": lambda n: b"a\x1b[9999b" * (n // 8),
    "CUP and EL": lambda n: b"\x1b[5;5H\x1b[K" * (n // 10),
    "styled run with CUPs": lambda n: b"\x1b[1;1Hab\x1b[31m" * (n // 14),
    "IL/DL 9999": lambda n: b"\x1b[9999L\x1b[9999M" * (n // 16),
    "SU/SD 9999": lambda n: b"\x1b[9999S\x1b[9999T" * (n // 16),
    "DECALN": lambda n: b"\x1b#8" * (n // 3),
    "RIS": lambda n: b"\x1bc" * (n // 2),
    "clear screen": lambda n: b"\x1b[H\x1b[2J" * (n // 7),
    "alternate screen toggles": lambda n: b"\x1b[?1049h\x1b[?1049l" * (n // 16),
    "DCS cancelled": lambda n: b"\x1bPq\x18" * (n // 4),
    "CSI cancelled": lambda n: b"\x1b[1\x18" * (n // 4),
    "kitty keyboard pushes": lambda n: b"\x1b[>1u" * (n // 5),
    "queries": lambda n: b"\x1b[c\x1b[6n" * (n // 7),
    "line feeds": lambda n: b"\n" * n,
    "sequence soup": _sequence_soup,
}

SMALL, BIG = 8 * 1024, 64 * 1024


def _cost(data: bytes, chunk: int) -> float:
    m = TerminalModel(200, 50, scrollback_bytes=1 << 20)
    start = time.perf_counter()
    for i in range(0, len(data), chunk):
        m.feed(data[i : i + chunk])
        m.take_replies()
    return time.perf_counter() - start


def _assert_linear(make: Callable[[int], bytes], chunk: int = 1 << 20) -> None:
    small, big = make(SMALL), make(BIG)
    ratio = len(big) / len(small)
    worst = ""
    for _ in range(3):
        t_small = max(_cost(small, chunk), 0.002)  # below ~2 ms it is noise
        t_big = _cost(big, chunk)
        if t_big < 20 / 8 * ratio * t_small and t_big < 2.0:
            return
        worst = f"{len(small)} B: {t_small * 1e3:.1f} ms, {len(big)} B: {t_big * 1e3:.1f} ms"
    pytest.fail(f"not linear: {worst}")


@pytest.mark.serial  # an absolute time cap: measured alone, not beside another worker
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_feed_is_linear(name: str) -> None:
    _assert_linear(CORPUS[name])


@pytest.mark.parametrize(
    "name", ["CSI then C0 controls", "CSI with endless digits", "unterminated OSC", "endless ESC"]
)
@pytest.mark.parametrize("chunk", [100, 4096])
def test_feed_in_pieces_is_linear(name: str, chunk: int) -> None:
    """An unfinished sequence is carried to the next feed: that must not
    make a trickle of bytes quadratic either."""
    _assert_linear(CORPUS[name], chunk)


def test_csi_with_64k_controls_is_fast_and_runs_them() -> None:
    """The case that took ~50 s: the controls run and the text survives."""
    m = TerminalModel(80, 24)
    m.feed(b"ab\x1b[" + b"\x00" * 65536 + b"\x08" + b"\x00" * 100)
    m.feed(b"cd")
    assert m.lines()[0] == "acd"  # the backspace inside ran


def test_tabs_forward_and_back_over_custom_stops() -> None:
    """HT/CBT still land where tmux puts them (stops at 4, 12 and 29)."""
    m = TerminalModel(40, 2)
    m.feed(b"\x1b[3g\x1b[1;5H\x1bH\x1b[1;13H\x1bH\x1b[1;30H\x1bH")
    m.feed(b"\r\tA\t\tB\x1b[2ZC\x1b[9ZD\r\n\t\t\t\tE\x1b[2ZF")
    assert m.lines() == ["D   A       C                B", " " * 12 + "F" + " " * 26 + "E"]
    assert m.cursor == (13, 1)
