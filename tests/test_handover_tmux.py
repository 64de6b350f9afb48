"""Handover in a real terminal (tmux): the orchestrator handed to a CLI that exits at
once (grok with no API key) stays what it was, and the dashboard stays up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tmuxharness import ZIRV, Tmux

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(120)]

NO_KEY = """\
import sys
print("Error: GROK_API_KEY is not set")
sys.exit(1)
"""


def test_orchestrator_handed_to_a_cli_that_exits_at_once_is_kept(
    tmux: Tmux, project: Path, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    fake = bin_dir / "grok"
    fake.write_text(f"#!{sys.executable}\n{NO_KEY}")
    fake.chmod(0o755)
    tmux.env["PATH"] = f"{bin_dir}:{tmux.env.get('PATH', os.defpath)}"
    tmux.env["ZIRV_CTX_AGENT"] = "demo"
    tmux.start([*ZIRV, "chat"], 120, 40)
    tmux.wait_dashboard(timeout=30)
    tmux.wait_for("zirv demo agent", timeout=30)
    tmux.wait_for("Idle", timeout=30)  # idle: the swap starts at once, and answers after
    env = dict(tmux.env, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    env.pop("ZIRV_TEST_MARK", None)
    env.pop("GROK_API_KEY", None)
    # Clearly not logged in (no GROK_API_KEY, no ~/.grok): refused before it starts.
    got = subprocess.run(
        [*ZIRV, "ctx", "handover", "--agent", "grok"],
        cwd=project, env=env, capture_output=True, text=True, timeout=90,
    )  # fmt: skip
    assert got.returncode == 1 and "grok is not logged in" in got.stderr, got.stderr
    # Forced, it starts, exits at once and the orchestrator is kept.
    got = subprocess.run(
        [*ZIRV, "ctx", "handover", "--agent", "grok", "--force"],
        cwd=project, env=env, capture_output=True, text=True, timeout=90,
    )  # fmt: skip
    assert got.returncode == 1, got.stdout + got.stderr
    assert "handover failed: grok exited with code 1" in got.stderr
    assert "GROK_API_KEY is not set" in got.stderr
    assert "handover done" not in got.stdout
    screen = tmux.wait_for("handover of pane", timeout=15)  # the notice
    assert "EXITED" not in screen
    # The demo orchestrator is back and answers.
    tmux.text("still here")
    tmux.keys("Enter")
    tmux.wait_for("Working on: still here", timeout=30)
    tmux.keys("C-a", "e")
    errors = tmux.wait_for("handover failed", timeout=15)
    assert "GROK_API_KEY" in errors.replace("\n", "")
    tmux.keys("Escape")
    tmux.wait_gone("errors ·")
    tmux.quit("EXITED 0", timeout=30)
