"""Process liveness that survives pid reuse.

A pid alone is not an identity: after a process exits the kernel may hand its pid
to an unrelated process. Records therefore keep the process start time too, and a
record is live only if a process with that pid exists *and* started at the
recorded time (within a tolerance).
"""

from __future__ import annotations

import errno
import os
import time

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
