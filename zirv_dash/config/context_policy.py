"""The context settings as the context package takes them: a ScoreConfig and a price table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zirv_dash.context import pricing
from zirv_dash.context.fallback import FallbackPolicy
from zirv_dash.context.score import ScoreConfig
from zirv_dash.context.window import PaceConfig

if TYPE_CHECKING:
    from zirv_dash.config.model import Settings


def score_config(settings: Settings) -> ScoreConfig:
    """`[score]` as the scorer reads it (a 0 floor or ceiling: derived from the window)."""
    s = settings.score
    return ScoreConfig(
        window=s.window,
        min_turns=s.min_turns,
        token_floor=s.token_floor or None,
        token_ceiling=s.token_ceiling or None,
        token_floor_ratio=s.token_floor_ratio,
        token_ceiling_ratio=s.token_ceiling_ratio,
        advise_at=s.advise_at,
        compact_at=s.compact_at,
        restart_at=s.restart_at,
    )


def prices(settings: Settings) -> dict[str, pricing.Price]:
    """The list prices with `[pricing]` applied (checked when the settings loaded)."""
    return pricing.merge_overrides(settings.pricing)


def pace_config(settings: Settings) -> PaceConfig:
    """`[pace]` as the usage layers read it."""
    p = settings.pace
    return PaceConfig(
        five_hour_budget_tokens=p.five_hour_budget_tokens,
        seven_day_budget_tokens=p.seven_day_budget_tokens,
        count_cache_reads=p.count_cache_reads,
        collector_max_age_secs=float(p.collector_max_age_secs),
    )


def fallback_policy(settings: Settings) -> FallbackPolicy:
    """`[fallback]` as the fallback policy reads it."""
    f = settings.fallback
    return FallbackPolicy(
        enabled=f.enabled,
        order=tuple(f.order),
        predictive_headroom_pct=f.predictive_headroom_pct,
        min_candidate_headroom_pct=f.min_candidate_headroom_pct,
        unknown_headroom_pct=f.unknown_headroom_pct,
    )
