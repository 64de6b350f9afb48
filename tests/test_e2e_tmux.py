"""End to end in a real terminal (tmux): routing, fallback, spawn/switch/type, quit."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.tmuxharness import ZIRV, Tmux, base_env

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(90)]


def wait_gone(pids: list[int], timeout: float = 10.0) -> list[int]:
    deadline = time.monotonic() + timeout
    alive = pids
    while time.monotonic() < deadline:
        alive = [p for p in alive if Path(f"/proc/{p}").exists() and not _zombie(p)]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


def _zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def test_bare_zirv_on_a_tty_opens_the_dashboard(tmux: Tmux) -> None:
    tmux.env["ZIRV_CTX_AGENT"] = "demo"
    tmux.start(ZIRV, 120, 40)
    screen = tmux.wait_dashboard()
    assert "zirv" in screen.splitlines()[0]
    tmux.wait_for("zirv demo agent")
    tmux.quit("EXITED 0")


def test_bare_zirv_piped_prints_help(project: Path, tmp_path: Path) -> None:
    env = base_env(tmp_path / "state", tmp_path / "operator")
    out = subprocess.run(
        ZIRV, cwd=project, env=env, input="", capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0
    assert "Usage:" in out.stdout and "zirv chat" in out.stdout
    # No local .zirv: help as well, even on a terminal-less run.
    out = subprocess.run(
        ZIRV, cwd=tmp_path, env=env, input="", capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0 and "Usage:" in out.stdout


def test_small_terminal_falls_back_to_a_single_session(tmux: Tmux) -> None:
    tmux.start([*ZIRV, "chat", "--agent", "shell"], 70, 18)
    screen = tmux.wait_for("80x20")
    assert "70x18" in screen
    tmux.text("echo fallback-$((40+2))")
    tmux.keys("Enter")
    tmux.wait_for("fallback-42")
    tmux.text("exit 5")
    tmux.keys("Enter")
    tmux.wait_for("EXITED 5")


def test_spawn_switch_type_quit_leaves_no_children(tmux: Tmux) -> None:
    tmux.start([*ZIRV, "chat", "--agent", "shell"], 120, 40)
    tmux.wait_dashboard()
    tmux.wait_for("▕$")
    # Spawn a demo pane through the dialog: type to pick the harness.
    tmux.keys("C-a", "s")
    tmux.wait_for("spawn a pane")
    time.sleep(0.3)
    tmux.text("demo")
    time.sleep(0.2)
    tmux.keys("Tab", "Tab")  # past the model field to the first prompt
    time.sleep(0.3)
    tmux.text("write the tests")
    time.sleep(0.2)
    tmux.keys("Enter")
    screen = tmux.wait_for("Working on: write the tests")
    assert "demo" in screen
    tmux.wait_for("Done.")
    # Back to pane 1 and type a command; its output shows there.
    tmux.keys("C-a", "1")
    time.sleep(0.3)
    tmux.text("echo from-pane-$((1+1))")
    tmux.keys("Enter")
    tmux.wait_for("from-pane-2")
    # Zoom hides the chrome.
    tmux.keys("C-a", "z")
    tmux.wait_gone("SESSIONS")
    tmux.keys("C-a", "z")
    tmux.wait_dashboard()
    pids = tmux.marked_pids()
    assert len(pids) >= 3  # the dashboard, the shell and the demo agent
    tmux.quit("EXITED 0", timeout=20)
    assert wait_gone(pids) == [], "processes outlived the dashboard"


def test_nested_start_is_refused(project: Path, tmp_path: Path) -> None:
    env = base_env(tmp_path / "state", tmp_path / "operator")
    env["ZIRV_CTX_SESSION"] = "abcdef12-3456"
    out = subprocess.run(
        [*ZIRV, "chat"], cwd=project, env=env, capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 1
    assert "refusing to start inside an existing agent session (ZIRV_CTX_SESSION=abcdef12)" in (
        out.stderr
    )
    assert "--allow-nested" in out.stderr
