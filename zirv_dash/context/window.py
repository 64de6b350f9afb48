"""One usage window's reading (a vendor's 5-hour or 7-day allowance) and the pacing knobs."""

from __future__ import annotations

from dataclasses import dataclass

FIVE_HOUR = "five_hour"
SEVEN_DAY = "seven_day"
WINDOWS: tuple[str, ...] = (FIVE_HOUR, SEVEN_DAY)
WINDOW_SECS: dict[str, float] = {FIVE_HOUR: 5 * 3600.0, SEVEN_DAY: 7 * 86400.0}
WINDOW_LABELS: dict[str, str] = {FIVE_HOUR: "5h", SEVEN_DAY: "7d"}

COLLECTOR = "collector"
ESTIMATOR = "estimator"
BREAKER = "breaker"
UNKNOWN = "unknown"
SOURCES: tuple[str, ...] = (BREAKER, COLLECTOR, ESTIMATOR, UNKNOWN)
"""Best layer first: a tripped breaker, a fresh collector reading, the estimate."""


@dataclass(frozen=True)
class UsageWindow:
    """How much of one vendor's window is spent, and where that figure came from."""

    vendor: str
    window: str
    """`five_hour` or `seven_day`."""
    percent: float | None
    """Percent of the allowance used (may exceed 100); None where nothing is recorded."""
    resets_at: float | None
    """Epoch seconds of the window's reset, when the source states it."""
    source: str
    """`breaker`, `collector`, `estimator` or `unknown`."""
    read_at: float | None
    """Epoch seconds the figure was recorded (its age is `now - read_at`)."""
    detail: str = ""
    """Which file or notice the figure came from; an estimate says so here."""

    def age(self, now: float) -> float | None:
        return None if self.read_at is None else max(0.0, now - self.read_at)

    def to_json(self, now: float) -> dict[str, object]:
        age = self.age(now)
        return {
            "percent": None if self.percent is None else round(self.percent, 1),
            "resets_at": self.resets_at,
            "source": self.source,
            "read_at": self.read_at,
            "age_s": None if age is None else round(age, 1),
            "detail": self.detail,
        }


def unknown(vendor: str, window: str, detail: str = "nothing recorded") -> UsageWindow:
    return UsageWindow(vendor, window, None, None, UNKNOWN, None, detail)


@dataclass(frozen=True)
class PaceConfig:
    """`[pace]` as the usage layers read it (upstream's defaults); the caller passes
    the values from `load_settings().pace`."""

    five_hour_budget_tokens: int = 0
    """Tokens the 5-hour window allows, for the estimator (0: no estimate)."""
    seven_day_budget_tokens: int = 0
    count_cache_reads: bool = False
    collector_max_age_secs: float = 900.0
    """A collector reading older than this gives way to the estimator."""

    def budget(self, window: str) -> int:
        if window == FIVE_HOUR:
            return max(0, self.five_hour_budget_tokens)
        if window == SEVEN_DAY:
            return max(0, self.seven_day_budget_tokens)
        return 0
