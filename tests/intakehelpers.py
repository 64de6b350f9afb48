"""One headless dashboard loop for the intake tests: a real `Dashboard` with real
PTY panes and an `Intake` on real channel files, no UI.

Shared by tests/test_intake.py, tests/test_hostile_requests.py,
tests/test_report_back.py and tests/test_worktree_request.py.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from zirv_dash import spawn
from zirv_dash.config.layers import load_settings
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.intake import Intake

DRIVE_POLL_SECS = 0.02
"""How long one loop turn waits for output when nothing is due yet."""


def plain_shell_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Shell panes run /bin/sh with a bare prompt (no dotfiles, stable screens)."""
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")


def git_repo(tmp_path: Path, commit: bool = False) -> Path:
    """`tmp_path/work/repo`, a fresh git repository (resolved), with one empty
    commit when `commit` (what a worktree needs)."""
    path = tmp_path / "work" / "repo"
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    if commit:
        subprocess.run(
            ["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@t",
             "commit", "-q", "--allow-empty", "-m", "first"],
            check=True,
        )  # fmt: skip
    return path.resolve()


@contextmanager
def live_dashboard(
    repo: Path, flags: Mapping[str, Any] | None = None
) -> Iterator[tuple[Dashboard, Intake]]:
    """A dashboard managing state in `repo` with an orchestrator shell pane and a
    started intake; closed fast and its roster written on the way out."""
    settings = load_settings(repo, flags=dict(flags)) if flags else load_settings(repo)
    dash = Dashboard(settings, repo, manage_state=True)
    intake = Intake(dash)
    intake.start()
    dash.spawn("shell", role="orchestrator")
    try:
        yield dash, intake
    finally:
        close(dash)
        intake.on_quit()


def close(dash: Dashboard) -> None:
    """Shut down fast: interactive shells ignore SIGTERM, so ask them to exit first."""
    for pane in dash.live_panes:
        if pane.agent == "shell":
            pane.send(b"exit\r")
    dash.shutdown_all(grace=1.0)


def drive(dash: Dashboard, intake: Intake, until: Callable[[], bool], timeout: float = 10) -> None:
    """Run the dashboard loop (read and parse output, reap, tick the intake) until
    `until()` holds; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        for pane in dash.panes:
            pane.read_available()
            pane.pump(1 << 20)
        for pane in dash.reap():
            intake.pane_ended(pane)
        intake.tick()
        if until():
            return
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(DRIVE_POLL_SECS)


def request(repo: Path, **kw: object) -> dict[str, object]:
    """A valid spawn request for a `demo` pane in `repo`, with `kw` on top.

    Read-only unless `kw` says otherwise: most tests open several panes in one
    tree, and only one writing delegation may hold a tree (tests/test_permits.py)."""
    body: dict[str, object] = {
        "agent": "demo", "prompt": "say hi", "cwd": str(repo), "requested_by": "tester",
        "mode": "read-only",
    }  # fmt: skip
    body.update(kw)
    return body


def ask(
    dash: Dashboard, intake: Intake, channel: Path, body: object, raw: bytes | None = None
) -> spawn.SpawnAck | None:
    """Drop `body` (or the `raw` bytes) into `channel`, run one sweep, and return
    the ack the requester reads (None when none came)."""
    if raw is None and not isinstance(body, dict):
        raw = json.dumps(body).encode()
    if raw is None:
        assert isinstance(body, dict)
        path = spawn.write_request(channel, body)
    else:
        path = channel / "req-raw.json"
        path.write_bytes(raw)
    intake.sweep()
    got = spawn.wait_for_ack(path, timeout=0.5, claim_extension=0.2, poll=0.02)
    return got.ack


def private_channel(intake: Intake, short: str) -> Path:
    """The private channel minted for pane `short`."""
    assert intake.channel is not None
    [name] = [n for n, o in intake.owners.items() if o.short == short]
    return intake.channel.root / name
