"""Styled runs (text between SGR, CUP and EL sequences) take fast paths: SGR-only
runs are split with ``str.split`` and walked through the SGR transition graph,
runs with CUP/EL are drawn piece by piece with CUP targets from a cache.  They
must leave exactly the state the general path leaves -- every sequence
dispatched on its own (``apply_sgr``, ``cursor_position``, ``erase_in_line``)
-- which is what a model whose styled-run pattern matches only plain text
does.  Seeded random streams, fed whole and in random pieces."""

from __future__ import annotations

import random
import re

import pytest

from tests.terminal.model_state import model_state
from zirv_dash.terminal import TerminalModel, sgr_graph
from zirv_dash.terminal.widths import narrow_class

COLS, ROWS = 30, 8

SGRS = [
    "0",
    "",
    "1",
    "1;31",
    "22",
    "4;44",
    "38;5;200",
    "48;5;17",
    "38;2;10;20;30",
    "48;2;255;0;128",
    "38;2;300;1;2",  # a bad component: skips only 38;2
    "38;5",  # a colour with its index missing
    "4:3",
    "38:2::1:2:3",
    "7",
    "27",
    "39;49",
    "0;1;33;45",
    ";;",
    "9999",
]
CUPS = ["", ";", "1;1", "3;7", "0;0", f"{ROWS};{COLS}", "99;99", "12345", "5", ";9", "2;"]
ELS = ["", "0", "1", "2"]
WORDS = ["word", "HK", "Kelvin", "Hm", "mmm", "héllo", "─│┼", "x", " ", "a b c", "é" * 12]
ODD = [
    "中",  # wide: ends a styled run
    "中文字",
    "\x1b[?7l",  # autowrap off and on
    "\x1b[?7h",
    "\x1b[4h",  # insert mode
    "\x1b[4l",
    "\x1b[?6h",  # origin mode, with a region
    "\x1b[2;6r",
    "\x1b[?6l",
    "\x1b[r",
    "\x1b(0",  # DEC graphics
    "\x1b(B",
    "\u200d",  # a pending joiner
    "\x1b[3b",  # REP: what the last run left to repeat
    "\r\n",
    "\r\n",
    "\r",
    "\t",
    "\x1b[?1049h",
    "\x1b[?1049l",
]


def _token(rng: random.Random) -> str:
    k = rng.random()
    if k < 0.35:
        return f"\x1b[{rng.choice(SGRS)}m"
    if k < 0.42:
        return f"\x1b[{rng.choice(CUPS)}H"
    if k < 0.5:  # anywhere, so pieces start and end on halves of wide characters
        return f"\x1b[{rng.randint(1, ROWS)};{rng.randint(1, COLS)}H"
    if k < 0.57:
        return f"\x1b[{rng.choice(ELS)}K"
    if k < 0.92:
        return rng.choice(WORDS)
    return rng.choice(ODD)


def _stream(seed: int, n: int = 1500) -> bytes:
    rng = random.Random(seed)
    return "".join(_token(rng) for _ in range(n)).encode()


def _general(m: TerminalModel) -> TerminalModel:
    """``m`` with the styled-run fast paths switched off: plain text runs
    only, every sequence through the general dispatch."""
    m._styled = re.compile(f"[{narrow_class()}]+")  # noqa: SLF001
    return m


def _state(m: TerminalModel) -> tuple[object, ...]:
    return model_state(m)


@pytest.mark.parametrize("seed", range(16))
def test_styled_runs_equal_sequences_one_by_one(seed: int) -> None:
    data = _stream(seed)
    fast = TerminalModel(COLS, ROWS, scrollback_bytes=1 << 20)
    fast.feed(data)
    ref = _general(TerminalModel(COLS, ROWS, scrollback_bytes=1 << 20))
    ref.feed(data)
    assert _state(fast) == _state(ref)


@pytest.mark.parametrize("seed", range(6))
def test_styled_runs_fed_in_random_pieces(seed: int) -> None:
    data = _stream(100 + seed)
    rng = random.Random(seed)
    pieces = TerminalModel(COLS, ROWS)
    i = 0
    while i < len(data):
        k = rng.randint(1, 300)
        pieces.feed(data[i : i + k])
        i += k
    ref = _general(TerminalModel(COLS, ROWS))
    ref.feed(data)
    assert _state(pieces) == _state(ref)


def test_sgr_graph_starting_again_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tiny graph limit: it is cleared many times in one stream (nodes
    still held by a run keep working)."""
    monkeypatch.setattr(sgr_graph, "_LIMIT", 5)
    sgr_graph.reset()
    data = _stream(7)
    fast = TerminalModel(COLS, ROWS)
    fast.feed(data)
    ref = _general(TerminalModel(COLS, ROWS))
    ref.feed(data)
    sgr_graph.reset()
    assert _state(fast) == _state(ref)


def test_renditions_interned_again_are_drawn_with_the_new_objects() -> None:
    """More distinct colours than the intern table holds (a gradient) start it
    again; the SGR graph must start again too, or a row drawn afterwards mixes
    equal renditions that are different objects, and scrollback stores it cell
    by cell instead of as one run."""
    gradient = "".join(f"\x1b[38;2;{i % 256};{i // 256};0mg" for i in range(9000))
    stored = []
    for model in (TerminalModel(10, 3), _general(TerminalModel(10, 3))):
        model.feed(b"\x1b[41mx\x1b[0m\r\n")
        model.feed(gradient.encode() + b"\x1b[0m\x1b[2J\x1b[H")
        model.feed(b"\x1b[41mab\x1b[K\x1b[0m\r\n\r\n\r\n")
        line = model._screen.history[-1]
        assert line[0].startswith("ab")
        stored.append((type(line[1]).__name__, line[3]))
    assert stored[0] == stored[1]
    assert stored[0][0] == "Attr"  # one rendition for the whole row, as the general path


def test_cup_targets_follow_a_resize() -> None:
    m = TerminalModel(80, 24)
    m.feed(b"\x1b[20;70Ha\x1b[1mb")
    assert m.cursor == (71, 19)
    m.resize(40, 10)
    m.feed(b"\x1b[20;70Hc\x1b[0m")  # the same CUP, now clamped to the new size
    assert m.cursor == (39, 9)
    assert m.lines()[9].endswith("c")


def test_a_highlighted_line_is_one_run_per_colour() -> None:
    m = TerminalModel(40, 3)
    m.feed(b"\x1b[1;32mok\x1b[0m \x1b[38;5;200mpink\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[0m")
    runs = m.row_runs(0)
    assert [t for t, _ in runs][:6] == ["ok", " ", "pink", " ", "rgb", " " * 29]
    assert runs[0][1].bold and runs[0][1].fg == 2
    assert runs[2][1].fg == 200 and runs[4][1].fg == "#010203"
    assert m.cursor == (11, 0)


def test_the_styled_run_pattern_accepts_what_the_alternation_did() -> None:
    """The run pattern is written text-then-(sequence, text) with possessive
    repetitions; it must end exactly where the plain alternation of text and
    sequences under one "+" ends, on any mix of their characters."""
    from zirv_dash.terminal.parser import _styled_run_re

    cls = narrow_class()
    plain = re.compile(f"(?:[{cls}]+|\x1b\\[[0-9;:]*[mHK])+")
    fast = _styled_run_re()
    rng = random.Random(5)
    alphabet = ["\x1b[", "\x1b", "[", "0", "1", "9", ";", ":", "m", "H", "K", "x", "中", "\r"]
    for _ in range(20000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        m = plain.match(s)
        assert fast.match(s).end() == (m.end() if m else 0), repr(s)  # type: ignore[union-attr]


def test_cup_targets_are_shared_only_by_models_of_one_size() -> None:
    """The CUP table is shared by models of one size: a target cached at one
    size must never move the cursor of a model of another size."""
    for size in ((80, 24), (40, 10), (80, 24), (40, 10)):
        m = TerminalModel(*size)
        m.feed(b"\x1b[20;70Hx\x1b[1;32my\x1b[0m")
        if size == (80, 24):
            assert m.cursor == (71, 19)
        else:  # clamped to (39, 9): "x" on the last column, "y" wrapped
            assert m.lines()[-2:] == [" " * 39 + "x", "y"]
        ref = _general(TerminalModel(*size))
        ref.feed(b"\x1b[20;70Hx\x1b[1;32my\x1b[0m")
        assert _state(m) == _state(ref)
