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


def next_age_change(seconds: float) -> float:
    """Seconds until `age_text(seconds)` shows something else: a chrome that
    shows an age redraws then, not on every tick (`12s` changes each second,
    `3m` each minute)."""
    secs = max(0.0, seconds)
    for unit, limit in ((1, 60), (60, 3600), (3600, 86400)):
        if secs < limit:
            return unit - secs % unit
    return 86400 - secs % 86400
