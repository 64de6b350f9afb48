"""The collector's state: usage windows a harness itself reported, in `<state>/usage/`.

Claude Code's statusline input is the source for anthropic. Verified in
@anthropic-ai/claude-code 2.1.197 (native binary `bin/claude.exe`, its embedded
JS, the function building the statusline's input object): the JSON written to
the statusLine command's stdin carries `session_id`, `transcript_path`, `cwd`,
`model` {id, display_name}, …, and, only when the account has plan limits
(`...(C.five_hour||C.seven_day)&&{rate_limits:C}`),

    "rate_limits": {"five_hour": {"used_percentage": <0..100>, "resets_at": <epoch s>},
                    "seven_day": {"used_percentage": …, "resets_at": …}}

where `used_percentage` is `utilization*100` and `resets_at` is the
`anthropic-ratelimit-unified-5h-reset` / `-7d-reset` header as a number of
epoch seconds (the bundle formats it with `new Date(resets_at*1000)`). Either
window may be missing. Input that is not that shape is recorded as nothing,
so the last good reading stays.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

from zirv_dash import paths, records
from zirv_dash.context.window import COLLECTOR, WINDOWS, UsageWindow

RECORD_CAP = 64 * 1024
MAX_PERCENT = 1000.0
"""A used percentage above this is not a reading (codex documents values over 100)."""
ANTHROPIC = "anthropic"
STATUSLINE_SOURCE = "claude statusline rate_limits"


class WindowRecord(records.Record, frozen=True, kw_only=True):
    used_percentage: float
    resets_at: float | None = None


class CollectorRecord(records.Record, frozen=True, kw_only=True):
    vendor: str
    read_at: float
    source: str
    """Where the figures came from (the statusline input, a rollout file)."""
    five_hour: WindowRecord | None = None
    seven_day: WindowRecord | None = None
    model: str | None = None


def usage_dir(state: Path | None = None) -> Path:
    return (paths.state_dir() if state is None else state) / "usage"


def collector_path(vendor: str, state: Path | None = None) -> Path:
    return usage_dir(state) / f"{vendor}.json"


def _number(value: object, low: float, high: float) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high:
        return None
    return number


def window_record(value: object, percent_key: str, reset_key: str) -> WindowRecord | None:
    """One window from a harness's JSON object, or None when it is not a reading."""
    if not isinstance(value, dict):
        return None
    percent = _number(value.get(percent_key), 0.0, MAX_PERCENT)
    if percent is None:
        return None
    resets = _number(value.get(reset_key), 1.0, 1e11)
    return WindowRecord(used_percentage=percent, resets_at=resets)


def statusline_info(data: bytes) -> dict[str, Any] | None:
    """Claude Code's statusline input as a JSON object, None when it is not one."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    return value if isinstance(value, dict) else None


def parse_statusline(info: dict[str, Any], now: float | None = None) -> CollectorRecord | None:
    """The windows in one statusline input, None when it carries none."""
    limits = info.get("rate_limits")
    if not isinstance(limits, dict):
        return None
    five = window_record(limits.get("five_hour"), "used_percentage", "resets_at")
    seven = window_record(limits.get("seven_day"), "used_percentage", "resets_at")
    if five is None and seven is None:
        return None
    model = info.get("model")
    model_id = model.get("id") if isinstance(model, dict) else None
    return CollectorRecord(
        vendor=ANTHROPIC,
        read_at=time.time() if now is None else now,
        source=STATUSLINE_SOURCE,
        five_hour=five,
        seven_day=seven,
        model=model_id if isinstance(model_id, str) and len(model_id) <= 200 else None,
    )


def record_collector(record: CollectorRecord, state: Path | None = None) -> Path:
    """Write the reading atomically (0600); returns its path."""
    path = collector_path(record.vendor, state)
    records.write(path, record)
    return path


def read_collector(vendor: str, state: Path | None = None) -> CollectorRecord | None:
    """The vendor's last collector reading, None if none was recorded.

    Raises records.RecordError (naming the file and field) for a malformed file,
    which is left as it is, and OSError for one that cannot be read."""
    record = records.read(CollectorRecord, collector_path(vendor, state), RECORD_CAP)
    if record is not None and record.vendor != vendor:
        raise records.RecordError(
            f"{collector_path(vendor, state)}: vendor {record.vendor!r}, expected {vendor!r}"
        )
    return record


def collector_windows(record: CollectorRecord) -> dict[str, UsageWindow]:
    """The record's windows by name (`five_hour`, `seven_day`), those it holds."""
    out: dict[str, UsageWindow] = {}
    for name in WINDOWS:
        window = getattr(record, name)
        if isinstance(window, WindowRecord):
            out[name] = UsageWindow(
                record.vendor,
                name,
                window.used_percentage,
                window.resets_at,
                COLLECTOR,
                record.read_at,
                record.source,
            )
    return out
