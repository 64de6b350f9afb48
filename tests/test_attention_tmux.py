"""End to end in a real terminal (tmux): a hidden demo pane that finishes turns `◆`."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.tmuxharness import ZIRV, Tmux

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(90)]


def wait_match(tmux: Tmux, pattern: str, timeout: float = 20.0) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux.capture()
        found = re.search(pattern, screen)
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"{pattern!r} never appeared; screen was:\n{screen}")


def test_a_hidden_demo_pane_that_finished_shows_done(tmux: Tmux, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    tmux.env["ZIRV_DEMO_GATE"] = str(gate)  # the demo's turn ends when we say so
    tmux.start([*ZIRV, "chat", "--agent", "shell", "--pane", "demo:hold on"], 120, 40)
    tmux.wait_dashboard()
    row = wait_match(tmux, r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] ([0-9a-f]{8}) demo")  # working, hidden
    short = row.group(1)
    assert "◆" not in tmux.capture()
    gate.touch()
    # The header notice and the sidebar row, while the shell pane stays in front.
    wait_match(tmux, rf"◆ {short} done")
    wait_match(tmux, rf"◆ {short} +demo")
    tmux.keys("C-a", "2")  # look at it: a frame shows it live, so it is seen
    wait_match(tmux, rf"● {short} +demo")
    assert not re.search(rf"◆ {short} +demo", tmux.capture())
    tmux.quit("EXITED 0", timeout=20)
