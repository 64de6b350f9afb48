"""What a pane hands to the glass (under Pilot, real shell children): the child's
colours untouched by the theme, dim as an attribute, the probed colour system
and the outer terminal's default colours."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.color import ColorType
from rich.segment import Segment
from rich.style import Style

from tests.apphelpers import dash_screen, make_app, wait_for
from widgets.terminal_cursor import cursor_shape
from widgets.terminal_view import TerminalView
from zirv_dash.outer_terminal import OuterTerminal

PRINTF = "printf '\\033[31mR\\033[35mM\\033[91mr\\033[2mD\\033[0m\\033[38;5;208mO\\033[0m\\n'\r"


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")


def glass_segments(view: TerminalView, row: int) -> list[Segment]:
    """Row `row` of the view as it leaves for the terminal: after the line
    filters Textual applies to this widget."""
    strip = view.render_line(row)
    for line_filter in view.get_line_filters():
        strip = strip.apply_filter(line_filter, view.background_colors[1])
    return [seg for seg in strip if seg.text]


def style_of(segments: list[Segment], char: str) -> Style:
    for seg in segments:
        if char in seg.text and seg.style is not None:
            return seg.style
    raise AssertionError(f"{char!r} not in {segments!r}")


async def test_palette_colours_and_dim_reach_the_glass_untouched(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        pane = screen.dash.panes[0]
        await wait_for(pilot, lambda: any(line.startswith("$") for line in pane.model_view.lines()))
        pane.send(PRINTF.encode())
        await wait_for(pilot, lambda: any("RMrDO" in line for line in pane.model_view.lines()))
        await pilot.pause(0.1)
        view = screen.views[pane.short]
        row = next(i for i, line in enumerate(pane.model_view.lines()) if "RMrDO" in line)
        segments = glass_segments(view, row)
        red, magenta, bright = (style_of(segments, c) for c in "RMr")
        assert red.color is not None and magenta.color is not None and bright.color is not None
        # Palette colours stay palette colours (SGR 31/35/91), not the theme's RGB.
        assert (red.color.type, red.color.number) == (ColorType.STANDARD, 1)
        assert (magenta.color.type, magenta.color.number) == (ColorType.STANDARD, 5)
        assert (bright.color.type, bright.color.number) == (ColorType.STANDARD, 9)
        # What Rich sends for them: SGR 31 and 91, never 38;5;n.
        assert red.color.get_ansi_codes() == ("31",)
        assert bright.color.get_ansi_codes() == ("91",)
        # Dim is the attribute, not a darker colour.
        dim = style_of(segments, "D")
        assert dim.dim and dim.color is not None and dim.color.number == 9
        orange = style_of(segments, "O")
        assert orange.color is not None and orange.color.number == 208
        # The pane's background is the terminal's default, not the theme's #121212.
        for seg in segments:
            assert seg.style is not None and (
                seg.style.bgcolor is None or seg.style.bgcolor.is_default
            )


async def test_the_chrome_keeps_the_theme(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)):
        sidebar = dash_screen(app).query_one("Sidebar")
        filters = sidebar.get_line_filters()
        view = next(iter(dash_screen(app).views.values()))
        assert len(filters) == len(view.get_line_filters()) + 1


@pytest.mark.parametrize(("system", "expected"), [("truecolor", "truecolor"), ("256", "256")])
def test_the_probed_colour_system_is_the_consoles(
    tmp_path: Path, system: str, expected: str
) -> None:
    app = make_app(tmp_path, outer=OuterTerminal(color_system=system))
    assert app.console.color_system == expected


async def test_children_are_told_the_outer_terminals_colours(tmp_path: Path) -> None:
    colors = ((0xAA, 0xBB, 0xCC), (0x10, 0x20, 0x30))
    app = make_app(tmp_path, outer=OuterTerminal(colors=colors))
    async with app.run_test(size=(120, 40)) as pilot:
        pane = dash_screen(app).dash.panes[0]
        model = pane.model_view
        assert (model.default_fg_rgb, model.default_bg_rgb) == colors
        pane.send(b"printf '\\033]11;?\\007'; echo\r")
        # The shell is not reading the answer; the model's reply is what it got.
        await wait_for(pilot, lambda: "11;rgb:1010/2020/3030" in "".join(model.lines()))


async def test_without_an_answer_children_are_told_nothing(tmp_path: Path) -> None:
    # The outer terminal did not answer OSC 10/11: tmux then leaves a child's
    # query unanswered, and so does zirv (an invented colour, the theme's
    # #121212, made codex and gemini pick another palette than in tmux).
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        model = dash.panes[0].model_view
        assert dash.default_colors is None
        assert (model.default_fg_rgb, model.default_bg_rgb) == (None, None)
        model.feed(b"\x1b]10;?\x07\x1b]11;?\x1b\\")
        assert model.take_replies() == b""
        pane = dash.panes[0]
        pane.send(b"printf '\\033]11;?\\007'; echo done-$((6*7))\r")
        await wait_for(pilot, lambda: "done-42" in "".join(model.lines()))
        assert "rgb:" not in "".join(model.lines())


async def test_a_focused_pane_asks_for_the_real_cursor_where_its_cursor_is(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        pane = screen.dash.panes[0]
        await wait_for(pilot, lambda: any(line.startswith("$") for line in pane.model_view.lines()))
        view = screen.views[pane.short]
        await wait_for(pilot, lambda: view.has_focus)
        got = view.real_cursor()
        assert got is not None
        x, y = pane.model_view.cursor
        assert got[0] == view.content_region.offset + (x, y)
        pane.send(b"printf '\\033[4 q\\033[?25l'\r")
        await wait_for(pilot, lambda: not pane.model_view.cursor_visible)
        assert view.real_cursor() is None
        assert cursor_shape(pane.model_view) == 4
        pane.send(b"printf '\\033[?25h'\r")
        await wait_for(pilot, lambda: pane.model_view.cursor_visible)
        await pilot.pause(0.05)
        cur = view.real_cursor()
        assert cur is not None and cur[1] == 4
        await pilot.press("ctrl+a", "question_mark")
        await wait_for(pilot, lambda: app.screen is not screen)
        assert view.real_cursor() is None
