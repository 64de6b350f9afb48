"""Cross-harness fallback, pure: each harness's headroom, and where new or stopped work goes.

Upstream's policy ("Cross-harness fallback and handover"): a NEW spawn or
delegation is steered off a harness whose headroom is below
`predictive_headroom_pct`, onto the first harness of `order` that is enabled,
ready, on another vendor's account and has at least
`min_candidate_headroom_pct`; a RUNNING pane moves only once it stopped on a
recognised usage-limit notice (`next_harness`). Headroom is 100 − the fullest
window of the harness's vendor (`measured`), or `unknown_headroom_pct` where no
window has a reading (`assumed`); 0 there opts out: a harness with no reading is
then never a candidate and never steered off. Nothing here reads a file: the
caller passes the windows (`usage.read_windows`) and the harness → vendor table
(the adapters' `vendors`; `HARNESS_VENDORS` when it passes none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from zirv_dash.context.window import UsageWindow

HARNESS_VENDORS: dict[str, str] = {
    "claude": "anthropic",
    "codex": "openai",
    "gemini": "google",
    "qwen": "qwen",
}
"""The account each single-vendor CLI spends (the adapters' `vendors`)."""

MEASURED = "measured"
ASSUMED = "assumed"
OPTED_OUT = "opted-out"


@dataclass(frozen=True)
class FallbackPolicy:
    """`[fallback]` with upstream's defaults; the caller passes `load_settings().fallback`."""

    enabled: bool = True
    order: Sequence[str] = ("claude", "codex")
    predictive_headroom_pct: float = 20.0
    min_candidate_headroom_pct: float = 10.0
    unknown_headroom_pct: float = 25.0


Policy = FallbackPolicy


@dataclass(frozen=True)
class HarnessFacts:
    name: str
    enabled: bool
    """The adapter gate lets it run."""
    ready: bool
    """It resolves and can launch now (installed)."""
    small_only: bool = False
    """Capacity-limited to small tasks (upstream's `[agents]`; shown only)."""


@dataclass(frozen=True)
class Headroom:
    percent: float | None
    """None only when opted out (no reading and no assumption)."""
    how: str
    """`measured`, `assumed` or `opted-out`."""

    def text(self) -> str:
        if self.percent is None:
            return f"– {self.how}"
        return f"{pct(self.percent)} {self.how}"


@dataclass(frozen=True)
class Steering:
    harness: str
    reason: str | None
    """Why the work moved; None when it stays where it was asked for."""

    @property
    def moved(self) -> bool:
        return self.reason is not None


def pct(value: float) -> str:
    """`20%`, `12.5%`: upstream's figures, without a needless `.0`."""
    return f"{value:.1f}".rstrip("0").rstrip(".") + "%"


def headroom(windows: Sequence[UsageWindow], unknown_headroom_pct: float) -> Headroom:
    """100 − the fullest window with a reading, else the assumed headroom."""
    percents = [w.percent for w in windows if w.percent is not None]
    if percents:
        return Headroom(min(100.0, max(0.0, 100.0 - max(percents))), MEASURED)
    if unknown_headroom_pct > 0:
        return Headroom(unknown_headroom_pct, ASSUMED)
    return Headroom(None, OPTED_OUT)


def harness_headroom(
    harness: str,
    policy: FallbackPolicy,
    windows: Sequence[UsageWindow],
    vendors: Mapping[str, str] | None = None,
) -> Headroom:
    vendor = (HARNESS_VENDORS if vendors is None else vendors).get(harness)
    own = [w for w in windows if vendor is not None and w.vendor == vendor]
    return headroom(own, policy.unknown_headroom_pct)


def status_lines(
    policy: FallbackPolicy,
    harnesses: Sequence[HarnessFacts],
    windows: Sequence[UsageWindow],
    vendors: Mapping[str, str] | None = None,
) -> list[str]:
    """Upstream's `zirv ctx status` lines: the policy, then one line per harness
    of the order (`enabled / ready / full / 62% measured`)."""
    unknown = (
        f"unknown assumes {pct(policy.unknown_headroom_pct)}"
        if policy.unknown_headroom_pct > 0
        else "unknown opts out"
    )
    lines = [
        " | ".join(
            (
                "fallback: " + ("enabled" if policy.enabled else "disabled"),
                "order " + (" -> ".join(policy.order) or "(none)"),
                f"steer below {pct(policy.predictive_headroom_pct)} headroom",
                f"candidate min {pct(policy.min_candidate_headroom_pct)}",
                unknown,
            )
        )
    ]
    facts = {h.name: h for h in harnesses}
    for name in policy.order:
        fact = facts.get(name, HarnessFacts(name, enabled=False, ready=False))
        room = harness_headroom(name, policy, windows, vendors)
        lines.append(
            f"fallback {name}: {'enabled' if fact.enabled else 'disabled'}"
            f" / {'ready' if fact.ready else 'unavailable'}"
            f" / {'small-only' if fact.small_only else 'full'} / {room.text()}"
        )
    return lines


def _candidates(
    exclude: str,
    start: int,
    policy: FallbackPolicy,
    harnesses: Sequence[HarnessFacts],
    windows: Sequence[UsageWindow],
    vendors: Mapping[str, str] | None,
) -> list[tuple[str, Headroom]]:
    """Harnesses of the order from `start` (wrapping round) that can take work:
    enabled, ready, not `exclude`'s vendor, with the candidate minimum."""
    facts = {h.name: h for h in harnesses}
    vendors = HARNESS_VENDORS if vendors is None else vendors
    vendor = vendors.get(exclude)
    order = list(policy.order)[start:] + list(policy.order)[:start]
    out: list[tuple[str, Headroom]] = []
    for name in order:
        fact = facts.get(name)
        if name == exclude or fact is None or not (fact.enabled and fact.ready):
            continue
        if vendor is not None and vendors.get(name) == vendor:
            continue  # the same account: just as exhausted
        room = harness_headroom(name, policy, windows, vendors)
        if room.percent is not None and room.percent >= policy.min_candidate_headroom_pct:
            out.append((name, room))
    return out


def steer(
    requested: str,
    policy: FallbackPolicy,
    harnesses: Sequence[HarnessFacts],
    windows: Sequence[UsageWindow],
    vendors: Mapping[str, str] | None = None,
) -> Steering:
    """Where a NEW spawn or delegation asked for `requested` should run."""
    if not policy.enabled or requested not in policy.order:
        return Steering(requested, None)
    room = harness_headroom(requested, policy, windows, vendors)
    if room.percent is None or room.percent >= policy.predictive_headroom_pct:
        return Steering(requested, None)
    found = _candidates(requested, 0, policy, harnesses, windows, vendors)
    better = [(name, r) for name, r in found if r.percent is not None and r.percent > room.percent]
    if not better:
        return Steering(requested, None)
    name, other = better[0]
    return Steering(
        name,
        f"{requested} has {room.text()} headroom, below the"
        f" {pct(policy.predictive_headroom_pct)} steer threshold; {name} has {other.text()}",
    )


def next_harness(
    current: str,
    policy: FallbackPolicy,
    harnesses: Sequence[HarnessFacts],
    windows: Sequence[UsageWindow],
    vendors: Mapping[str, str] | None = None,
) -> str | None:
    """Where a pane stopped on a usage-limit notice goes: the next harness of the
    order after `current` (wrapping round) that can take work; None when none can."""
    if not policy.enabled:
        return None
    order = list(policy.order)
    start = order.index(current) + 1 if current in order else 0
    found = _candidates(current, start, policy, harnesses, windows, vendors)
    return found[0][0] if found else None
