"""Keys typed while `zirv chat` starts reach the pane (a real terminal, tmux)."""

from __future__ import annotations

import pytest

from tests.tmuxharness import ZIRV, Tmux

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(90)]


def test_keys_typed_before_the_ui_starts_reach_the_pane(tmux: Tmux) -> None:
    """Typed at once, before the interpreter has even started: the start-up
    colour query reads them with the terminal's answers and used to drop them."""
    tmux.start([*ZIRV, "chat", "--agent", "shell"], 120, 40)
    tmux.text("echo early-$((6*7))")
    tmux.keys("Enter")
    tmux.wait_dashboard(timeout=30)
    screen = tmux.wait_for("early-42", timeout=30)
    assert "EXITED" not in screen
    tmux.quit("EXITED 0")
