"""The SGR extensions at the glass: what `style_for` writes for each level of
terminal support, and how that support is detected (`zirv_dash.outer_sgr`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pytest
from rich.console import Console
from rich.style import Style
from textual.strip import Strip

from widgets.terminal_style import overlay, run_segments, set_sgr_support
from zirv_dash.outer_sgr import ALL, NONE, SgrSupport, detect
from zirv_dash.terminal import TerminalModel

SAMPLE = b"\x1b[4:3;58:2::10:20:30mA\x1b[0m\x1b[21mB\x1b[0m\x1b[53;4;58;5;9mC\x1b[0m\x1b[4:5mD"


@pytest.fixture(autouse=True)
def _reset_support() -> Iterator[None]:
    yield
    set_sgr_support(NONE)


def glass(support: SgrSupport) -> str:
    set_sgr_support(support)
    m = TerminalModel(10, 1)
    m.feed(SAMPLE)
    strip = Strip(run_segments(m.row_runs(0))).apply_style(Style(bgcolor="default"))
    strip = overlay(strip, 3, 4, Style(reverse=True))  # a selection keeps them too
    return strip.render(Console(color_system="truecolor"))


def test_everything_is_sent_where_the_terminal_draws_it() -> None:
    out = glass(ALL)
    assert "\x1b[49;4:3;58:2::10:20:30mA" in out
    assert "\x1b[21;49mB" in out
    assert "\x1b[4;53;49;58:5:9mC" in out
    assert "4:5" in out.split("D")[0].rsplit("\x1b[", 1)[1]


def test_a_terminal_without_them_gets_a_plain_underline() -> None:
    out = glass(NONE)
    assert "4:" not in out and "58" not in out and "53" not in out and "21" not in out
    for ch in "ABCD":
        assert f"\x1b[4;49m{ch}" in out or f"\x1b[4;7;49m{ch}" in out, ch


def test_styles_without_colour() -> None:
    out = glass(SgrSupport(styles=True, ul_color=False, overline=False))
    assert "\x1b[49;4:3mA" in out and "58" not in out and "53" not in out


def caps_of(names: set[str]) -> object:
    def caps(term: str, env: Mapping[str, str]) -> set[str]:
        return names if term == "xterm-256color" else set()

    return caps


@pytest.mark.parametrize(
    ("env", "names", "want"),
    [
        ({"TERM": "xterm-kitty"}, set(), ALL),
        ({"TERM": "xterm-256color", "TMUX": "/tmp/x,1,0"}, set(), ALL),
        ({"TERM": "xterm-256color", "VTE_VERSION": "7600"}, set(), ALL),
        ({"TERM": "xterm-256color", "VTE_VERSION": "4000"}, set(), NONE),
        ({"TERM": "xterm-256color"}, set(), NONE),
        ({"TERM": "xterm-256color"}, {"Smulx"}, SgrSupport(styles=True)),
        ({"TERM": "xterm-256color"}, {"Smulx", "Setulc", "Smol"}, ALL),
    ],
)
def test_detection(env: dict[str, str], names: set[str], want: SgrSupport) -> None:
    assert detect("auto", env, caps_of(names)) == want  # type: ignore[arg-type]


def test_the_setting_wins() -> None:
    assert detect("false", {"TERM": "xterm-kitty"}) == NONE
    assert detect("true", {"TERM": "dumb"}) == ALL


def test_the_real_tmux_terminfo_entry_has_styles() -> None:
    from zirv_dash.outer_sgr import terminfo_caps

    names = terminfo_caps("tmux-256color", {"PATH": "/usr/bin:/bin"})
    if not names:
        pytest.skip("no tmux-256color terminfo entry here")
    assert "Smulx" in names and "colors" in names
