"""When lines of text scroll by in one go (``feed_lines``), the screen rows
they push into the scrollback are taken as text when every one of them is in
the default rendition, not wrapped and made of single-width characters
(``ScrollOps._push_text_rows``); otherwise each row goes through
``_push_history``.  The records must be the same either way: here a screen
holding each kind of row is pushed by a log, and compared with the same bytes
fed one at a time (which never takes the batched path)."""

from __future__ import annotations

import pytest

from zirv_dash.terminal import TerminalModel

COLS, ROWS = 16, 4

ROWS_BEFORE = [
    "plain row",
    "",  # blank
    "x" * COLS,  # full
    "trail   ",
    "wide 中文",  # fewer characters than cells
    "e\u0301 combining",  # more characters than cells
    "ｱｲ halfwidth",  # single-width, not in the narrow class (stored as cells)
    "中e\u0301 both",  # one of each: as many characters as cells
    "\x1b(0lqk\x1b(B",  # DEC graphics cells
    "\x1b[31mred\x1b[0m",  # another rendition
    "y" * (COLS + 3),  # wrapped
]


def _state(m: TerminalModel) -> tuple[object, ...]:
    return (
        list(m._screen.history),  # noqa: SLF001 - the records themselves
        m.history_bytes,
        m.lines(),
        [m.history_runs(i) for i in range(m.history_size)],
    )


@pytest.mark.parametrize("before", ROWS_BEFORE)
@pytest.mark.parametrize("scrollback", [1 << 20, 400])
def test_rows_pushed_by_a_log_equal_rows_pushed_one_by_one(before: str, scrollback: int) -> None:
    log = "".join(f"log line {k}\r\n" for k in range(3 * ROWS))
    data = (f"{before}\r\n" * ROWS + log).encode()
    whole = TerminalModel(COLS, ROWS, scrollback_bytes=scrollback)
    whole.feed(f"{before}\r\n".encode() * ROWS)
    whole.feed(log.encode())  # the rows above go to the scrollback in one go
    bytewise = TerminalModel(COLS, ROWS, scrollback_bytes=scrollback)
    for k in range(len(data)):
        bytewise.feed(data[k : k + 1])
    assert _state(whole) == _state(bytewise)


def test_a_halfwidth_row_keeps_its_cells() -> None:
    """A row of single-width characters outside the narrow class is stored
    as its cells, as ``_push_history`` stores it (not as a string)."""
    m = TerminalModel(COLS, ROWS)
    m.feed("ｱｲ halfwidth\r\n".encode() + b"".join(b"log %d\r\n" % k for k in range(2 * ROWS)))
    first = m._screen.history[0]  # noqa: SLF001
    assert first[0] == tuple("ｱｲ halfwidth")
