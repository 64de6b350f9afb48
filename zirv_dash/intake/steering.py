"""Cross-harness fallback for a new pane: a spawn request moved off an exhausted harness.

Upstream's rule: NEW work is steered off a harness whose measured (or assumed)
headroom is below `[fallback] predictive_headroom_pct`, onto the next enabled,
ready harness of the order with room (`context.fallback.steer`); a request that
pins a model with no known tier stays where it asked (a tier is never guessed).
The request's receipt carries the reason (`capability_warnings`), the
dashboard's notice says it, and the decision log records it.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from zirv_dash.config.context_policy import fallback_policy, pace_config
from zirv_dash.context import decisions, fallback, usage
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.harnesses.fallback_facts import equivalent_tier, harness_facts, vendors
from zirv_dash.spawn.protocol import SpawnRequest

Steer = Callable[[SpawnRequest], tuple[SpawnRequest, str | None]]


def steerer(dash: Dashboard) -> Steer | None:
    """The steering step for this dashboard's spawn validation (None: fallback off)."""
    settings = dash.settings
    if not settings.fallback.enabled:
        return None
    policy = fallback_policy(settings)
    pace = pace_config(settings)

    def steer(req: SpawnRequest) -> tuple[SpawnRequest, str | None]:
        if req.force or req.agent not in policy.order:
            return req, None  # `--force` bypasses headroom, as upstream
        tier, untranslatable = equivalent_tier(req.model)
        if untranslatable:
            return req, None  # a pinned model with no known tier: never translated
        windows = usage.read_windows(pace=pace)
        facts = harness_facts(policy.order, dash.gate)
        steering = fallback.steer(req.agent, policy, facts, windows, vendors())
        if steering.harness == req.agent or steering.reason is None:
            return req, None
        reason = f"steered from {req.agent} to {steering.harness}: {steering.reason}"
        decisions.record(
            "steer",
            harness=req.agent,
            detail=reason,
            fields={"to": steering.harness, "tier": tier},
        )
        return msgspec.structs.replace(req, agent=steering.harness, model=tier), reason

    return steer
