"""End to end in a real terminal (tmux): nothing of a pane's session outlives the
dashboard — after a quit or a `kill -9` — and a first pane that fails at once
leaves a dashboard (or, with --simple, a message) rather than nothing."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tmuxharness import ZIRV, Tmux, base_env
from zirv_dash.panes import procinfo

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(90)]

JOBS = (
    "trap '' HUP TERM INT; echo HUP-PROOF-$((6*7))",
    "bash -c 'trap \"\" TERM HUP INT; sleep 1000' & sleep 1000 & echo JOBS-$((6*7))",
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = tmp_path / "proj"
    (repo / ".zirv").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


@pytest.fixture
def tmux(project: Path, tmp_path: Path) -> Iterator[Tmux]:
    t = Tmux(project, base_env(tmp_path / "state", tmp_path / "operator"))
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    t.env["SHELL"] = bash
    yield t
    for pid in t.marked_pids():
        os.kill(pid, signal.SIGKILL)
    t.kill()


def wait_gone(pids: list[int], timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while True:
        alive = [pid for pid in pids if procinfo.pid_exists(pid)]
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.05)


def dashboard_pid(tmux: Tmux) -> int:
    for pid in tmux.marked_pids():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"zirv_dash.cli.main" in cmdline:
            return pid
    raise AssertionError("no dashboard process found")


def start_with_stubborn_jobs(tmux: Tmux) -> list[int]:
    tmux.start([*ZIRV, "chat", "--agent", "shell"], 120, 40)
    tmux.wait_dashboard()
    time.sleep(0.5)
    for line, done in zip(JOBS, ("HUP-PROOF-42", "JOBS-42"), strict=True):
        tmux.text(line)
        tmux.keys("Enter")
        tmux.wait_for(done)
    pids = tmux.marked_pids()
    assert len(pids) >= 5  # dashboard, guard, shell and the two jobs
    return pids


def test_quit_leaves_no_process_of_any_pane(tmux: Tmux) -> None:
    pids = start_with_stubborn_jobs(tmux)
    tmux.quit("EXITED", timeout=20)
    assert wait_gone(pids, 3.0) == [], "processes outlived the dashboard"


def test_kill_9_of_the_dashboard_leaves_nothing_within_5s(tmux: Tmux) -> None:
    pids = start_with_stubborn_jobs(tmux)
    dash = dashboard_pid(tmux)
    os.kill(dash, signal.SIGKILL)
    killed = time.monotonic()
    left = wait_gone([p for p in pids if p != dash], 5.0)
    assert left == [], f"survived kill -9 of the dashboard: {left}"
    assert time.monotonic() - killed <= 5.0


def test_a_first_pane_that_fails_at_once_keeps_the_dashboard_open(tmux: Tmux) -> None:
    tmux.env["SHELL"] = "/bin/false"
    tmux.start([*ZIRV, "chat", "--agent", "shell"], 120, 40)
    tmux.wait_dashboard()
    tmux.wait_for("exited with code 1")
    time.sleep(1.0)
    assert "EXITED" not in tmux.capture()  # still open, showing why
    screen = tmux.quit("EXITED", timeout=20)
    assert re.search(r"EXITED \d+", screen)


def test_simple_mode_says_why_the_program_failed(tmux: Tmux) -> None:
    tmux.env["SHELL"] = "/bin/false"
    tmux.start([*ZIRV, "chat", "--agent", "shell", "--simple"], 120, 40)
    screen = tmux.wait_for("EXITED")
    assert "/bin/false exited with code 1" in screen
