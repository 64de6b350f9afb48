"""Which adapters are enabled (`.settings.toml`): the result of `config.load_adapter_gate`.

Apart from `config` so that the verbs reading only a mail limit never import
`dataclasses` (and `inspect` with it): `config` re-exports it on first use.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class AdapterGate:
    """Which adapters are enabled: operator file may enable or disable, the repo
    file may only disable (narrow), and `ZIRV_AGENT_<NAME>_ENABLED` wins."""

    disabled: dict[str, str] = field(default_factory=dict)
    """adapter name → reason it is disabled."""

    def refusal(self, agent: str) -> str | None:
        return self.disabled.get(agent)

    def enabled(self, agent: str) -> bool:
        return agent not in self.disabled
