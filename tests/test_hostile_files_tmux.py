"""End to end in a real terminal (tmux): hostile configuration and mailbox files.

`zirv` started in a checkout whose `.zirv/ctx.toml` is a FIFO, a symlink to
/dev/zero or 5,000-deep nesting must say which file is wrong and exit, never
hang or eat memory; a live dashboard whose mailbox receives a 300 MB file, a
FIFO and a /dev/zero symlink must keep echoing what the operator types and
still deliver real mail.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tmuxharness import ZIRV, Tmux
from zirv_dash import paths

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(90)]

SENDER = "abcd1234-0000-4000-8000-00000000beef"


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _deep(path: Path) -> None:
    path.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (_fifo, "not a regular file (a FIFO)"),
        (_dev_zero, "not a regular file (a device)"),
        (_deep, "nested too deeply"),
    ],
    ids=["fifo", "dev-zero", "deep"],
)
def test_hostile_repo_config_is_named_and_zirv_exits(
    tmux: Tmux, project: Path, make: Callable[[Path], None], reason: str
) -> None:
    target = project / ".zirv" / "ctx.toml"
    make(target)
    tmux.env["ZIRV_CTX_AGENT"] = "demo"
    tmux.start(ZIRV, 120, 40)
    screen = tmux.wait_for("EXITED 2")
    # The path's length varies, so the message wraps anywhere: compare without
    # the blanks a wrap may have eaten.
    flat = "".join(screen.split())
    assert "ctx.toml" in flat and "".join(reason.split()) in flat
    assert "Traceback" not in screen


def _worker_session(state: Path, timeout: float = 20.0) -> str:
    """The session id of the dashboard's worker pane, from the registry."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for record in (state / "sessions").glob("*.json"):
            data = json.loads(record.read_text())
            if data.get("role") == "worker":
                return str(data["session"])
        time.sleep(0.1)
    raise AssertionError("no worker pane registered")


def test_live_dashboard_stays_responsive_with_hostile_mail(
    tmux: Tmux, project: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    tmux.env["ZIRV_CTX_AGENT"] = "demo"
    tmux.start([*ZIRV, "chat", "--agent", "demo", "--pane", "demo"], 140, 40)
    tmux.wait_dashboard()
    worker = _worker_session(state)
    box = state / "mail" / paths.repo_slug(project)
    box.mkdir(parents=True, exist_ok=True)
    with open(box / "1600000000-huge0000.md", "wb") as handle:
        handle.truncate(300 * 1024 * 1024)
    os.mkfifo(box / "1600000001-fifo0000.md")
    (box / "1600000002-zero0000.md").symlink_to("/dev/zero")
    subprocess.run(
        [*ZIRV, "ctx", "send", "--to-session", worker[:8], "--message", "real mail arrives"],
        cwd=project,
        env=tmux.env,
        check=True,
        capture_output=True,
        timeout=30,
    )
    # Typing into the focused orchestrator pane must echo while the sweeps run
    # (each change to the mailbox starts one).
    worst = 0.0
    for n in range(6):
        started = time.monotonic()
        tmux.text(f"k{n}x")
        tmux.wait_for(f"k{n}x", timeout=10)
        worst = max(worst, time.monotonic() - started)
    tmux.keys("C-a", "2")
    tmux.wait_for("real mail arrives", timeout=20)
    # Reading the big file on the loop cost seconds per sweep; generous for a
    # loaded 2-core machine.
    assert worst < 1.0, f"typing echo took {worst:.2f}s"
    assert (box / "1600000000-huge0000.md").stat().st_size == 300 * 1024 * 1024
