"""Mode 2027 widths follow current Unicode (the ``wcwidth`` package's tables),
not the C library's: characters whose width changed in recent Unicode take
the cells kitty, WezTerm and Ghostty give them, in the model and at the glass.
Without the mode, widths stay tmux's (glibc's), cell for cell."""

from __future__ import annotations

import pytest
from rich.console import Console
from textual.strip import Strip

from tests.test_glass_clusters import simulate
from widgets.terminal_style import run_segments
from zirv_dash.terminal import TerminalModel, cell_width
from zirv_dash.terminal.widths import char_width, unicode_width

TRIGRAM = "\u2630"  # East Asian Wide since Unicode 16 (narrow before)
NEW_EMOJI = "\U0001fae9"  # face with bags under eyes: an emoji of Unicode 16
LONE_FLAG_LETTER = "\U0001f1fa"  # a regional indicator alone: 2 cells in current Unicode
ROW = f"A{TRIGRAM}B{NEW_EMOJI}C{LONE_FLAG_LETTER}D|"


def fed(text: str, graphemes: bool, cols: int = 30) -> TerminalModel:
    m = TerminalModel(cols, 1)
    m.feed((b"\x1b[?2027h" if graphemes else b"") + text.encode())
    return m


def ascii_columns(m: TerminalModel) -> dict[int, str]:
    cells = m._screen.chars[0]  # noqa: SLF001
    return {x: c for x, c in enumerate(cells) if len(c) == 1 and c.isascii() and c != " "}


@pytest.mark.parametrize("ch", [TRIGRAM, NEW_EMOJI, LONE_FLAG_LETTER])
def test_the_characters_changed_width(ch: str) -> None:
    # The premise of the tests below: current Unicode and the C library disagree.
    assert unicode_width(ch) == 2
    assert char_width(ch) != 2


def test_in_mode_2027_they_take_two_cells() -> None:
    m = fed(ROW, graphemes=True)
    assert ascii_columns(m) == {0: "A", 3: "B", 6: "C", 9: "D", 10: "|"}
    assert m.cursor == (11, 0)
    assert cell_width("".join(t for t, _ in m.row_runs(0))) == 30


def test_without_the_mode_widths_are_tmuxs() -> None:
    m = fed(ROW, graphemes=False)
    x, want = 0, {}
    for c in ROW:
        w = char_width(c)
        if c.isascii():
            want[x] = c
        x += max(w, 0)
    assert ascii_columns(m) == want
    assert want[2] == "B"  # the trigram one cell, as tmux 3.3a has it


@pytest.mark.parametrize("joins", [False, True], ids=["per code point", "grapheme"])
def test_at_the_glass_the_row_never_moves(joins: bool) -> None:
    m = fed(ROW, graphemes=True)
    strip = Strip(run_segments(m.row_runs(0)))
    assert strip.cell_length == 30
    out = strip.render(Console(color_system="truecolor"))
    got = {x: c for x, c in simulate(out, 30, joins).items() if c != " "}
    assert got == ascii_columns(m)
