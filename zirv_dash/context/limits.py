"""Usage-limit notices in each CLI's own words, read off a pane's screen; the breaker they trip.

Every phrase below is the CLI's own, found in its installed package:

- claude (@anthropic-ai/claude-code 2.1.197, `bin/claude.exe`, the embedded JS
  functions building the rejected-limit message): `You've hit your ${kind}${suffix}`
  with kind `session limit` (five_hour), `weekly limit`, `Opus limit`,
  `Sonnet limit`, `Fable 5 limit` (seven_day), `usage limit`, `limit`,
  `org's monthly usage limit`, and suffix ` · resets ${when}` where `when` is
  the reset in local time, `3pm (Europe/Berlin)` / `3:30pm (UTC)`, or beyond a day
  `Dec 9, 3pm (UTC)` (a year added when it differs). `You've hit your fast limit`
  (fast mode only) and `… monthly spend limit` (billing) are not usage windows.
- codex (@openai/codex 0.171.0, the native binary's strings): `You've hit your
  usage limit.` (also `… usage limit for <model>.`) and `You've reached your usage
  limit.`, followed by `Try again at ` / `or try again at ` and chrono's
  `%-I:%M %p` (today) or `%b %-d<st|nd|rd|th>, %Y %-I:%M %p`, local time.
- gemini (@google/gemini-cli 0.61.0, `bundle/interactiveCli-4ZJLSCID.js`,
  useQuotaAndFallback and the quota dialog): `Usage limit reached for <model>.`
  then `Access resets at <h:mm AM TZ>.` (Intl en-US, hour numeric, minute 2-digit,
  short zone name, local time); `bundle/chunk-5FZXKDXH.js`: `You have exhausted
  your daily quota on this model.`
- qwen (@qwen-code/qwen-code 0.15.10, `cli.js` parseAndFormatApiError): a message
  starting `Qwen OAuth quota exceeded:` is shown as it is.

A notice counts only at the start of a screen line (after the CLI's own marks
such as `⎿`, `■`, `✕`, `│`), so an agent merely writing the words inside prose
never trips the breaker.

The circuit breaker: a trip is kept in `<state>/usage/breaker-<vendor>.json`
{vendor, harness, tripped_at, resets_at, resets_stated, window, text} and counts
as 100 % until `resets_at`: the time the notice stated, or, when it stated none,
`DEFAULT_HOLD_SECS` (5 h, the shortest window) after the trip. Past that it
expires by itself: it is read as no trip, and left on disk until the next trip
replaces it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from pathlib import Path

from zirv_dash import records
from zirv_dash.context.collector import usage_dir
from zirv_dash.context.window import BREAKER, FIVE_HOUR, SEVEN_DAY, WINDOWS, UsageWindow

VENDORS: dict[str, str] = {
    "claude": "anthropic",
    "codex": "openai",
    "gemini": "google",
    "qwen": "qwen",
}
"""The account each CLI's notices are about."""

_LEAD = r"^[^\w'\"]*"
_CLAUDE_KINDS = {
    "session limit": FIVE_HOUR,
    "weekly limit": SEVEN_DAY,
    "Opus limit": SEVEN_DAY,
    "Sonnet limit": SEVEN_DAY,
    "Fable 5 limit": SEVEN_DAY,
}
_CLAUDE = re.compile(
    _LEAD + r"(You've hit your (?P<kind>session limit|weekly limit|Opus limit|Sonnet limit"
    r"|Fable 5 limit|org's monthly usage limit|usage limit|limit))(?![\w-])"
)
_CODEX = re.compile(_LEAD + r"(You've (?:hit|reached) your usage limit)(?: for [^.]+)?\.")
_GEMINI = re.compile(
    _LEAD + r"(Usage limit reached for [^\n]+|You have exhausted your daily quota on this model\.)"
)
_QWEN = re.compile(_LEAD + r"(Qwen OAuth quota exceeded:)")
PATTERNS: dict[str, re.Pattern[str]] = {
    "claude": _CLAUDE,
    "codex": _CODEX,
    "gemini": _GEMINI,
    "qwen": _QWEN,
}

_SP = r"[ \u00a0\u202f]?"
_MONTHS = {m: i for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}
_CLAUDE_RESET = re.compile(
    r"resets (?:(?P<mon>[A-Z][a-z]{2}) (?P<day>\d{1,2}),(?: (?P<year>\d{4}),)? )?"
    r"(?P<hour>\d{1,2})(?::(?P<min>\d{2}))?" + _SP + r"(?P<ampm>[ap]m)(?: \((?P<tz>[^)\s]+)\))?",
    re.IGNORECASE,
)
_CODEX_RESET = re.compile(
    r"try again at (?:(?P<mon>[A-Z][a-z]{2}) (?P<day>\d{1,2})(?:st|nd|rd|th)?, (?P<year>\d{4}) )?"
    r"(?P<hour>\d{1,2}):(?P<min>\d{2})" + _SP + r"(?P<ampm>[ap]m)",
    re.IGNORECASE,
)
_GEMINI_RESET = re.compile(
    r"Access resets at (?P<hour>\d{1,2}):(?P<min>\d{2})" + _SP + r"(?P<ampm>[ap]m)", re.IGNORECASE
)
RESETS: dict[str, re.Pattern[str]] = {
    "claude": _CLAUDE_RESET,
    "codex": _CODEX_RESET,
    "gemini": _GEMINI_RESET,
}
_FOLLOWING_LINES = 3
"""A long notice wraps: its reset time may be on the next screen lines."""
_BORDER = "│┃║╭╮╰╯─━ \t"


@dataclass(frozen=True)
class LimitNotice:
    harness: str
    vendor: str
    text: str
    """The screen line the notice was read from."""
    resets_at: float | None
    """Epoch seconds of the reset the notice states, None when it states none."""
    window: str | None = None
    """`five_hour` / `seven_day` when the notice names its window (claude does)."""


def match(harness: str, screen_text: str, now: float | None = None) -> LimitNotice | None:
    """The last usage-limit notice on the screen in `harness`'s own words, or None."""
    pattern = PATTERNS.get(harness)
    if pattern is None or not screen_text:
        return None
    lines = [line.strip(_BORDER) for line in screen_text.splitlines()]
    for index in range(len(lines) - 1, -1, -1):
        found = pattern.search(lines[index])
        if found is None:
            continue
        following = " ".join(lines[index : index + _FOLLOWING_LINES])
        moment = time.time() if now is None else now
        kind = found.groupdict().get("kind")
        return LimitNotice(
            harness=harness,
            vendor=VENDORS[harness],
            text=lines[index][:500],
            resets_at=parse_reset(harness, following[found.start(1) :], moment),
            window=_CLAUDE_KINDS.get(kind) if kind else None,
        )
    return None


def _zone(name: str | None) -> tzinfo | None:
    """The notice's IANA zone (claude names it), None for the local one."""
    if not name:
        return None
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    except (KeyError, ValueError, OSError):  # ZoneInfoNotFoundError is a KeyError
        return None


def parse_reset(harness: str, text: str, now: float) -> float | None:
    """Epoch seconds of the reset time a notice states (local time unless it names
    a zone); a bare time already past today is tomorrow's."""
    pattern = RESETS.get(harness)
    found = pattern.search(text) if pattern is not None else None
    if found is None:
        return None
    parts = found.groupdict()
    hour = int(parts["hour"]) % 12 + (12 if parts["ampm"].lower() == "pm" else 0)
    minute = int(parts.get("min") or 0)
    if int(parts["hour"]) > 12 or minute > 59:
        return None
    zone = _zone(parts.get("tz"))
    # Naive local time when no zone is named: `.timestamp()` then applies the
    # local rules (DST included) to the reset's own date.
    here = datetime.fromtimestamp(now, zone) if zone else datetime.fromtimestamp(now)
    try:
        if parts.get("mon"):
            month = _MONTHS.get(parts["mon"].title())
            if month is None:
                return None
            year = int(parts["year"]) if parts.get("year") else here.year
            when = here.replace(year=year, month=month, day=int(parts["day"]))
            when = when.replace(hour=hour, minute=minute, second=0, microsecond=0)
            if not parts.get("year") and when.timestamp() < now - 86400:
                when = when.replace(year=year + 1)
        else:
            when = here.replace(hour=hour, minute=minute, second=0, microsecond=0)
            if when.timestamp() < now - 60:
                when += timedelta(days=1)
    except ValueError:  # Feb 30 and the like
        return None
    return when.timestamp()


# --- the circuit breaker ---------------------------------------------------------

DEFAULT_HOLD_SECS = 5 * 3600.0
RECORD_CAP = 64 * 1024


class BreakerRecord(records.Record, frozen=True, kw_only=True):
    vendor: str
    harness: str
    tripped_at: float
    resets_at: float
    resets_stated: bool
    """False when the notice named no reset time (the default hold applies)."""
    window: str | None = None
    text: str


def breaker_path(vendor: str, state: Path | None = None) -> Path:
    return usage_dir(state) / f"breaker-{vendor}.json"


def trip(notice: LimitNotice, now: float, state: Path | None = None) -> BreakerRecord:
    """Record the notice as a trip of its vendor's breaker (replacing any older one)."""
    stated = notice.resets_at is not None and notice.resets_at > now
    record = BreakerRecord(
        vendor=notice.vendor,
        harness=notice.harness,
        tripped_at=now,
        resets_at=notice.resets_at if stated and notice.resets_at else now + DEFAULT_HOLD_SECS,
        resets_stated=stated,
        window=notice.window,
        text=notice.text,
    )
    records.write(breaker_path(notice.vendor, state), record)
    return record


def record_trip(
    notice: LimitNotice, now: float | None = None, state: Path | None = None
) -> str | None:
    """`trip`, for the engine: None when recorded, else why it could not be
    (the state dir unwritable); never raises."""
    try:
        trip(notice, time.time() if now is None else now, state)
    except (OSError, ValueError) as exc:
        return f"usage breaker for {notice.vendor}: cannot record the trip ({exc})"
    return None


def read_breaker(vendor: str, state: Path | None = None) -> BreakerRecord | None:
    """The vendor's last trip, expired or not; None if it never tripped.

    Raises records.RecordError for a malformed file (left as it is), OSError for
    one that cannot be read."""
    path = breaker_path(vendor, state)
    record = records.read(BreakerRecord, path, RECORD_CAP)
    if record is not None and (record.vendor != vendor or record.window not in (None, *WINDOWS)):
        raise records.RecordError(f"{path}: vendor {record.vendor!r} / window {record.window!r}")
    return record


def active_breaker(vendor: str, now: float, state: Path | None = None) -> BreakerRecord | None:
    """The vendor's trip while it holds; None once it has expired."""
    record = read_breaker(vendor, state)
    if record is None or now >= record.resets_at:
        return None
    return record


def breaker_windows(record: BreakerRecord) -> dict[str, UsageWindow]:
    """The windows a trip fills: the one its notice named, else both."""
    names = (record.window,) if record.window else WINDOWS
    reset = record.resets_at if record.resets_stated else None
    detail = f"{record.harness} notice: {record.text}"
    return {
        name: UsageWindow(record.vendor, name, 100.0, reset, BREAKER, record.tripped_at, detail)
        for name in names
    }
