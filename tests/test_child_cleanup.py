"""Children never outlive their pane, and a fork never runs our code twice.

Real PTYs, real shells, real /proc: a pane's whole session (every job's process
group) is ended by the ladder; a hard kill of the owner leaves nothing behind
within 5 s (the guard process); a string exec cannot take fails the pane and is
never an exception inside a forked copy of the caller.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zirv_dash.harnesses.adapters import get as get_adapter
from zirv_dash.panes import guard, procinfo
from zirv_dash.panes.ladder import run_ladder
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.ptysession import PtySession, SpawnError
from zirv_dash.panes.spec import PaneSpec

ROOT = Path(__file__).resolve().parent.parent


def read_until(session: PtySession, needle: bytes, timeout: float = 10.0) -> bytes:
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


def await_gone(pids: list[int], timeout: float) -> list[int]:
    """The pids still alive (not zombies) after waiting up to `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        alive = [pid for pid in pids if procinfo.pid_exists(pid)]
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.05)


def shell_with_stubborn_jobs() -> tuple[PtySession, list[int]]:
    """An interactive bash (job control: one process group per job) running a job
    that ignores TERM/HUP/INT and a plain background sleep; returns their pids."""
    s = PtySession(["bash", "--norc", "--noprofile", "-i"], env={**os.environ, "PS1": "$ "})
    s.write(b"bash -c 'trap \"\" TERM HUP INT; sleep 1000' & echo J1=$!\r")
    s.write(b"sleep 1000 & echo J2=$!\r")
    out = b""
    deadline = time.monotonic() + 10
    while not re.search(rb"J2=\d+\r", out) and time.monotonic() < deadline:
        out += read_until(s, b"\n", 0.5)
    pids = [int(re.search(tag + rb"(\d+)\r", out).group(1)) for tag in (b"J1=", b"J2=")]  # type: ignore[union-attr]
    return s, pids


# -- fork safety --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "env", "cwd", "what"),
    [
        (["/bin/echo", "\ud800"], None, None, "argument 1"),
        (["/bin/echo", "a\x00b"], None, None, "argument 1"),
        (["/bin/echo"], {"PATH": os.defpath, "ZIRV_X": "\ud800"}, None, "ZIRV_X"),
        (["/bin/echo"], {"PATH": os.defpath, "Z\ud800": "x"}, None, "variable name"),
        (["/bin/echo"], None, "/tmp/\ud800", "working directory"),
    ],
)
def test_unencodable_text_is_a_clear_spawn_error(
    argv: list[str], env: dict[str, str] | None, cwd: str | None, what: str
) -> None:
    with pytest.raises(SpawnError, match=what):
        PtySession(argv, env=env, cwd=cwd)


def test_a_pane_with_an_unencodable_prompt_fails_with_the_reason() -> None:
    adapter = get_adapter("shell")
    assert adapter is not None
    spec = PaneSpec(agent="shell", adapter=adapter, argv=["/bin/echo", "\ud800"], cwd="/")
    pane = Pane(spec, 80, 24, 1 << 20)
    assert pane.start(dict(os.environ)) is False
    assert pane.spawn_error is not None and "not valid UTF-8" in pane.spawn_error
    assert not pane.alive


SPAWN_SCRIPT = """
import os, sys
sys.path.insert(0, {root!r})
from zirv_dash.panes import ptysession
marker = {marker!r}
def note(text):
    with open(marker, "a") as handle:
        handle.write(f"{{os.getpid()}} {{text}}\\n")
mode = sys.argv[1]
if mode == "preexec":
    def boom():
        raise RuntimeError("child setup failed")
    ptysession._child_setup = boom
    argv = ["/bin/echo", "ok"]
else:
    argv = ["/bin/echo", "\\ud800"]
try:
    # Below the up-front check: the fork/exec itself must be safe.
    ptysession._spawn(argv, None, dict(os.environ), 80, 24)
except ptysession.SpawnError as exc:
    note("error " + str(exc).replace("\\n", " "))
else:
    note("started")
note("continued")
"""


@pytest.mark.parametrize("mode", ["surrogate", "preexec"])
def test_a_failing_child_never_returns_into_the_callers_code(tmp_path: Path, mode: str) -> None:
    marker = tmp_path / "marker"
    script = tmp_path / "spawn.py"
    script.write_text(SPAWN_SCRIPT.format(root=str(ROOT), marker=str(marker)))
    proc = subprocess.run(
        [sys.executable, str(script), mode], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 0, proc.stderr
    lines = marker.read_text().splitlines()
    # One process wrote both lines: no forked copy ran on after the failure.
    assert len(lines) == 2, lines
    assert len({line.split()[0] for line in lines}) == 1
    assert " error " in lines[0]
    assert lines[1].endswith("continued")


# -- no orphans ---------------------------------------------------------------------


def test_the_ladder_ends_every_process_group_of_the_session() -> None:
    s, jobs = shell_with_stubborn_jobs()
    assert all(procinfo.pid_exists(pid) for pid in jobs)
    groups = {os.getpgid(pid) for pid in jobs}
    assert len(groups) == 2 and s.pid not in groups  # each job leads its own group
    s.force_stop()
    assert s.stopped
    assert await_gone([s.pid, *jobs], 1.0) == []
    assert procinfo.session_members(s.pid) == []


def test_the_ladder_steps_without_blocking() -> None:
    s, jobs = shell_with_stubborn_jobs()
    ladder = s.ladder(b"", 0.0, drain=True)
    steps = 0
    started = time.monotonic()
    while not ladder.step():
        steps += 1
        t0 = time.monotonic()
        assert not ladder.done
        # A step does what is due and returns; the caller does the waiting.
        assert time.monotonic() - t0 < 0.5
        time.sleep(0.02)
    assert steps > 1
    assert time.monotonic() - started < 6
    assert await_gone(jobs, 1.0) == []
    s.finish()


def test_a_shell_stopped_by_signal_is_marked_stopped_not_killed_by_accident() -> None:
    s = PtySession(["bash", "--norc", "--noprofile", "-i"], env={**os.environ, "PS1": "$ "})
    read_until(s, b"$ ")
    code = run_ladder(s.ladder(b"", 0.0, signals=(signal.SIGHUP,)))
    # Bash honours a hangup: ended by the signal step, not SIGKILL.
    assert code == 128 + signal.SIGHUP
    assert s.stopped
    s.finish()


# -- the guard --------------------------------------------------------------------------

OWNER_SCRIPT = """
import os, re, sys, time
sys.path.insert(0, {root!r})
from zirv_dash.panes import guard
from zirv_dash.panes.ptysession import PtySession
env = {{**os.environ, "PS1": "$ "}}
shells = [PtySession(["bash", "--norc", "--noprofile", "-i"], env=env) for _ in range(2)]
shells[0].write(b"trap '' HUP TERM INT; echo HUPPROOF=$$\\r")
shells[1].write(b"bash -c 'trap \\"\\" TERM HUP INT; sleep 1000' & echo JOB=$!\\r")
print("GUARD", guard.client().pid, flush=True)
for s in shells:
    print("LEADER", s.pid, flush=True)
seen = b""
deadline = time.monotonic() + 20
def ready():
    return re.search(rb"HUPPROOF=\\d", seen) and re.search(rb"JOB=\\d", seen)
while not ready() and time.monotonic() < deadline:
    for s in shells:
        seen += s.read()
    time.sleep(0.02)
print("READY", flush=True)
time.sleep(1000)
"""


def _start_owner(
    tmp_path: Path, script_text: str
) -> tuple[subprocess.Popen[str], dict[str, list[int]]]:
    script = tmp_path / "owner.py"
    script.write_text(script_text.format(root=str(ROOT)))
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    assert proc.stdout is not None
    seen: dict[str, list[int]] = {}
    for line in proc.stdout:
        word, *rest = line.split()
        if word == "READY":
            return proc, seen
        seen.setdefault(word, []).append(int(rest[0]))
    raise AssertionError(f"owner never became ready: {seen}")


def test_kill_9_of_the_owner_ends_its_sessions_within_5s(tmp_path: Path) -> None:
    proc, seen = _start_owner(tmp_path, OWNER_SCRIPT)
    leaders = seen["LEADER"]
    members = [pid for sid in leaders for pid, _ in procinfo.session_members(sid)]
    assert len(members) >= 3  # two shells and the job
    guard_pid = seen["GUARD"][0]
    try:
        proc.kill()
        proc.wait(10)
        killed_at = time.monotonic()
        left = await_gone(members, 5.0)
        assert left == [], f"survived kill -9 of the owner: {left}"
        assert time.monotonic() - killed_at < 5.0
        # The guard itself does not linger either.
        assert await_gone([guard_pid], 3.0) == []
    finally:
        for pid in members:
            if procinfo.pid_exists(pid):
                os.kill(pid, signal.SIGKILL)


CLEAN_SCRIPT = """
import os, sys
sys.path.insert(0, {root!r})
from zirv_dash.panes import guard
from zirv_dash.panes.ptysession import PtySession
s = PtySession(["/bin/sh", "-c", "exit 0"])
print("GUARD", guard.client().pid, flush=True)
s.wait(10)
s.finish()
print("READY", flush=True)
sys.stdin.read()
"""


def test_the_guard_exits_when_its_owner_exits_cleanly(tmp_path: Path) -> None:
    script = tmp_path / "owner.py"
    script.write_text(CLEAN_SCRIPT.format(root=str(ROOT)))
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdin is not None
    guard_pid = int(proc.stdout.readline().split()[1])
    assert proc.stdout.readline().strip() == "READY"
    assert procinfo.pid_exists(guard_pid)
    # The guard holds no PTY and no directory of ours.
    targets = []
    for fd in os.listdir(f"/proc/{guard_pid}/fd"):
        try:
            targets.append(os.readlink(f"/proc/{guard_pid}/fd/{fd}"))
        except FileNotFoundError:
            continue  # closed between the listing and the look: not held
    assert not any("/dev/pts" in t or t == "/dev/ptmx" for t in targets), targets
    assert os.readlink(f"/proc/{guard_pid}/cwd") == "/"
    proc.stdin.close()
    assert proc.wait(10) == 0
    assert await_gone([guard_pid], 5.0) == []


def test_the_guard_ladder_ends_recorded_sessions() -> None:
    s, jobs = shell_with_stubborn_jobs()
    left = guard.end_sessions({s.pid: s.start_time}, grace=0.5, confirm=2.0)
    assert left == []
    assert await_gone([s.pid, *jobs], 1.0) == []
    s.wait(2)
    s.finish()
