"""At the glass, in tmux 3.3a: underline styles, underline colours and
overline reach the outer terminal as a plain tmux pane shows them, and are
downgraded to a plain underline when `[dash] underline_styles = false`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_glass_tmux import WIDTH, cells, find, row_cells, run_sample, start_dashboard
from tests.tmuxharness import Tmux
from zirv_dash.terminal import Attr

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(90)]

SAMPLE = r"""
printf '\033[4:3mcurly\033[0m \033[4:4mdotted\033[0m \033[4:5mdashed\033[0m \033[21mdouble\033[0m '
printf '\033[4;58;5;196mpal\033[0m \033[4:3;58:2::10:20:30mtrue\033[0m \033[53mover\033[0m|\n'
printf 'GLASS''-END\n'
"""
WANT = "curly dotted dashed double pal true over|"


def sample_cells(capture: str) -> list[tuple[str, Attr]]:
    model = cells(capture)
    x, y = find(model, WANT)
    return row_cells(model, y)[x : x + len(WANT)]


def sample_line(capture: str) -> str:
    return next(li for li in capture.splitlines() if "curly" in li and "SESSIONS" not in li)


def test_underline_styles_and_colours_reach_the_glass(tmux: Tmux, tmp_path: Path) -> None:
    script = tmp_path / "sample.sh"
    script.write_text(SAMPLE)
    tmux.start(["sh"], WIDTH, 40, name="plain")
    # TERM is xterm-256color here, whose terminfo has no Smulx: told instead.
    start_dashboard(tmux, COLORTERM="truecolor", ZIRV_CTX_DASH_UNDERLINE_STYLES="true")
    plain = run_sample(tmux, script, "plain")
    ours = run_sample(tmux, script, "main")
    got = sample_cells(ours)
    assert got == sample_cells(plain)
    by_word = {w: got[WANT.index(w)][1] for w in ("curly", "dotted", "dashed", "double", "pal")}
    assert [by_word[w].underline for w in ("curly", "dotted", "dashed", "double")] == [3, 4, 5, 2]
    assert by_word["pal"].ul_color == 196
    assert got[WANT.index("true")][1] == Attr(underline=3, ul_color="#0a141e")
    # Overline: tmux 3.3a captures its own SGR 53 as "5:3" (which no model reads back).
    line = sample_line(ours)
    assert "\x1b[5:3mover" in line or "\x1b[5:3m\x1b" in line
    assert "\x1b[5:3m" in sample_line(plain)


def test_without_support_they_become_a_plain_underline(tmux: Tmux, tmp_path: Path) -> None:
    script = tmp_path / "sample.sh"
    script.write_text(SAMPLE)
    start_dashboard(tmux, COLORTERM="truecolor", ZIRV_CTX_DASH_UNDERLINE_STYLES="false")
    got = sample_cells(run_sample(tmux, script, "main"))
    for word in ("curly", "dotted", "dashed", "double", "pal", "true"):
        assert got[WANT.index(word)][1] == Attr(underline=1), word
    assert got[WANT.index("over")][1] == Attr()
    assert "5:3" not in sample_line(run_sample(tmux, script, "main"))
