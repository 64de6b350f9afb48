"""Small text formatting shared by the CLI and the dashboard (cheap to import)."""

from __future__ import annotations


def age_text(seconds: float) -> str:
    """A compact age: `42s`, `3m`, `5h`, `2d`."""
    secs = max(0, int(seconds))
    if secs < 60:
        return f"{secs}s"
    if secs < 3600:
        return f"{secs // 60}m"
    if secs < 86400:
        return f"{secs // 3600}h"
    return f"{secs // 86400}d"


def coarse_age_text(seconds: float) -> str:
    """`age_text` without seconds (`<1m`, `3m`, `5h`): an age a display can keep
    current by waking once a minute, not once a second."""
    return "<1m" if seconds < 60 else age_text(seconds)


def next_coarse_age_change(seconds: float) -> float:
    """Seconds until `coarse_age_text(seconds)` shows something else."""
    secs = max(0.0, seconds)
    return 60 - secs if secs < 60 else next_age_change(secs)


def next_age_change(seconds: float) -> float:
    """Seconds until `age_text(seconds)` shows something else: a chrome that
    shows an age redraws then, not on every tick (`12s` changes each second,
    `3m` each minute)."""
    secs = max(0.0, seconds)
    for unit, limit in ((1, 60), (60, 3600), (3600, 86400)):
        if secs < limit:
            return unit - secs % unit
    return 86400 - secs % 86400
