"""Process liveness that survives pid reuse.

A pid alone is not an identity: after a process exits the kernel may hand its pid
to an unrelated process. Records therefore keep the process start time too, and a
record is live only if a process with that pid exists *and* started at the
recorded time (within a tolerance).
"""

from __future__ import annotations

import errno
import os
import signal
import time
from dataclasses import dataclass, field

_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
START_TIME_TOLERANCE_SECS = 2.0


def pid_exists(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except OSError as exc:
        return exc.errno == errno.EPERM
    return _not_zombie(pid)


def _not_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return True  # no /proc: trust kill(0)
    state = stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3]
    return state != b"Z"


def _boot_time() -> float | None:
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("btime "):
                    return float(line.split()[1])
    except OSError:
        return None
    return None


def process_start_time(pid: int) -> float | None:
    """Epoch seconds the process started, or None if unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:
        ticks = int(fields[19])
    except (IndexError, ValueError):
        return None
    boot = _boot_time()
    if boot is None:
        return None
    return boot + ticks / _CLK_TCK


def is_same_process(pid: int, start_time: float | None) -> bool:
    """True if `pid` is alive and (when known) started at `start_time`."""
    if not pid_exists(pid):
        return False
    if start_time is None:
        return True
    actual = process_start_time(pid)
    if actual is None:
        return True
    return abs(actual - start_time) <= START_TIME_TOLERANCE_SECS


def now() -> float:
    return time.time()


# -- sessions -----------------------------------------------------------------------
#
# A pane's child leads its own session (setsid), and everything it starts stays in
# that session unless it calls setsid itself. Process groups are not enough: bash
# puts every job in its own group, so "signal the leader's group" misses them. The
# session id (field 6 of /proc/<pid>/stat) is the one handle that covers them all.


def _stat_fields(pid: int) -> list[bytes] | None:
    """Fields of /proc/<pid>/stat after the command name (state first), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2 :].split()


def session_members(sid: int, started_after: float | None = None) -> list[tuple[int, int]]:
    """(pid, process group) of every live, non-zombie process in session `sid`.

    `started_after` (epoch seconds) skips processes older than the session's
    leader: if the leader's pid was reused for a new session, nothing that predates
    ours is mistaken for one of our processes."""
    if sid <= 1:
        return []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    boot = _boot_time() if started_after is not None else None
    members: list[tuple[int, int]] = []
    for name in names:
        if not name.isdigit():
            continue
        fields = _stat_fields(int(name))
        if fields is None or len(fields) < 20:
            continue
        try:
            state, pgrp, session, ticks = fields[0], int(fields[2]), int(fields[3]), int(fields[19])
        except ValueError:
            continue
        if session != sid or state in (b"Z", b"X"):
            continue
        if boot is not None and started_after is not None:
            if boot + ticks / _CLK_TCK < started_after - START_TIME_TOLERANCE_SECS:
                continue
        members.append((int(name), pgrp))
    return members


def signal_session(sid: int, sig: int, started_after: float | None = None) -> int:
    """Send `sig` to every process group (and process) of session `sid`; returns
    how many processes were found. Never signals this process or its own group."""
    members = session_members(sid, started_after)
    own_pid, own_group = os.getpid(), os.getpgrp()
    groups = {group for _, group in members if group not in (own_group, 0, 1)}
    for group in groups:
        try:
            os.killpg(group, sig)
        except OSError:
            pass
    for pid, group in members:
        if pid != own_pid and group not in groups:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
    return len(members)


@dataclass
class Ended:
    """What `end_sessions` did: pids that survived SIGKILL, and whether it came
    to SIGKILL at all."""

    survivors: list[int] = field(default_factory=list)
    escalated: bool = False


def end_sessions(
    sessions: dict[int, float | None],
    *,
    signals: tuple[int, ...] = (signal.SIGHUP, signal.SIGTERM),
    grace: float = 1.5,
    confirm: float = 2.0,
    poll: float = 0.05,
) -> Ended:
    """The termination ladder for sessions we are not the parent of (the guard,
    `zirv ctx kill`): `signals` (and SIGCONT, so a stopped job can act on them) to
    every process group of each session, up to `grace` for all to exit, then
    SIGKILL repeated until /proc shows none (at most `confirm`)."""

    def alive() -> list[int]:
        return [pid for sid, start in sessions.items() for pid, _ in session_members(sid, start)]

    for sid, start in sessions.items():
        for sig in (*signals, signal.SIGCONT):
            signal_session(sid, sig, start)
    deadline = time.monotonic() + grace
    while alive() and time.monotonic() < deadline:
        time.sleep(poll)
    result = Ended()
    deadline = time.monotonic() + confirm
    while True:
        left = alive()
        if not left or time.monotonic() >= deadline:
            result.survivors = left
            return result
        result.escalated = True
        for sid, start in sessions.items():
            signal_session(sid, signal.SIGKILL, start)
        time.sleep(poll)
