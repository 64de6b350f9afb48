"""The scrollback byte cap bounds real memory, whatever the child prints.

Each line is charged what it really costs (its record, its text and its
attributes); the tests measure the model's actual footprint with
``tracemalloc`` and with a ``sys.getsizeof`` walk and hold it to the cap.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from collections.abc import Iterator

import pytest

from zirv_dash.terminal import Attr, TerminalModel

CAP = 256 * 1024

# name: (chunk, how many times) -- each stream fills the cap many times over.
STREAMS: dict[str, tuple[bytes, int]] = {
    "blank lines": (b"\n" * 10_000, 3),
    "short lines": (b"ab\r\n" * 5_000, 2),
    "full lines": ((b"x" * 199 + b"\r\n") * 200, 10),
    "a colour per cell": ((b"\x1b[31ma\x1b[32mb" * 100 + b"\r\n") * 50, 6),
    "wide characters": (("中文" * 50 + "\r\n").encode() * 50, 2),
    "combining marks": (("e\u0301\u0302" * 200 + "\r\n").encode() * 20, 3),
    "emoji sequences": (("👨\u200d👩\u200d👧" * 100 + "\r\n").encode() * 20, 3),
    "line drawing": (b"\x1b(0" + b"q" * 400 + b"\x1b(B\r\n", 400),
    "coloured clears": (b"\x1b[41m\x1b[H\x1b[2J" * 100, 10),
    "wrapped text": (b"y" * 50_000, 10),
}


@pytest.fixture
def traced() -> Iterator[None]:
    gc.collect()
    tracemalloc.start()
    try:
        yield
    finally:
        tracemalloc.stop()


def _footprint_after(m: TerminalModel, chunk: bytes, times: int) -> int:
    """Bytes the model holds after the feeds, beyond what it held before."""
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(times):
        m.feed(chunk)
    gc.collect()
    return tracemalloc.get_traced_memory()[0] - before


@pytest.mark.parametrize("name", sorted(STREAMS))
@pytest.mark.usefixtures("traced")
def test_stream_stays_within_twice_the_cap(name: str) -> None:
    chunk, times = STREAMS[name]
    # A short screen: its own cells (up to ~80 bytes each with clusters)
    # are not scrollback and would blur the measure.
    m = TerminalModel(200, 4, scrollback_bytes=CAP)
    grown = _footprint_after(m, chunk, times)
    assert m.history_bytes <= CAP
    assert grown <= 2 * CAP, f"{name}: {grown / CAP:.2f}x the cap"


@pytest.mark.usefixtures("traced")
def test_blank_lines_at_the_default_cap() -> None:
    """Blank lines cost a line record each: the cap counts them as such
    (the old 1-byte charge let 250k of them take ~2.6x an 8 MiB cap)."""
    m = TerminalModel(80, 24)
    cap = 8 * 1024 * 1024
    grown = _footprint_after(m, b"\n" * 50_000, 5)
    assert m.history_bytes <= cap
    assert grown <= 2 * cap
    assert m.history_size < 250_000  # lines were dropped for the cap


@pytest.mark.usefixtures("traced")
def test_twenty_thousand_clears_do_not_grow() -> None:
    m = TerminalModel(80, 24)
    m.feed(b"$ ls\r\nfile\r\n")
    clear = b"\x1b[H\x1b[2J\x1b[3J$ "  # what clear(1) prints for xterm, then a prompt
    grown = _footprint_after(m, clear * 1000, 20)
    assert m.history_size == 0
    assert grown < 64 * 1024
    # without ED 3 every clear keeps the screen in the scrollback: capped
    m = TerminalModel(80, 24, scrollback_bytes=CAP)
    grown = _footprint_after(m, b"\x1b[H\x1b[2J$ ls\r\nfile" * 1000, 2)
    assert m.history_size > 0
    assert grown <= 2 * CAP


def _deep_size(obj: object, seen: set[int]) -> int:
    """``sys.getsizeof`` summed over every object reachable through tuples,
    skipping shared objects: interned attributes, cached one-character
    strings and anything already counted."""
    if id(obj) in seen or isinstance(obj, Attr | bool) or obj is None:
        return 0
    if isinstance(obj, str) and len(obj) <= 1 and obj <= "\xff":
        return 0
    if isinstance(obj, int) and -5 <= obj <= 256:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, tuple):
        size += sum(_deep_size(item, seen) for item in obj)
    return size


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_charge_covers_what_lines_hold(name: str) -> None:
    """The model's own accounting is at least what its lines occupy, and
    (for lines that are not shared) close to it."""
    chunk, _ = STREAMS[name]
    m = TerminalModel(200, 4, scrollback_bytes=CAP)
    for _ in range(5):
        m.feed(chunk)
    history = m._screen.history
    seen: set[int] = set()
    held = sum(_deep_size(line, seen) for line in history) + 8 * len(history)
    assert m.history_size > 0
    assert held <= m.history_bytes <= CAP
