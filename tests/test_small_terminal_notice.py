"""The too-small notice is wrapped at word boundaries, in a real terminal too."""

from __future__ import annotations

import pytest

from tests.tmuxharness import ZIRV, Tmux
from zirv_dash.panes.wrap import _fit_notice

NOTICE = (
    "zirv: terminal is 79x19; the dashboard needs at least 80x20 — running a single session instead"
)


def test_the_notice_breaks_only_between_words() -> None:
    fitted = _fit_notice(NOTICE, 30)
    assert all(len(line) <= 30 for line in fitted.splitlines())
    assert fitted.split() == NOTICE.split()


@pytest.mark.tmux
@pytest.mark.timeout(60)
def test_at_80x19_no_word_of_the_notice_is_cut(tmux: Tmux) -> None:
    tmux.env["SHELL"] = "/bin/sh"
    tmux.start([*ZIRV, "chat", "--agent", "shell"], 80, 19)
    screen = tmux.wait_for("80x20")
    notice_lines = []
    for line in screen.splitlines():
        notice_lines.append(line)
        if "instead" in line:
            break
    words = " ".join(notice_lines).split()
    # Every word of the notice's tail is whole on the glass.
    for word in ("session", "instead"):
        assert word in words, screen
