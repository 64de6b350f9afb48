"""Mode 2027 (grapheme clustering): answered by DECRQM as kitty, WezTerm and
Ghostty answer it; while set, a VS16 emoji, a flag and a skin-toned emoji are
each one cluster of 2 cells in the model and at the glass (left reset, tmux's
per-code-point widths as before)."""

from __future__ import annotations

from rich.console import Console
from textual.strip import Strip

from tests.test_glass_clusters import simulate
from widgets.terminal_style import run_segments
from zirv_dash.dash.selection import ModelLines, span_text
from zirv_dash.terminal import TerminalModel, cell_width

ROW = "E\u2764\ufe0fF|C\U0001f1fa\U0001f1f8D|G\U0001f44d\U0001f3fdH|"


def fed(data: bytes, cols: int = 30) -> TerminalModel:
    m = TerminalModel(cols, 3)
    m.feed(data)
    return m


def column_of(m: TerminalModel, ch: str) -> int:
    return next(x for x, c in enumerate(m._screen.chars[0]) if c == ch)  # noqa: SLF001


def test_decrqm_reports_the_mode() -> None:
    m = fed(b"\x1b[?2027$p")
    assert m.take_replies() == b"\x1b[?2027;2$y"  # known, reset
    m.feed(b"\x1b[?2027h\x1b[?2027$p")
    assert m.take_replies() == b"\x1b[?2027;1$y" and m.grapheme_clusters
    m.feed(b"\x1bc\x1b[?2027$p")
    assert m.take_replies() == b"\x1b[?2027;2$y"  # RIS resets it


def test_clusters_are_one_unit_of_two_cells() -> None:
    on = fed(b"\x1b[?2027h" + ROW.encode())
    off = fed(ROW.encode())
    # E(1) heart(2) F | C flag(2) D | G thumbs(2) H |
    assert [column_of(on, c) for c in "FDH"] == [3, 8, 13]
    # tmux's widths when the mode is not set: heart 1, flag 1+1, thumbs 2+2.
    assert [column_of(off, c) for c in "FDH"] == [2, 7, 14]
    assert on.lines()[0] == ROW == off.lines()[0]
    assert on.cursor == (15, 0)
    assert sum(cell_width(t) for t, _ in on.row_runs(0)) == 30


def test_a_cluster_at_the_right_margin_and_overwritten() -> None:
    m = fed(b"\x1b[?2027h" + b"x" * 9 + "\u2764\ufe0f".encode(), cols=10)
    assert m.lines()[0] == "x" * 9 + "\u2764\ufe0f"  # no room to widen: it stays 1 cell
    m.feed(b"\r\n" + "\u2764\ufe0f".encode() + b"\r" + b"ab")
    assert m.lines()[1] == "ab"  # overwriting its left half blanks the right
    assert sum(cell_width(t) for t, _ in m.row_runs(1)) == 10


def test_the_glass_draws_them_in_their_cells() -> None:
    m = fed(b"\x1b[?2027h" + ROW.encode())
    strip = Strip(run_segments(m.row_runs(0)))
    assert strip.cell_length == 30
    out = strip.render(Console(color_system="truecolor"))
    for joins in (False, True):
        placed = simulate(out, 30, joins)
        assert [x for x, c in sorted(placed.items()) if c in "FDH"] == [3, 8, 13]


def test_copy_and_repaint_keep_the_clusters() -> None:
    from zirv_dash.session.repaint import repaint

    m = fed(b"\x1b[?2027h" + ROW.encode())
    assert span_text(ModelLines(m), ((0, 0), (0, 30))) == ROW
    copy = fed(repaint(m))
    assert copy._screen.chars[0] == m._screen.chars[0]  # noqa: SLF001
