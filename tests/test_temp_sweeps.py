"""Leftovers of killed writers are swept, a live writer's never: every temp
file is held (an flock) while it is written, and every sweep takes that lock
first. Covers the launch sweep of the state dir, the mailbox's and a spawn
channel's own (with the acks nobody collected)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zirv_dash import paths, spawn

OLD = 1_000_000.0
"""An mtime far older than every grace period."""

_WRITER = """\
import sys, time
from pathlib import Path
from zirv_dash import paths
fd, path = paths.make_temp(Path(sys.argv[1]), sys.argv[2])
import os
os.write(fd, b"half a record")
print(path, flush=True)
time.sleep(60)
"""


def start_writer(directory: Path, prefix: str) -> tuple[subprocess.Popen[str], Path]:
    """A process that opened a temp file with `make_temp` and is still writing it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(directory), prefix],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    path = Path(proc.stdout.readline().strip())
    os.utime(path, (OLD, OLD))
    return proc, path


def end(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait(timeout=10)


def test_a_live_or_stopped_writers_temp_stays_and_a_killed_ones_goes(tmp_path: Path) -> None:
    live, live_path = start_writer(tmp_path, ".roster.json.tmp-")
    stopped, stopped_path = start_writer(tmp_path, ".tip.json.tmp-")
    killed, killed_path = start_writer(tmp_path, ".handover.json.tmp-")
    try:
        os.kill(stopped.pid, signal.SIGSTOP)  # a stopped writer is still a writer
        end(killed)
        assert paths.sweep_temp_files(tmp_path) == 1
        assert live_path.exists() and stopped_path.exists() and not killed_path.exists()
    finally:
        os.kill(stopped.pid, signal.SIGCONT)
        end(live)
        end(stopped)
    assert paths.sweep_temp_files(tmp_path) == 2  # both writers are gone now
    assert list(tmp_path.iterdir()) == []


def test_this_processes_own_open_temp_is_not_swept(tmp_path: Path) -> None:
    fd, path = paths.make_temp(tmp_path, ".x.json.tmp-")
    try:
        os.utime(path, (OLD, OLD))
        assert paths.sweep_temp_files(tmp_path) == 0 and path.exists()
    finally:
        os.close(fd)
    assert paths.sweep_temp_files(tmp_path) == 1 and not path.exists()


def test_a_channel_prune_sweeps_uncollected_acks_and_dead_writers_temps(tmp_path: Path) -> None:
    channel = tmp_path / "requests"
    channel.mkdir()
    stale = {
        "ack-req-gone.json": b'{"ok": true, "short": "aaaa1111"}',  # its requester gave up
        ".ack-req-cut.json.tmp-0a1b2c3d4e5f": b'{"ok"',  # the dashboard's ack, cut by a kill
        "req-cut.json.tmp-5f2b": b'{"agent"',  # a requester killed mid-write
    }
    for name, data in stale.items():
        (channel / name).write_bytes(data)
        os.utime(channel / name, (OLD, OLD))
    fresh_ack = channel / "ack-req-waiting.json"
    fresh_ack.write_text('{"ok": true}')  # its requester may still be polling
    requester, live_req = start_writer(channel, "req-live.json.tmp-")
    try:
        assert spawn.prune_channel(channel) == 3
        left = sorted(p.name for p in channel.iterdir())
        assert left == sorted([fresh_ack.name, live_req.name])
    finally:
        end(requester)
    assert spawn.prune_channel(channel) == 1 and not live_req.exists()


def test_a_launch_sweeps_mailboxes_channels_and_worktree_records(tmp_path: Path) -> None:
    state = tmp_path / "state"
    dirs = [
        state / "mail" / "-work-repo",
        state / "mail" / "-work-repo" / "read",
        state / "mail" / "-work-repo" / "fanout",
        state / "mail" / "-work-repo" / "full",
        state / "dash" / "dashaaaa-0123456789abcdef" / "requests",
        state / "dash" / "dashaaaa-0123456789abcdef" / "p-0123456789abcdef",
        state / "worktrees" / "-work-repo",
        state / "logs" / "delegation-results",
    ]
    left = []
    for directory in dirs:
        paths.ensure_private_dir(directory)
        path = directory / ".thing.json.tmp-dead"
        path.write_text("x")
        os.utime(path, (OLD, OLD))
        left.append(path)
    # A checkout below a worktree record is the user's: never swept.
    checkout = state / "worktrees" / "-work-repo" / "abcd1234"
    checkout.mkdir()
    users = checkout / ".notes.md.tmp-mine"
    users.write_text("mine")
    os.utime(users, (OLD, OLD))
    assert paths.sweep_state_temp_files(state) == len(dirs)
    assert not any(p.exists() for p in left)
    assert users.exists()


@pytest.mark.parametrize("now_offset", [0.0, 60.0])
def test_young_temps_stay_whoever_wrote_them(tmp_path: Path, now_offset: float) -> None:
    path = tmp_path / ".young.json.tmp-abc"
    path.write_text("x")
    assert paths.sweep_temp_files(tmp_path, now=time.time() + now_offset) == 0
    assert path.exists()
