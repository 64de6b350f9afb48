"""A process that starts its own session (setsid) is not ours to kill, but it is
never lost: quit and the guard record it, the next launch and `escapes.listed`
show it. Real dashboards and shells in subprocesses (the subreaper setting is
per process, so the test process itself is left as it is)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zirv_dash.config.layers import load_settings
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.panes import escapes, procinfo

ROOT = Path(__file__).resolve().parent.parent

OWNER = """
import os, re, sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from zirv_dash.config.layers import load_settings
from zirv_dash.dash.dashboard import Dashboard
repo = Path({repo!r})
dash = Dashboard(load_settings(repo), repo, manage_state=True)
pane = dash.spawn("shell")
pane.send(b"setsid sleep 1000 & sleep 1000 & echo ES=$((6*7))\\r")
seen = b""
deadline = time.monotonic() + 20
while b"ES=42" not in seen and time.monotonic() < deadline:
    pane.read_available()
    while pane.inbox:
        seen += pane.inbox.popleft()
    time.sleep(0.02)
print("LEADER", pane.pty.pid, flush=True)
print("READY", flush=True)
if sys.argv[1] == "quit":
    dash.shutdown_all(grace=0.5)
    print("ERRORS", " | ".join(e.text for e in dash.errors.entries), flush=True)
    print("DONE", flush=True)
else:
    time.sleep(1000)
"""


def _sleepers_outside(sid: int) -> list[int]:
    """`sleep 1000` processes that carry this test's state dir and left `sid`."""
    state = os.environ["ZIRV_CTX_STATE_DIR"].encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{name}/cmdline").read_bytes()
            env = Path(f"/proc/{name}/environ").read_bytes()
        except OSError:
            continue
        if cmd == b"sleep\x001000\x00" and state in env and os.getsid(int(name)) != sid:
            found.append(int(name))
    return found


def _run_owner(tmp_path: Path, mode: str) -> tuple[subprocess.Popen[str], dict[str, str]]:
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    script = tmp_path / "owner.py"
    script.write_text(OWNER.format(root=str(ROOT), repo=str(repo)))
    env = {**os.environ, "SHELL": "/bin/sh", "PS1": "$ "}
    proc = subprocess.Popen(
        [sys.executable, str(script), mode],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    assert proc.stdout is not None
    lines: dict[str, str] = {}
    for line in proc.stdout:
        word, _, rest = line.strip().partition(" ")
        lines[word] = rest
        if word == ("DONE" if mode == "quit" else "READY"):
            break
    return proc, lines


def _await(cond: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("mode", ["quit", "kill -9"])
def test_a_process_that_left_its_session_is_recorded_and_listed(tmp_path: Path, mode: str) -> None:
    proc, lines = _run_owner(tmp_path, mode)
    leader = int(lines["LEADER"])
    escaped_dir = Path(os.environ["ZIRV_CTX_STATE_DIR"]) / "escaped"
    left: list[int] = []
    try:
        if mode == "kill -9":
            proc.kill()
        proc.wait(20)
        # The session itself is gone (its plain `sleep 1000 &` included) ...
        assert _await(lambda: not procinfo.session_members(leader), 5.0)
        # ... the setsid one is not ours to kill, but it is on the list.
        left = _sleepers_outside(leader)
        assert len(left) == 1, left
        assert _await(lambda: [e.pid for e in escapes.listed(escaped_dir)] == left, 5.0)
        if mode == "quit":
            assert re.search(rf"pid {left[0]} \(sleep 1000\) left session", lines["ERRORS"])
        # The next launch says so.
        repo = tmp_path / "repo"
        nxt = Dashboard(load_settings(repo), repo, manage_state=True)
        assert any("outlived an earlier dashboard" in e.text for e in nxt.errors.entries)
    finally:
        for pid in left or _sleepers_outside(leader):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # Once it is gone its record goes too.
    assert _await(lambda: escapes.listed(escaped_dir) == [], 5.0)
