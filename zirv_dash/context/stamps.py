"""ISO 8601 timestamps as the harnesses write them (`…Z` or with an offset), read once."""

from __future__ import annotations

from datetime import datetime


def parse_iso(value: object) -> datetime | None:
    """The moment an ISO 8601 timestamp names, None for anything that is not one."""
    if not isinstance(value, str) or not 10 <= len(value) <= 40:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
