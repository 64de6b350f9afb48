"""Whole highlighted lines scrolling by (text and SGR sequences, each ended by
CR LF) are written in one go (``StyledRuns._sgr_lines`` ->
``feed_styled_lines`` -> ``_push_narrow``).  They must leave exactly the state
that drawing and scrolling every line on its own leaves: fed a byte at a time
the model never sees a whole line, so that is the reference, compared field by
field (scrollback records and their costs included)."""

from __future__ import annotations

import random

import pytest

from tests.terminal.model_state import model_state
from zirv_dash.terminal import TerminalModel, styled
from zirv_dash.terminal.attr import DEFAULT_ATTR, Attr, apply_sgr
from zirv_dash.terminal.screen import Screen

COLS, ROWS = 24, 6

SGRS = [
    "0",
    "",
    "1;31",
    "38;5;200",
    "38;2;10;20;30",
    "22",
    "7",
    "4:3",
    "44",  # a background: a CR LF in it ends the stretch
    "49",
    "0;1;33",
    "38;2;300;1;2",
]
WORDS = ["word", "x", " ", "  ", "héllo", "─│┼", "a b", "é" * 5, "mm", "HK"]
ODD = ["中文", "\t", "\x1b[2;3H", "\x1b[K", "\x1b[?1049h", "\x1b[?1049l", "\x1b[?7l", "\x1b[?7h"]


def _line(rng: random.Random) -> str:
    k = rng.random()
    if k < 0.05:
        return ""
    if k < 0.1:
        return "\x1b[1;32m" + "w" * COLS + "\x1b[0m"  # exactly a row
    if k < 0.15:
        return "\x1b[33m" + "v" * (COLS + 3) + "\x1b[0m"  # wraps: ends a stretch
    if k < 0.2:
        return f"\x1b[45mcoloured tail   \x1b[0m{rng.choice(['', ' '])}"
    parts = []
    for _ in range(rng.randint(1, 6)):
        r = rng.random()
        if r < 0.55:
            parts.append(f"\x1b[{rng.choice(SGRS)}m")
        elif r < 0.97:
            parts.append(rng.choice(WORDS))
        else:
            parts.append(rng.choice(ODD))
    text = "".join(parts)
    if rng.random() < 0.7:
        text += "\x1b[0m"
    return text


def _stream(seed: int, n: int = 400) -> bytes:
    rng = random.Random(seed)
    return "".join(_line(rng) + "\r\n" for _ in range(n)).encode()


def _state(m: TerminalModel) -> tuple[object, ...]:
    return model_state(m, records=True)


def _bytewise(data: bytes, scrollback: int) -> TerminalModel:
    m = TerminalModel(COLS, ROWS, scrollback_bytes=scrollback)
    for k in range(len(data)):
        m.feed(data[k : k + 1])
    return m


@pytest.fixture(params=["backoff", "always"])
def backoff(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """With the back-off after short stretches as it is, and without it (so
    the random streams below take the path at every chance they give)."""
    if request.param == "always":
        monkeypatch.setattr(styled, "_SGR_SKIP_MIN", 0)
        monkeypatch.setattr(styled, "_SGR_SKIP_MAX", 0)
    return str(request.param)


@pytest.mark.parametrize("scrollback", [1 << 20, 2500])
@pytest.mark.parametrize("seed", range(10))
def test_highlighted_lines_fed_whole_equal_lines_fed_byte_by_byte(
    seed: int, scrollback: int, backoff: str
) -> None:
    data = _stream(seed)
    whole = TerminalModel(COLS, ROWS, scrollback_bytes=scrollback)
    whole.feed(data)
    assert _state(whole) == _state(_bytewise(data, scrollback))


@pytest.mark.parametrize("seed", range(4))
def test_highlighted_lines_fed_in_random_pieces(seed: int, backoff: str) -> None:
    data = _stream(50 + seed)
    rng = random.Random(seed)
    pieces = TerminalModel(COLS, ROWS)
    i = 0
    while i < len(data):
        k = rng.randint(1, 400)
        pieces.feed(data[i : i + k])
        i += k
    assert _state(pieces) == _state(_bytewise(data, 8 * 1024 * 1024))


def test_the_stretch_is_written_in_one_go(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lines of a highlighter's output do take the path (or the tests
    above compare the general path with itself)."""
    calls: list[int] = []
    real = Screen.feed_styled_lines

    def counting(self: Screen, lines: list[str], cells: list[Attr], starts: list[int]) -> None:
        calls.append(len(lines))
        real(self, lines, cells, starts)

    monkeypatch.setattr(Screen, "feed_styled_lines", counting)
    m = TerminalModel(COLS, ROWS)
    m.feed(b"$ ls\r\n" + b"".join(b"\x1b[1;34mdir%d\x1b[0m  file\r\n" % k for k in range(30)))
    # "$ ls" and the first lines fill the screen; from the bottom row on, the
    # rest is one stretch
    assert calls == [30 - (ROWS - 2)]
    assert m.history_text(0) == "$ ls"
    assert m.history_text(1) == "dir0  file"
    runs = m.history_runs(1)
    assert runs[0] == ("dir0", apply_sgr(DEFAULT_ATTR, "1;34"))
    assert m.lines()[-2] == "dir29  file"


def test_a_line_wider_than_the_screen_ends_the_stretch() -> None:
    wide = b"\x1b[31m" + b"z" * (COLS + 5) + b"\x1b[0m\r\n"
    data = b"\x1b[32mok\x1b[0m\r\n" * 8 + wide + b"\x1b[32mok\x1b[0m\r\n" * 8
    whole = TerminalModel(COLS, ROWS)
    whole.feed(data)
    assert _state(whole) == _state(_bytewise(data, 8 * 1024 * 1024))
    assert whole.line_wrapped(8)


def test_a_line_ended_in_a_background_colours_the_next_row() -> None:
    data = b"\x1b[32mok\x1b[0m\r\n" * 8 + b"\x1b[44mblue\r\nnext\x1b[0m\r\n" + b"ok\r\n" * 3
    whole = TerminalModel(COLS, ROWS)
    whole.feed(data)
    assert _state(whole) == _state(_bytewise(data, 8 * 1024 * 1024))
    rows = [whole.history_text(i) for i in range(whole.history_size)] + whole.lines()
    k = rows.index("next")
    runs = (
        whole.history_runs(k) if k < whole.history_size else whole.row_runs(k - whole.history_size)
    )
    assert runs[-1][1].bg == 4  # the blanks the scroll brought in, blue


@pytest.mark.parametrize("seed", range(6))
def test_a_record_pushed_without_its_row_equals_the_rows(seed: int) -> None:
    """``_push_narrow`` (and ``_push_narrow_lines``, the C build of it where
    there is one) against ``_push_history`` of the row it stands for."""
    rng = random.Random(seed)
    pens = [DEFAULT_ATTR, *(apply_sgr(DEFAULT_ATTR, p) for p in ("1", "31", "44", "7;33"))]
    chars_pool = [" ", "a", "é", "─", "\xa0", "m"]
    for _ in range(400):
        cols = rng.randint(1, 12)
        w = rng.randint(0, cols)
        text = "".join(rng.choice(chars_pool) for _ in range(w))
        if rng.random() < 0.5:
            cells = [rng.choice(pens)] * w
        else:
            cells = [rng.choice(pens) for _ in range(w)]
        pad = rng.randint(0, 3)
        flat = [rng.choice(pens) for _ in range(pad)] + cells + [DEFAULT_ATTR]
        a = Screen(cols, 2, 1 << 20)
        b = Screen(cols, 2, 1 << 20)
        c = Screen(cols, 2, 1 << 20)
        a._push_narrow(text, flat, pad)  # noqa: SLF001
        b._push_history(list(text.ljust(cols)), cells + [DEFAULT_ATTR] * (cols - w))  # noqa: SLF001
        # the batch of them, in C where the accelerator is built
        c._push_narrow_lines([text, text], flat, [pad, pad])  # noqa: SLF001
        assert list(a.history) == list(b.history), (text, cells, cols)
        assert a.history_bytes == b.history_bytes
        assert list(c.history) == list(a.history) * 2, (text, cells, cols)
        assert c.history_bytes == 2 * a.history_bytes


@pytest.mark.parametrize("first_wide", [True, False])
def test_lines_that_wrap_among_lines_that_fit(first_wide: bool, backoff: str) -> None:
    """A stretch starting with a line that wraps is left to the general
    path; one that wraps later cuts the stretch before it."""
    wide = b"\x1b[31m" + b"z" * (COLS - 2) + b"\x1b[1m" + b"Z" * 5 + b"\x1b[0m\r\n"
    fits = b"\x1b[32mok\x1b[0m \x1b[7m" + b"f" * (COLS - 5) + b"\x1b[0m\r\n"
    body = b"".join((wide if (k % 3 == 0) == first_wide else fits) for k in range(40))
    data = b"\r\n" * ROWS + body
    whole = TerminalModel(COLS, ROWS)
    whole.feed(data)
    assert _state(whole) == _state(_bytewise(data, 8 * 1024 * 1024))
