"""The kitty keyboard protocol's clean fallback, in tmux 3.3a (which does not
speak it to zirv): a child that pushed flags 31 still gets every key, encoded
from the legacy bytes tmux sends -- text keys as CSI u with their text,
Enter, Tab and Esc as CSI u -- and zirv's own chords still work."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.test_glass_tmux import start_dashboard
from tests.test_kitty_keys import KEYS_CHILD
from tests.tmuxharness import Tmux, eventually
from zirv_dash.keys import encode_key

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(90)]


def test_flags_31_under_tmux(tmux: Tmux, tmp_path: Path) -> None:
    child = tmp_path / "keys.py"
    child.write_text(KEYS_CHILD)
    start_dashboard(tmux, COLORTERM="truecolor")
    tmux.text(f"{sys.executable} {child} 31")
    tmux.keys("Enter")
    tmux.wait_for("FLAGS 31 READY")
    tmux.keys("a", "Enter", "Tab")
    want = encode_key("a", "a", False, 31) + b"\x1b[13u\x1b[9u"
    assert want == b"\x1b[97;;97u\x1b[13u\x1b[9u"

    def got() -> bool:
        screen = tmux.run("capture-pane", "-p", "-J", "-t", "main").replace("\n", "")
        return f"GOT {want.hex()}|" in screen

    eventually(got, "the child's report of a, Enter, Tab", timeout=20)
    tmux.keys("q")
