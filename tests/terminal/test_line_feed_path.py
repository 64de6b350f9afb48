"""Whole lines of plain text scrolling by (``feed_lines``) and styled runs
(text mixed with SGR, CUP and EL, drawn piece by piece) take fast paths; they
must leave exactly the state that handling every character and sequence on
its own leaves.  Fed a byte at a time the model never sees a whole line or
run, so that is the reference here, compared field by field (scrollback
records included)."""

from __future__ import annotations

import random

import pytest

from zirv_dash.terminal import TerminalModel

COLS, ROWS = 20, 5

PIECES = [
    "log line",
    "x" * COLS,  # exactly a row: a pending wrap that CR cancels
    "y" * (COLS - 1),
    "z" * (COLS + 3),  # wraps: not a fast-path line
    "",
    "trailing   ",
    "   ",
    "héllo ─── café",  # single-width, not ASCII
    "wide 中文",
    "tab\there",
    "\x1b[31mred\x1b[0m after",
    "\x1b[41m",  # a background: blank rows are no longer default
    "\x1b[0m",
    "\x1b[5;1Hbottom",  # text on the bottom row, cursor then elsewhere
    "\x1b[4;1H",
    "\x1b[2;4r",  # a scroll region
    "\x1b[r",
    "\x1b[?1049h",
    "\x1b[?1049l",
    "e\u0301",
    "\x1b(0qqq\x1b(B",
    # styled runs as TUIs print them: CUP, SGR, text, EL, in one stretch
    "\x1b[2;15H\x1b[1;32mstatus\x1b[0m\x1b[K",
    "\x1b[3;1H\x1b[44mfield\x1b[0m\x1b[3;18Hend of row",
    "\x1b[1;19Hab\x1b[7mcd\x1b[0m",  # a styled run that wraps
    "\x1b[?7l",  # no autowrap: pieces pile up on the last column
    "\x1b[?7h",
    "\x1b[4h",  # insert mode
    "\x1b[4l",
    "\x1b[2;2H中文中文\x1b[2;3H\x1b[31mx\x1b[0my",  # over half a wide character
    "\u200d",  # a pending zero width joiner before a styled run
]


def _state(m: TerminalModel) -> tuple[object, ...]:
    lines = m.history_size + m.rows
    return (
        m.lines(),
        m.cursor,
        m.history_bytes,
        list(m._screen.history),  # noqa: SLF001 - the records themselves
        [m.row_runs(y) for y in range(m.rows)],
        [m.history_runs(i) for i in range(m.history_size)],
        [m.line_wrapped(k) for k in range(lines)],
    )


def _both(data: bytes, scrollback: int) -> tuple[TerminalModel, TerminalModel]:
    whole = TerminalModel(COLS, ROWS, scrollback_bytes=scrollback)
    whole.feed(data)
    bytewise = TerminalModel(COLS, ROWS, scrollback_bytes=scrollback)
    for k in range(len(data)):
        bytewise.feed(data[k : k + 1])
    return whole, bytewise


@pytest.mark.parametrize("scrollback", [1 << 20, 3000])
@pytest.mark.parametrize("seed", range(12))
def test_lines_fed_whole_equal_lines_fed_one_by_one(seed: int, scrollback: int) -> None:
    rng = random.Random(seed)
    parts = []
    for _ in range(300):
        piece = rng.choice(PIECES) if rng.random() < 0.3 else rng.choice(PIECES[:3] + PIECES[4:8])
        parts.append(piece + ("\r\n" if rng.random() < 0.9 else ""))
    data = "".join(parts).encode()
    whole, bytewise = _both(data, scrollback)
    assert _state(whole) == _state(bytewise)


def test_a_log_goes_to_the_scrollback_in_order() -> None:
    data = "".join(f"line {k}   \r\n" for k in range(40)).encode()
    whole, bytewise = _both(b"$ prompt\r\n" + data + b"$ ", 1 << 20)
    assert _state(whole) == _state(bytewise)
    assert whole.history_text(0) == "$ prompt"
    assert [whole.history_text(i) for i in range(1, 37)] == [f"line {k}" for k in range(36)]
    assert whole.lines() == ["line 36", "line 37", "line 38", "line 39", "$"]
    assert whole.cursor == (2, 4)


def test_a_few_lines_below_earlier_output() -> None:
    """Fewer lines than rows: the screen keeps most of what it showed."""
    whole, bytewise = _both(b"a\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\n", 1 << 20)
    assert _state(whole) == _state(bytewise)
    assert whole.lines() == ["d", "e", "f", "g", ""]
    assert whole.history_size == 3


def test_text_already_on_the_bottom_row_stays_under_the_next_line() -> None:
    data = b"\x1b[5;1Hkept\x1b[4;1H\r\nov\r\nnext\r\n"
    whole, bytewise = _both(data, 1 << 20)
    assert _state(whole) == _state(bytewise)
    assert whole.lines()[-3:] == ["ovpt", "next", ""]
