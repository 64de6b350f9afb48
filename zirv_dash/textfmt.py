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
