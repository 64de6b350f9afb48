"""The environment a pane's child starts with: nothing of the outer session's authority."""

from __future__ import annotations

import subprocess
import sys

import pytest

from zirv_dash.panes.session_env import SCRUBBED, child_env

OUTER = {
    "ZIRV_CTX_WORK_GROUP": "outer-group",
    "ZIRV_CTX_PRINCIPAL": "outer-principal",
    "ZIRV_CTX_ENVELOPE": '{"depth": 9}',
    "ZIRV_CTX_SESSION": "outer-session",
    "ZIRV_CTX_PARENT_SESSION": "outer-parent",
    "PATH": "/usr/bin:/bin",
}


def _child_sees(env: dict[str, str]) -> dict[str, str]:
    """What a real child process finds in its environment."""
    code = "import json, os; print(json.dumps(dict(os.environ)))"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    import json

    seen: dict[str, str] = json.loads(out.stdout)
    return seen


@pytest.mark.parametrize("name", ["ZIRV_CTX_WORK_GROUP", "ZIRV_CTX_PRINCIPAL", "ZIRV_CTX_ENVELOPE"])
def test_outer_authority_never_reaches_a_child(name: str) -> None:
    assert name in SCRUBBED
    seen = _child_sees(child_env("abcd1234-0000", "claude", base=OUTER))
    assert name not in seen
    assert seen["ZIRV_CTX_SESSION"] == "abcd1234-0000"
    assert "ZIRV_CTX_PARENT_SESSION" not in seen


def test_a_pane_may_still_be_given_its_own_work_group() -> None:
    env = child_env("abcd1234", "claude", base=OUTER, extra={"ZIRV_CTX_WORK_GROUP": "mine"})
    assert _child_sees(env)["ZIRV_CTX_WORK_GROUP"] == "mine"


def test_the_outer_terminal_and_multiplexer_never_reach_a_child() -> None:
    outer = {
        **OUTER,
        "TMUX": "/tmp/tmux-0/default,123,0",
        "TMUX_PANE": "%3",
        "TERM_PROGRAM": "tmux",
        "TERM_PROGRAM_VERSION": "3.3a",
        "STY": "1234.pts-0.host",
        "KITTY_WINDOW_ID": "1",
        "ZELLIJ": "0",
    }
    seen = _child_sees(child_env("abcd1234-0000", "shell", base=outer))
    for name in ("TMUX", "TMUX_PANE", "STY", "KITTY_WINDOW_ID", "ZELLIJ"):
        assert name not in seen, name
    assert seen["TERM_PROGRAM"] == "zirv" and seen["TERM"] == "xterm-256color"
