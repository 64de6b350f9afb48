"""Underline styles (4:0-4:5, 21), underline colour (58/59) and overline
(53/55) in the model, on every drawing path, and written back as SGR."""

from __future__ import annotations

import pytest

from zirv_dash.terminal import Attr, TerminalModel
from zirv_dash.terminal.attr import DEFAULT_ATTR, apply_sgr
from zirv_dash.terminal.sgr_text import sgr


def attr_of(params: str, start: Attr = DEFAULT_ATTR) -> Attr:
    return apply_sgr(start, params)


@pytest.mark.parametrize(
    ("params", "style"),
    [("4", 1), ("4:0", 0), ("4:1", 1), ("4:2", 2), ("4:3", 3), ("4:4", 4), ("4:5", 5), ("21", 2)],
)
def test_underline_styles(params: str, style: int) -> None:
    assert attr_of(params).underline == style


def test_a_style_replaces_another_and_24_or_0_clear_it() -> None:
    curly = attr_of("4:3")
    assert attr_of("4:4", curly).underline == 4
    assert attr_of("4", curly).underline == 1
    assert attr_of("24", curly).underline == 0
    assert attr_of("4:0", curly).underline == 0
    assert attr_of("0", curly) is DEFAULT_ATTR
    assert attr_of("4:6", curly) is curly  # out of range: ignored, as tmux does


@pytest.mark.parametrize(
    ("params", "color"),
    [
        ("58;5;9", 9),
        ("58;5;196", 196),
        ("58:5:33", 33),
        ("58;2;10;20;30", "#0a141e"),
        ("58:2::10:20:30", "#0a141e"),
        ("58:2:10:20:30", "#0a141e"),
    ],
)
def test_underline_colour_forms(params: str, color: object) -> None:
    got = attr_of(f"4;{params}")
    assert got.ul_color == color and got.fg is None and got.bg is None
    assert attr_of("59", got).ul_color is None
    assert attr_of("59", got).underline == 1


def test_overline_on_and_off() -> None:
    on = attr_of("53")
    assert on.overline and not attr_of("55", on).overline


@pytest.mark.parametrize("python_only", [False, True])
def test_every_drawing_path_keeps_them(python_only: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain draw, styled runs (SGR only, with CUP/EL: the C loop) and whole
    highlighted lines scrolling by all give the same cells."""
    if python_only:
        from zirv_dash.terminal import accel

        for name in ("draw_pieces", "cells_of", "split_sgr", "make_runs"):
            monkeypatch.setattr(accel, name, None)
            monkeypatch.setattr(f"zirv_dash.terminal.styled.{name}", None, raising=False)
    m = TerminalModel(40, 6)
    m.feed(b"\x1b[4:3;58:2::1:2:3mcurly\x1b[0m \x1b[53moverline\x1b[0m\r\n")
    m.feed(b"\x1b[3;1H\x1b[4:4mdot\x1b[K\x1b[3;10H\x1b[58;5;200;4:5mdash\x1b[0m")
    runs = m.row_runs(0)
    assert runs[0] == ("curly", Attr(underline=3, ul_color="#010203"))
    assert runs[2] == ("overline", Attr(overline=True))
    assert ("dot", Attr(underline=4)) in m.row_runs(2)
    assert ("dash", Attr(underline=5, ul_color=200)) in m.row_runs(2)
    m.feed(b"\x1b[6;1H\r\n")
    m.feed(b"".join(b"\x1b[21mline%d\x1b[0m ok\r\n" % i for i in range(12)))
    assert m.row_runs(4)[0] == ("line11", Attr(underline=2))
    assert m.history_runs(m.history_size - 1)[0] == ("line6", Attr(underline=2))


@pytest.mark.parametrize(
    "params",
    ["4:3;58:2::9:8:7;53;1;38;5;100", "21;58;5;3;7", "4:5;58;5;15;48;2;1;1;1", "53;9;2"],
)
def test_sgr_text_round_trips(params: str) -> None:
    attr = attr_of(params)
    m = TerminalModel(10, 1)
    m.feed(b"\x1b[1;3;4:2;53m" + sgr(attr).encode() + b"x")
    assert m.row_runs(0)[0] == ("x", attr)
