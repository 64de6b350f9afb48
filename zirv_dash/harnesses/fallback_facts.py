"""What the fallback policy needs of the harnesses: each one's account, and whether it can work."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from zirv_dash.context.fallback import HarnessFacts
from zirv_dash.harnesses import adapters, catalogue


class Gate(Protocol):
    def refusal(self, agent: str) -> str | None: ...


def vendors() -> dict[str, str]:
    """Each harness's account: the one vendor its adapter runs (a multi-vendor CLI
    such as opencode has none, so its headroom is never measured)."""
    return {a.name: a.vendors[0] for a in adapters.ADAPTERS.values() if len(a.vendors) == 1}


def harness_facts(order: Sequence[str], gate: Gate) -> list[HarnessFacts]:
    """Each harness of the order: enabled (the adapter gate) and ready (installed)."""
    out = []
    for name in order:
        adapter = adapters.get(name)
        enabled = adapter is not None and gate.refusal(name) is None
        out.append(HarnessFacts(name, enabled, adapter is not None and adapter.installed()))
    return out


def equivalent_tier(model: str | None) -> tuple[str | None, str | None]:
    """What to ask another harness for in place of `model`: (the tier, None), (None,
    None) for the harness's default, or (None, why) for a pinned model with no
    known tier (never translated by guess)."""
    if not model:
        return None, None
    if model in catalogue.TIERS:
        return model, None
    tier = catalogue.tier_of(model)
    if tier is None:
        return None, f"model {model} is pinned and has no known tier to translate"
    return tier, None
