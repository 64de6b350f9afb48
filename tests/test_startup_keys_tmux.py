"""Keys typed while `zirv chat` starts reach the pane (a real terminal, tmux)."""

from __future__ import annotations

import sys
from pathlib import Path

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


RECORDER = """\
import os, sys, tty
tty.setraw(0)
os.write(1, b"recording\\r\\n")
seen = b""
while True:
    data = os.read(0, 1024)
    if not data:
        break
    seen += data
    os.write(1, b"seen " + repr(seen).encode() + b"\\r\\n")
"""
"""A pane's program that shows every byte it was given."""


def test_an_enter_typed_while_zirv_starts_arrives_as_enter(tmux: Tmux, tmp_path: Path) -> None:
    """The Enter of a line typed at once reaches the pane as CR, not as the LF a
    cooked terminal turns it into (the UI would read Ctrl+J: no submit in a
    CLI's composer)."""
    script = tmp_path / "recorder"
    script.write_text(f"#!{sys.executable}\n{RECORDER}")
    script.chmod(0o755)
    tmux.env["SHELL"] = str(script)
    tmux.start([*ZIRV, "chat", "--agent", "shell"], 120, 40)
    tmux.text("ab")
    tmux.keys("Enter")
    tmux.wait_dashboard(timeout=30)
    screen = tmux.wait_for("seen b'ab\\r'", timeout=30)
    assert "\\n'" not in screen and "EXITED" not in screen
    tmux.quit("EXITED 0")
