"""The C accelerator of the styled-run path (``_accel.c``) against the same
steps in Python: on random streams both leave exactly the same model, and the
loader uses a build only while it matches its source."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.terminal.model_state import model_state
from tests.terminal.test_styled_runs import COLS, ROWS, _stream
from zirv_dash.terminal import TerminalModel, accel, accel_build, parser, sgr_graph, styled
from zirv_dash.terminal.attr import DEFAULT_ATTR, apply_sgr
from zirv_dash.terminal.widths import narrow_class, narrow_table

needs_build = pytest.mark.skipif(not accel.ENABLED, reason="no build of the C accelerator here")
SGR_SPLIT = re.compile(r"\x1b\[([0-9;:]*)m").split


def _python_only(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "draw_pieces",
        "cells_of",
        "split_sgr",
        "sgr_lines_end",
        "walk_nodes",
        "sgr_cells",
    ):
        monkeypatch.setattr(styled, name, None)
    monkeypatch.setattr(parser, "lines_end", None)
    monkeypatch.setattr(parser, "styled_end", None)
    monkeypatch.setattr(accel, "make_runs", None)
    monkeypatch.setattr(accel, "narrow_lines", None)
    monkeypatch.setattr(accel, "row_lines", None)
    monkeypatch.setattr(accel, "text_lines", None)


def _feed(data: bytes, chunks: list[int], cols: int = COLS, rows: int = ROWS) -> TerminalModel:
    m = TerminalModel(cols, rows, scrollback_bytes=1 << 20)
    i = 0
    for k in chunks:
        m.feed(data[i : i + k])
        i += k
    m.feed(data[i:])
    return m


def _both(
    data: bytes,
    monkeypatch: pytest.MonkeyPatch,
    chunks: list[int],
    cols: int = COLS,
    rows: int = ROWS,
) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """(state, dirty rows) after the accelerated model, then the Python one."""
    fast = _feed(data, chunks, cols, rows)
    fast_state = (*model_state(fast, records=True), sorted(fast.take_dirty()))
    with monkeypatch.context() as mp:
        _python_only(mp)
        slow = _feed(data, chunks, cols, rows)
        slow_state = (*model_state(slow, records=True), sorted(slow.take_dirty()))
    return fast_state, slow_state


@needs_build
@pytest.mark.parametrize("seed", range(12))
def test_random_styled_streams_leave_the_same_model(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _stream(300 + seed)
    rng = random.Random(seed)
    chunks = [rng.randint(1, 400) for _ in range(len(data) // 200)] if seed % 2 else []
    fast, slow = _both(data, monkeypatch, chunks)
    assert fast == slow


def _tui_stream(rng: random.Random, cols: int, rows: int) -> bytes:
    """Fields redrawn in place, EL forms, wide characters under the fields and
    a status line: what a TUI sends, the accelerator's main case."""
    palette = [f"\x1b[{p}m" for p in ("1;31", "0", "38;5;33", "48;2;1;2;3", "7", "", "4:3")]
    out = ["\x1b[?1049h\x1b[H\x1b[2J"]
    for _ in range(600):
        y, x = rng.randint(0, rows + 2), rng.randint(0, cols + 3)
        text = rng.choice(["ok", "field value", "中文", "é─│", "m", "x" * (cols + 2), ""])
        out.append(f"\x1b[{y};{x}H{rng.choice(palette)}{text}")
        if rng.random() < 0.3:
            out.append(f"\x1b[{rng.choice(['', '0', '1', '2', '3'])}K")
        if rng.random() < 0.05:
            out.append(
                rng.choice(["\x1b[4h", "\x1b[4l", "\x1b[?7l", "\x1b[?7h", "\x1b(0", "\x1b(B"])
            )
    return "".join(out).encode()


@needs_build
@pytest.mark.parametrize("seed", range(8))
def test_tui_redraws_leave_the_same_model(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    cols, rows = rng.choice([(20, 6), (80, 24), (200, 50)])
    data = _tui_stream(rng, cols, rows)
    fast, slow = _both(data, monkeypatch, [rng.randint(1, 900) for _ in range(20)], cols, rows)
    assert fast == slow


@needs_build
def test_highlighted_lines_scrolling_by_leave_the_same_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(3)
    sgrs = ["\x1b[1;32m", "\x1b[0m", "\x1b[38;2;9;8;7m", "\x1b[44m", "\x1b[m"]
    lines = []
    for _ in range(3000):
        words = [f"{rng.choice(sgrs)}{rng.choice(['ls', 'a.py', 'é', 'x' * 40])}" for _ in range(4)]
        lines.append(" ".join(words) + rng.choice(["\x1b[0m", ""]) + "\r\n")
    fast, slow = _both("".join(lines).encode(), monkeypatch, [], 40, 10)
    assert fast == slow


@needs_build
def test_cells_of_is_one_attr_per_character() -> None:
    assert accel.cells_of is not None
    a = sgr_graph.node_for(DEFAULT_ATTR)
    b = sgr_graph.node_for(apply_sgr(DEFAULT_ATTR, "1;31"))
    cells = accel.cells_of([a, b, a], ["ab", "", "c"])
    assert cells == [DEFAULT_ATTR, DEFAULT_ATTR, DEFAULT_ATTR]
    cells = accel.cells_of([b, a], ["x", "yz"])
    assert cells[0] is b[sgr_graph.ATTR] and cells[1:] == [DEFAULT_ATTR] * 2
    with pytest.raises(TypeError):
        accel.cells_of([{}], ["abc"])  # a node without its cell: an error, never a bad list
    with pytest.raises(TypeError):
        accel.cells_of([a], [b"x"])  # type: ignore[list-item]


@needs_build
@pytest.mark.parametrize(
    "block",
    ["", "plain", "\x1b[m", "a\x1b[1;31mb\x1b[0m", "\x1b[38:2::1:2:3mx\x1b[;mé\r\n", "é─\x1b[4m"],
)
def test_split_sgr_is_the_expression_split(block: str) -> None:
    assert accel.split_sgr is not None
    assert accel.split_sgr(block) == SGR_SPLIT(block)


@needs_build
@pytest.mark.parametrize("block", ["a\x1b[1H", "\x1b", "x\x1b[12", "\x1b]0;t\x07", "\x1b[?1m"])
def test_split_sgr_leaves_anything_else_to_the_expression(block: str) -> None:
    assert accel.split_sgr is not None
    assert accel.split_sgr(block) is None


def test_a_build_is_used_only_while_it_matches_its_source(tmp_path: Path) -> None:
    (tmp_path / accel_build.SOURCE).write_text("/* v1 */\n")
    assert not accel_build.build_is_current(str(tmp_path))  # no build at all
    (tmp_path / accel_build.DIGEST_FILE).write_text(accel_build.source_digest(str(tmp_path)) + "\n")
    assert accel_build.build_is_current(str(tmp_path))
    (tmp_path / accel_build.SOURCE).write_text("/* v2: edited since the build */\n")
    assert not accel_build.build_is_current(str(tmp_path))


def _enabled_in_child(env: dict[str, str]) -> str:
    out = subprocess.run(
        [sys.executable, "-c", "import zirv_dash.terminal as t; print(t.COMPILED)"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def test_the_switch_runs_the_model_as_python() -> None:
    assert _enabled_in_child({**os.environ, "ZIRV_PURE_PYTHON": "1"}) == "False"


@needs_build
def test_a_current_build_is_used() -> None:
    env = {k: v for k, v in os.environ.items() if k != "ZIRV_PURE_PYTHON"}
    assert _enabled_in_child(env) == "True"


@pytest.mark.parametrize("python_only", [False, True])
def test_only_the_rows_drawn_are_dirty(python_only: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if python_only:
        _python_only(monkeypatch)
    m = TerminalModel(80, 24)
    redraw = b"\x1b[5;3H\x1b[1mab\x1b[0m\x1b[9;1H\x1b[31mcd\x1b[0m\x1b[12;1H\x1b[K\x1b[0m"
    for _ in range(3):  # the first pass puts the transitions in the graph
        m.feed(redraw)
        m.take_dirty()
    m.feed(redraw.replace(b"ab", b"xy"))
    assert sorted(m.take_dirty()) == [4, 8, 11]
    assert m.lines()[4][2:4] == "xy"


@needs_build
def test_make_runs_groups_as_groupby(monkeypatch: pytest.MonkeyPatch) -> None:
    from zirv_dash.terminal.cells import make_runs

    bold = apply_sgr(DEFAULT_ATTR, "1")
    equal_copy = apply_sgr(DEFAULT_ATTR, "1")  # equal, maybe not the same object
    rows = [
        (["a", "b", "中", "", "c"], [DEFAULT_ATTR, bold, bold, equal_copy, DEFAULT_ATTR]),
        ([" "] * 6, [DEFAULT_ATTR] * 6),
        (["x"], [bold]),
    ]
    for chars, attrs in rows:
        for end in (-1, 0, 1, 3, len(chars), len(chars) + 2):
            fast = make_runs(chars, attrs, end)
            with monkeypatch.context() as mp:
                mp.setattr(accel, "make_runs", None)
                assert fast == make_runs(chars, attrs, end), (chars, end)


@needs_build
def test_hostile_arguments_raise_or_stop_never_crash() -> None:
    """The C code trusts nothing it is given: bad numbers raise, and Python
    code run by a lookup (a key's __eq__) cannot pull a list from under it."""
    assert accel.draw_pieces is not None and accel.make_runs is not None
    assert accel.cells_of is not None
    node = sgr_graph.node_for(DEFAULT_ATTR)
    rows: list[list[str]] = [[" "] * 4]
    cells: list[list[object]] = [[DEFAULT_ATTR] * 4]
    args = (node, {}, rows, cells, [False], set())
    with pytest.raises(ValueError):
        accel.draw_pieces(["x"], -1, *args, 0, 0, 4, 4, 5)
    with pytest.raises(ValueError):
        accel.draw_pieces(["mabcdef"], 0, *args, 0, 0, 4, 1000, 1001)  # lim past the row
    k, _, x, _ = accel.draw_pieces(["mabc"], 0, *args, 0, 2**62, 4, 4, 5)
    assert (k, x) == (0, 2**62)  # a cursor far off the row: left to the Python code
    assert rows == [[" "] * 4]

    pieces = ["1mab", "1mcd"]
    armed = [False]

    class Clears:
        def __hash__(self) -> int:
            return hash("1")

        def __eq__(self, other: object) -> bool:
            if armed[0]:
                pieces.clear()
            return False

    hostile = {Clears(): 0, **node, "1": node}
    armed[0] = True  # from the first lookup of "1" on
    k, _, _, _ = accel.draw_pieces(
        pieces, 0, hostile, {}, rows, cells, [False], set(), 0, 0, 4, 4, 5
    )
    assert k <= 1

    attrs: list[object] = []

    class Shrinks:
        def __eq__(self, other: object) -> bool:
            attrs.clear()
            return True

    attrs.extend(Shrinks() for _ in range(50))
    assert len(accel.make_runs(["a"] * 50, attrs, 50)) <= 1  # type: ignore[arg-type]


@needs_build
@pytest.mark.parametrize("seed", range(4))
def test_row_lines_are_the_records_push_history_makes(seed: int) -> None:
    """``_accel.row_lines`` against ``Scrollback._row_line``: the same record
    for every row of ASCII cells, None (left to Python) for any other."""
    assert accel.row_lines is not None
    from zirv_dash.terminal.screen import Screen
    from zirv_dash.terminal.scrollback import _EMPTY_LINE, _LINE_OVERHEAD

    rng = random.Random(seed)
    pens = [DEFAULT_ATTR, *(apply_sgr(DEFAULT_ATTR, p) for p in ("1", "31", "44", "7;33"))]
    pool = [" ", " ", "a", "m", "é", "", "e\u0301", "~"]
    for _ in range(300):
        cols = rng.randint(1, 10)
        chars = [rng.choice(pool if rng.random() < 0.3 else pool[:4]) for _ in range(cols)]
        if rng.random() < 0.5:
            attrs = [rng.choice(pens)] * cols
        else:
            attrs = [rng.choice(pens) for _ in range(cols)]
        if rng.random() < 0.3:
            attrs[-rng.randint(1, cols) :] = [DEFAULT_ATTR] * 1
            attrs = (attrs + [DEFAULT_ATTR] * cols)[:cols]
        wrapped = rng.random() < 0.3
        screen = Screen(cols, 2, 1 << 20)
        (got,) = accel.row_lines(
            [chars], [attrs], [wrapped], DEFAULT_ATTR, _LINE_OVERHEAD, _EMPTY_LINE
        )
        ascii_cells = all(len(c) == 1 and c < "\x80" for c in chars)
        assert (got is None) == (not ascii_cells), chars
        if got is not None:
            assert got == screen._row_line(chars, attrs, wrapped), (chars, attrs, wrapped)  # noqa: SLF001
    with pytest.raises(ValueError):
        accel.row_lines([["a"]], [], [False], DEFAULT_ATTR, _LINE_OVERHEAD, _EMPTY_LINE)


@needs_build
@pytest.mark.parametrize("seed", range(4))
def test_sgr_lines_end_is_where_the_expression_ends(seed: int) -> None:
    """``_accel.sgr_lines_end`` against ``styled._sgr_lines_re``: the same end
    (-1 for no match), "é" and "─" single-width, "中" and U+200D not."""
    assert accel.sgr_lines_end is not None
    rng = random.Random(seed)
    pieces = ["ab", " ", "\r\n", "\x1b[1;31m", "\x1b[m", "\x1b[38:5:1m", "\x1b[1", "\x1b[2K"]
    pieces += ["\x1b", "\r", "\n", "\t", "\x7f", "é", "m", "[", "\x1b[12", "─", "中", "\u200d"]
    pattern = styled._sgr_lines_re()
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        i = rng.randint(0, len(text))
        stop = rng.randint(i, len(text))
        got = accel.sgr_lines_end(text, i, stop, narrow_table())
        m = pattern.match(text, i, stop)
        assert got == (-1 if m is None else m.end()), (text, i, stop)


@needs_build
def test_walk_nodes_follows_known_transitions_only() -> None:
    """``_accel.walk_nodes`` is ``sgr_graph.walk`` while every transition is
    known, and None (the Python walk fills them) at the first one missing."""
    assert accel.walk_nodes is not None
    sgr_graph.reset()
    start = sgr_graph.node_for(DEFAULT_ATTR)
    params = ["1;31", "0", "38;5;9", "", "4:3"]
    assert accel.walk_nodes(start, params) is None  # nothing is known yet
    want = sgr_graph.walk(start, params)  # fills the graph
    got = accel.walk_nodes(start, params)
    assert got is not None and all(a is b for a, b in zip(got, want, strict=True))
    assert accel.walk_nodes(start, [*params, "7"]) is None
    assert accel.walk_nodes(start, []) == [start]


@needs_build
@pytest.mark.parametrize("seed", range(4))
def test_lines_end_is_where_the_expression_ends(seed: int) -> None:
    """``_accel.lines_end`` against the parser's expression for whole lines
    of plain text, and
    ``_accel.text_lines`` against the Python records of such lines."""
    assert accel.lines_end is not None and accel.text_lines is not None
    from zirv_dash.terminal.screen import Screen

    rng = random.Random(seed)
    pieces = ["ab", " ", "  ", "\r\n", "\r", "\n", "\t", "\x1b[m", "é", "x" * 7, "\x7f", "─", "中"]
    for _ in range(2000):
        cols = rng.randint(0, 9)
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        i = rng.randint(0, len(text))
        pattern = re.compile(f"(?:[{narrow_class()}]{{0,{cols}}}\r\n)+")
        m = pattern.match(text, i)
        got = accel.lines_end(text, i, cols, narrow_table())
        assert got == (-1 if m is None else m.end()), (text, i, cols)
    lines = ["", " ", "ab  ", "a b", "é  ", "  x", "x" * 9]
    fast, slow = Screen(9, 2, 1 << 20), Screen(9, 2, 1 << 20)
    fast._push_text_lines(lines)  # noqa: SLF001
    accel_text_lines = accel.text_lines
    try:
        accel.text_lines = None
        slow._push_text_lines(lines)  # noqa: SLF001
    finally:
        accel.text_lines = accel_text_lines
    assert list(fast.history) == list(slow.history)
    assert fast.history_bytes == slow.history_bytes


@needs_build
@pytest.mark.parametrize("seed", range(4))
def test_styled_end_is_where_the_expression_ends(seed: int) -> None:
    """``_accel.styled_end`` against the parser's styled-run expression."""
    assert accel.styled_end is not None
    rng = random.Random(seed)
    pieces = ["ab", " ", "\r\n", "\x1b[1;31m", "\x1b[m", "\x1b[12;5H", "\x1b[2K", "\x1b[1"]
    pieces += [
        "\x1b[?25l",
        "\x1b",
        "\t",
        "\x7f",
        "é",
        "中",
        "m",
        "\x1b[3J",
        "\x1b[5:1H",
        "\U0001f600",
    ]
    pattern = parser._styled_run_re()  # noqa: SLF001
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        i = rng.randint(0, len(text))
        got = accel.styled_end(text, i, narrow_table())
        m = pattern.match(text, i)
        assert m is not None and got == m.end(), (text, i)


@needs_build
@pytest.mark.parametrize("seed", range(4))
def test_sgr_cells_is_the_split_walk_and_cells(seed: int) -> None:
    """``_accel.sgr_cells`` against ``_split_sgr``, ``walk`` and ``_cells``:
    the same text, cells and end node once the graph knows every SGR, and
    None before (or when an ESC starts anything else)."""
    assert accel.sgr_cells is not None
    rng = random.Random(seed)
    sgr_graph.reset()
    start = sgr_graph.node_for(DEFAULT_ATTR)
    pieces = ["ab", " ", "é─", "m", "\r\n", "\x1b[1;31m", "\x1b[m", "\x1b[0m", "\x1b[38:5:1m"]
    pieces += ["\x1b[4:3m", "\x1b[38;2;1;2;3m", "\x1b[;m", "\x1b[1m", "\x1b[31m"]
    for _ in range(500):
        block = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        texts, params = SGR_SPLIT(block)[::2], SGR_SPLIT(block)[1::2]
        first = accel.sgr_cells(block, start)
        nodes = sgr_graph.walk(start, params)  # fills the graph
        got = accel.sgr_cells(block, start)
        assert got is not None and (first is None or first[1:] == got[1:])
        assert got[0] == "".join(texts)
        assert got[1] == styled._cells(nodes, texts)  # noqa: SLF001
        assert all(a is b for a, b in zip(got[1], styled._cells(nodes, texts), strict=True))  # noqa: SLF001
        assert got[2] is nodes[-1]
    assert accel.sgr_cells("a\x1b[2Kb", start) is None
