"""A width change costs a bounded amount, and narrowing then widening gives
the scrollback back as it was.

Like tmux, a resize re-wraps wrapped lines and keeps their wrap flags, so a
later widening joins them again.  Unlike re-wrapping all the scrollback, only
the newest lines are re-wrapped, within fixed budgets: narrowing 2000 lines
of 200 cells to one column used to write ~400,000 one-cell rows (1.2-1.5 s)
and leave them split.
"""

from __future__ import annotations

import time

from zirv_dash.terminal import TerminalModel


def _filled(lines: int, cols: int = 200, rows: int = 50) -> TerminalModel:
    m = TerminalModel(cols, rows, scrollback_bytes=64 * 1024 * 1024)
    body = "\r\n".join(f"{i:05d} " + "abcdefghij" * 19 + "xyz" for i in range(lines))
    m.feed(body.encode() + b"\r\n$ ")
    return m


def _all_text(m: TerminalModel) -> list[str]:
    return [m.history_text(i) for i in range(m.history_size)] + m.lines()


def test_one_column_is_bounded_and_widening_restores() -> None:
    m = _filled(2000)
    before = _all_text(m)
    hist = m.history_size
    m.resize(1, 50)
    # Re-wrapped: the newest ~4000 rows of scrollback plus the screen's cells.
    assert m.history_size < hist + 4000 + 200 * 50
    m.resize(200, 50)
    assert _all_text(m) == before
    for width in (1, 7, 80, 13, 333, 200):
        m.resize(width, 50)
    assert _all_text(m) == before


def test_cost_does_not_grow_with_the_scrollback() -> None:
    """The rows a width change writes are the same for 2000 or 16000 lines
    of scrollback, and so (within noise) is its time."""
    grown = []
    costs = []
    for lines in (2000, 16000):
        best = 1e9
        for _ in range(3):
            m = _filled(lines)
            hist = m.history_size
            start = time.perf_counter()
            m.resize(1, 50)
            best = min(best, time.perf_counter() - start)
        grown.append(m.history_size - hist)
        costs.append(best)
    assert grown[0] == grown[1]
    assert costs[1] < 3 * max(costs[0], 0.005)
    assert costs[1] < 2.0


def test_one_huge_line_narrowed_and_widened() -> None:
    """A single 400 KB logical line (no newline, like minified JSON)."""
    m = TerminalModel(200, 50, scrollback_bytes=64 * 1024 * 1024)
    m.feed(b"".join(b"%07d|" % i for i in range(50_000)) + b"\r\n$ ")
    before = _all_text(m)
    hist = m.history_size
    start = time.perf_counter()
    m.resize(1, 50)
    m.resize(3, 50)
    assert time.perf_counter() - start < 2.0
    assert m.history_size < hist + 5000 + 200 * 50 * 2
    m.resize(200, 50)
    assert _all_text(m) == before


def test_wrapped_rows_keep_their_trailing_blanks() -> None:
    """A line wrapped right after a space joins back with the space."""
    m = TerminalModel(10, 3)
    m.feed(b"abcd efgh " + b"ijkl\r\n" + b"x\r\ny\r\nz")
    assert m.history_size == 2
    m.resize(20, 3)
    m.resize(20, 5)
    assert "abcd efgh ijkl" in _all_text(m)
