"""What the fallback policy needs of the harnesses: each one's account, and whether it can work."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from zirv_dash.context.fallback import HarnessFacts
from zirv_dash.harnesses import adapters


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
