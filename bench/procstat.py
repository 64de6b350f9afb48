"""CPU time of another process, for the benches that time a process they started."""

from __future__ import annotations

import os
from pathlib import Path


def cpu_seconds(pid: str) -> float:
    """User + system seconds of a live process (clock-tick resolution); NaN when
    it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
