"""Emoji sequences at the glass never move the rest of their row: whatever
width the outer terminal gives a cluster, the next cell starts where the
model says. Checked against two simulated terminals that disagree with the
model and with each other -- one that counts every code point (xterm), one
that joins grapheme clusters (kitty, WezTerm) -- and against our own model
reading the bytes back."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.style import Style
from textual.strip import Strip

from widgets.glass_clusters import detokenize, model_cells, tokenize
from widgets.terminal_style import run_segments
from zirv_dash.terminal import TerminalModel
from zirv_dash.terminal.widths import char_width

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
ROWS = {
    "family": f"A{FAMILY}B|",
    "skin tone": "G\U0001f44d\U0001f3fdH|",
    "vs16": "E\u2764\ufe0fF|",
    "flag": "C\U0001f1fa\U0001f1f8D|",
    "mixed": f"x{FAMILY}\U0001f44d\U0001f3fd\u2764\ufe0f中e\u0301z|",
}
_SEQ = re.compile(r"\x1b(?:\[[0-9;:]*[A-Za-z]|[78]|\][^\x1b\x07]*(?:\x07|\x1b\\))")


def simulate(data: str, cols: int, joins: bool) -> dict[int, str]:
    """Column -> ASCII character a terminal puts there. `joins`: a terminal that
    joins modifiers, joiners, VS16 and the second regional indicator onto the
    cell before (and counts the result as Rich does); else one that gives
    every code point its own wcwidth."""
    x, saved = 0, 0
    placed: dict[int, str] = {}
    last: tuple[int, str] | None = None  # (column, cluster) of the last glyph drawn
    i = 0
    while i < len(data):
        m = _SEQ.match(data, i)
        if m:
            seq = m.group()
            if seq == "\x1b7":
                saved = x
            elif seq == "\x1b8":
                x = saved
            elif seq.endswith("C"):
                x = min(cols - 1, x + int(seq[2:-1] or 1))
            i = m.end()
            last = None
            continue
        c = data[i]
        i += 1
        joining = c in "\u200d\ufe0f" or "\U0001f3fb" <= c <= "\U0001f3ff" or char_width(c) == 0
        if joining or (last is not None and last[1].endswith("\u200d")):
            if last is not None and joins:
                col, cluster = last
                width_before = cell_len(cluster)
                last = (col, cluster + c)
                x += cell_len(cluster + c) - width_before
                continue
        if (
            joins
            and last is not None
            and "\U0001f1e6" <= c <= "\U0001f1ff"
            and len(last[1]) == 1
            and "\U0001f1e6" <= last[1] <= "\U0001f1ff"
        ):
            col, cluster = last
            last = (col, cluster + c)
            x = col + cell_len(cluster + c)
            continue
        w = char_width(c)
        if w <= 0:
            continue
        if c.isascii():
            placed[x] = c
        last = (x, c)
        x += w
    return placed


def glass_row(text: str, cols: int = 30) -> tuple[TerminalModel, str]:
    m = TerminalModel(cols, 1)
    m.feed(text.encode())
    strip = Strip(run_segments(m.row_runs(0)))
    assert strip.cell_length == cols  # Textual lays the row out in exactly its cells
    return m, strip.render(Console(color_system="truecolor"))


def model_columns(m: TerminalModel) -> dict[int, str]:
    cells = m._screen.chars[0]  # noqa: SLF001
    return {x: c[0] for x, c in enumerate(cells) if c and c[0].isascii() and c[0] != " "}


@pytest.mark.parametrize("name", ROWS)
@pytest.mark.parametrize("joins", [False, True], ids=["per code point", "grapheme"])
def test_every_ascii_cell_lands_where_the_model_puts_it(name: str, joins: bool) -> None:
    m, out = glass_row(ROWS[name])
    want = model_columns(m)
    got = {x: c for x, c in simulate(out, 30, joins).items() if c != " "}
    assert got == want


def test_without_it_the_family_moves_the_row() -> None:
    """The check above fails for the bytes zirv wrote before: the same run, as text."""
    m = TerminalModel(30, 1)
    m.feed(ROWS["family"].encode())
    text = "".join(t for t, _ in m.row_runs(0))
    assert simulate(text, 30, joins=False) != {
        x: c for x, c in model_columns(m).items() if c != " "
    }


def test_our_own_model_reads_the_bytes_back_cell_for_cell() -> None:
    m, out = glass_row(ROWS["mixed"])
    back = TerminalModel(30, 1)
    back.feed(out.encode())
    assert back._screen.chars[0] == m._screen.chars[0]  # noqa: SLF001


def test_tokens_round_trip_and_keep_the_model_width() -> None:
    text = ROWS["mixed"]
    tokens = tokenize(text)
    assert cell_len(tokens) == sum(max(char_width(c[0]), 0) for c in model_cells(text))
    plain = re.sub(r"\x1b7 *\x1b8|\x1b8\x1b\[\d+C", "", detokenize(tokens))
    assert plain == text


def test_a_token_cut_by_an_overlay_stays_in_its_cells() -> None:
    from widgets.terminal_style import overlay

    m = TerminalModel(30, 1)
    m.feed(ROWS["family"].encode())
    strip = overlay(Strip(run_segments(m.row_runs(0))), 2, 3, Style(reverse=True))
    out = strip.render(Console(color_system="truecolor"))
    assert "\U0010fffd" not in out
    for joins in (False, True):
        got = {x: c for x, c in simulate(out, 30, joins).items() if c != " "}
        assert got == model_columns(m)
