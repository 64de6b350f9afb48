from __future__ import annotations

import os
import signal
import time

import pytest

from zirv_dash.panes.ptysession import PtySession, SpawnError


def read_until(session: PtySession, needle: bytes, timeout: float = 5.0) -> bytes:
    buf = b""
    deadline = time.monotonic() + timeout
    while needle not in buf and time.monotonic() < deadline:
        chunk = session.read()
        if chunk:
            buf += chunk
        elif session.eof:
            break
        else:
            time.sleep(0.01)
    return buf


def test_output_size_and_exit_code() -> None:
    s = PtySession(["/bin/sh", "-c", "stty size; exit 3"], columns=101, rows=33)
    out = read_until(s, b"33 101")
    assert b"33 101" in out
    assert s.wait(5) == 3
    s.finish()


def test_resize_reaches_the_child() -> None:
    s = PtySession(["/bin/sh"], columns=80, rows=24)
    s.resize(120, 40)
    s.write(b"stty size\r")
    assert b"40 120" in read_until(s, b"40 120")
    s.terminate(b"exit\r", grace=2)
    assert s.exit_code == 0


def test_missing_program_is_a_clear_error() -> None:
    with pytest.raises(SpawnError, match="command not found"):
        PtySession(["definitely-not-a-real-program-zirv"])
    with pytest.raises(SpawnError, match="does not exist"):
        PtySession(["/bin/sh"], cwd="/nonexistent/dir")


def test_termination_ladder_kills_what_ignores_the_quit_sequence() -> None:
    # A child that ignores SIGTERM and its quit sequence still dies (SIGKILL).
    s = PtySession(["/bin/sh", "-c", "trap '' TERM HUP; echo ready; while :; do sleep 1; done"])
    read_until(s, b"ready")
    started = time.monotonic()
    code = s.terminate(b"q\r", grace=0.3)
    assert code == 128 + signal.SIGKILL
    assert time.monotonic() - started < 5


def test_process_group_is_killed() -> None:
    s = PtySession(["/bin/sh", "-c", "sleep 100 & echo $!; wait"])
    out = read_until(s, b"\n")
    grandchild = int(out.split()[0])
    s.terminate(b"", grace=0.1)
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            os.kill(grandchild, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("background job outlived its pane")


def test_writes_queue_when_the_child_does_not_read() -> None:
    # A child that outlives any load: one that had exited would refuse the write.
    s = PtySession(["/bin/sh", "-c", "sleep 60"])
    s.write(b"x" * 200_000)  # more than a PTY buffer holds; must not block
    assert s.has_pending_writes
    s.force_stop()
