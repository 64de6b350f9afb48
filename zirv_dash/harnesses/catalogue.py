"""Model catalogue, tiers and tier resolution for handover.

The catalogue is what zirv *recognises* (README "Model catalogue"): every vendor's
rungs, strongest first, each with its tier (`cheap` / `standard` / `deep`) or none.
Which harness runs which vendor lives on the adapters (`Adapter.vendors`, from the
README's "Models per harness" table).

Resolving a tier for a target harness (`resolve_model`) follows the upstream order:

1. the operator's override `[handover.<agent>] <tier> = "<model>"` in
   `~/.zirv/ctx.toml` or `ZIRV_CTX_HANDOVER_<AGENT>_<TIER>` (repo-forbidden; already
   merged into `Settings.handover` by `config.load_settings`);
2. the built-in ladder of single-vendor harnesses that can be told a model;
3. otherwise an error naming the key to set. zirv never guesses a translation.

A literal model id passes straight through (it only has to look like an id).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zirv_dash.harnesses import adapters

if TYPE_CHECKING:
    from zirv_dash.config.layers import Settings

TIERS: tuple[str, ...] = ("cheap", "standard", "deep")
NO_MODEL = "–"
"""Shown for a harness that launches with its own default model (never invented)."""


@dataclass(frozen=True)
class Model:
    vendor: str
    alias: str
    """What the operator types; equals `model_id` for every vendor but anthropic."""
    model_id: str
    tier: str | None
    """Ladder rung, or None for a model above/off the ladder."""
    fallback_tier: str | None = None
    """Tier used for cross-harness fallback when `tier` is None (fable/mythos/astra → deep)."""

    @property
    def names(self) -> tuple[str, str]:
        return (self.alias, self.model_id)


def _m(
    vendor: str, alias: str, tier: str | None, model_id: str = "", fb: str | None = None
) -> Model:
    return Model(vendor, alias, model_id or alias, tier, fb)


CATALOGUE: tuple[Model, ...] = (
    _m("anthropic", "fable", None, "claude-fable-5-1", "deep"),
    _m("anthropic", "mythos", None, "claude-mythos-5", "deep"),
    _m("anthropic", "opus", "deep", "claude-opus-5"),
    _m("anthropic", "sonnet", "standard", "claude-sonnet-5"),
    _m("anthropic", "haiku", "cheap", "claude-haiku-5"),
    _m("openai", "gpt-6-astra", None, fb="deep"),
    _m("openai", "gpt-5.6-sol", "deep"),
    _m("openai", "gpt-5.6-terra", "standard"),
    _m("openai", "gpt-5.6-luna", None),
    _m("openai", "gpt-5.4-mini", "cheap"),
    _m("google", "gemini-3.1-pro-preview", "deep"),
    _m("google", "gemini-3.7-flash", "standard"),
    _m("google", "gemini-3.5-flash-lite", "cheap"),
    _m("xai", "grok-4.6", "deep"),
    _m("xai", "grok-4.3", "standard"),
    _m("xai", "grok-build-0.1", "cheap"),
    _m("qwen", "qwen3.8-max", "deep"),
    _m("qwen", "qwen3-coder-plus", "standard"),
    _m("qwen", "qwen3.8-flash", "cheap"),
    _m("moonshot", "kimi-k3", "deep"),
    _m("moonshot", "kimi-k2.7-code", "standard"),
    _m("moonshot", "kimi-k2.6", "cheap"),
    _m("mistral", "devstral-2", "deep"),
    _m("mistral", "mistral-medium-3.5", "standard"),
    _m("mistral", "devstral-small-2", "cheap"),
    _m("deepseek", "deepseek-v4-pro", "deep"),
    _m("deepseek", "deepseek-v4-flash", "cheap"),
    _m("zhipu", "glm-5.3", "deep"),
    _m("zhipu", "glm-4.6", "standard"),
    _m("zhipu", "glm-4.7-flash", "cheap"),
    _m("minimax", "minimax-m2.7", "standard"),
    _m("meta", "muse-spark-1.2", "standard"),
    _m("meta", "llama-4-maverick", "cheap"),
    _m("amazon", "nova-premier", "deep"),
    _m("amazon", "nova-pro", "standard"),
    _m("amazon", "nova-lite", "cheap"),
)
"""Every vendor's rungs, strongest first (README "Model catalogue")."""

EXTRA_RECOGNISED: tuple[Model, ...] = (
    _m("anthropic", "claude-fable-5", None),
    _m("anthropic", "claude-fable-5[1m]", None),
    _m("anthropic", "claude-fable-5-1[1m]", None),
    _m("anthropic", "claude-mythos-5[1m]", None),
    _m("anthropic", "claude-opus-5[1m]", None),
    _m("openai", "gpt-5-codex", None),
)
"""Recognised ids that are not ladder rungs in their own right."""

VENDORS: tuple[str, ...] = tuple(dict.fromkeys(m.vendor for m in CATALOGUE))

DEMO_LADDER: dict[str, str] = {
    "cheap": "demo-cheap",
    "standard": "demo-standard",
    "deep": "demo-deep",
}


def _vendor_rungs(vendor: str) -> dict[str, str]:
    """tier → alias for one vendor's catalogue rungs (tiers it leaves empty are absent)."""
    return {m.tier: m.alias for m in CATALOGUE if m.vendor == vendor and m.tier}


LADDERS: dict[str, dict[str, str]] = {
    # Inventory §9.1: the two ladders upstream ships.
    "claude": {"cheap": "haiku", "standard": "sonnet", "deep": "opus"},
    "codex": {"cheap": "gpt-5.4-mini", "standard": "gpt-5.6-terra", "deep": "gpt-5.6-sol"},
    # README "Models per harness": gemini is single-vendor (google) with a model flag.
    "gemini": {
        "cheap": "gemini-3.5-flash-lite",
        "standard": "gemini-3.7-flash",
        "deep": "gemini-3.1-pro-preview",
    },
    "demo": DEMO_LADDER,
    # Single-vendor harnesses with a verified model flag take their vendor's
    # catalogue rungs as they are (README "Models per harness").
    "qwen": _vendor_rungs("qwen"),
    "grok": _vendor_rungs("xai"),
}
"""Built-in ladders. Harnesses that run several vendors (opencode, pi, copilot, droid,
goose) have none: which vendor to spend is the operator's call, set per tier under
`[handover.<agent>]`. Single-vendor harnesses without a verified model flag (kimi,
muse) and cursor-agent launch with their own default model and show `–`."""


class ResolveError(Exception):
    """A tier or model that cannot be resolved; the message says what to set."""


@dataclass(frozen=True)
class Resolution:
    agent: str
    tier: str | None
    """The requested tier, or the catalogue tier of a literal model (None if unknown)."""
    model: str | None
    """What to pass with the adapter's model flag; None = the harness's own default."""
    source: str
    """`override` | `ladder` | `literal` | `harness-default`."""

    @property
    def display_model(self) -> str:
        return self.model or NO_MODEL


@dataclass(frozen=True)
class PickerRow:
    agent: str
    tier: str
    """The tier, or "" on a row that cannot be chosen (`reason` says why)."""
    model: str
    """The resolved model, or `–` for a harness that takes no model."""
    current: bool
    reason: str = ""
    """Why this installed harness cannot be chosen ("" : it can)."""
    note: str = ""
    """What `–` means here: a vendor CLI zirv cannot pass a model to starts
    with its own default (the operator should know the model is not chosen)."""
    login: str = ""
    """What this harness clearly lacks to be logged in ("" : it has it, or zirv
    cannot tell): the row can be chosen, after a warning."""


# --- lookups ------------------------------------------------------------------------

_BY_NAME: dict[str, Model] = {}
for _model in CATALOGUE + EXTRA_RECOGNISED:
    for _name in _model.names:
        _BY_NAME.setdefault(_name.lower(), _model)


def lookup(model: str | None) -> Model | None:
    """The catalogue entry for an alias, id or `provider/id` string, if recognised."""
    if not model:
        return None
    key = model.strip().lower()
    found = _BY_NAME.get(key)
    if found is None and "/" in key:
        found = _BY_NAME.get(key.rsplit("/", 1)[1])
    return found


def tier_of(model: str | None) -> str | None:
    """The ladder tier of a model (demo ladder included), or None if it has none."""
    for tier, name in DEMO_LADDER.items():
        if model == name:
            return tier
    found = lookup(model)
    return found.tier if found else None


def vendor_of(model: str | None) -> str | None:
    found = lookup(model)
    return found.vendor if found else None


def ladder(vendor: str) -> dict[str, Model]:
    """A vendor's tiered rungs (tier → model); vendors may leave tiers empty."""
    return {m.tier: m for m in CATALOGUE if m.vendor == vendor and m.tier}


def harness_vendors(agent: str) -> tuple[str, ...]:
    """Catalogue vendors a harness can run (README "Models per harness")."""
    adapter = adapters.get(agent)
    return adapter.vendors if adapter else ()


def harnesses_for_vendor(vendor: str) -> list[str]:
    return [name for name, a in adapters.ADAPTERS.items() if vendor in a.vendors]


def same_model(a: str | None, b: str | None) -> bool:
    """True if two model strings name the same model (alias vs id, provider prefix)."""
    if not a or not b:
        return False
    if a.strip().lower() == b.strip().lower():
        return True
    ma, mb = lookup(a), lookup(b)
    return ma is not None and ma is mb


# --- resolution -----------------------------------------------------------------------

_MODEL_ID = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._:/@+\[\]-]{0,199}\Z")  # \Z: no trailing newline


def config_hint(agent: str, tier: str) -> str:
    return (
        f"set one with `zirv ctx config set handover.{agent}.{tier} <model>`, or add "
        f'`[handover.{agent}] {tier} = "<model>"` to ~/.zirv/ctx.toml '
        f"(env ZIRV_CTX_HANDOVER_{agent.upper().replace('-', '_')}_{tier.upper()})"
    )


def takes_model(agent: str) -> bool:
    adapter = adapters.get(agent)
    return bool(adapter and adapter.model_flag)


def _override(agent: str, tier: str, settings: Settings | None) -> str | None:
    if settings is None:
        return None
    table: Mapping[str, str] = settings.handover.get(agent) or {}
    value = table.get(tier)
    return value.strip() if value and value.strip() else None


def resolve_model(agent: str, tier_or_model: str | None, settings: Settings | None) -> Resolution:
    """Resolve a tier (or pass a literal model through) for the harness `agent`.

    Raises ResolveError with a fixable message (unknown harness, unresolvable tier
    naming the config key, a string that is not a model id).
    """
    if adapters.get(agent) is None:
        known = ", ".join(adapters.names())
        raise ResolveError(f"unknown harness {agent!r}; known harnesses: {known}")
    wanted = (tier_or_model or "standard").strip()
    tier = wanted.lower()
    if tier in TIERS:
        return _resolve_tier(agent, tier, settings)
    if wanted == NO_MODEL and not takes_model(agent):
        return Resolution(agent, "standard", None, "harness-default")
    if not _MODEL_ID.match(wanted):
        raise ResolveError(
            f"{wanted!r} is neither a tier ({', '.join(TIERS)}) nor a model id "
            "(letters, digits and ._:/@+[]- only, not starting with '-')"
        )
    if not takes_model(agent):
        raise ResolveError(
            f"{agent} has no verified model flag, so zirv cannot pass it {wanted!r}; "
            f"it starts with its own default model (tier `standard`)"
        )
    return Resolution(agent, tier_of(wanted), wanted, "literal")


def resolve_requested(agent: str, model: str | None, settings: Settings | None) -> str | None:
    """The model to launch `agent` with for a `--model` value as typed anywhere
    (`zirv agent`, the spawn dialog): a tier name resolves exactly as handover
    resolves it; anything else is a literal left as it is. None stays None.

    Raises ResolveError (naming the key to set) for a tier with no model."""
    if model is None or model.strip().lower() not in TIERS:
        return model
    return resolve_model(agent, model.strip().lower(), settings).model


def implicit_model(agent: str) -> str | None:
    """The model a harness runs with when none is passed, where zirv knows it
    (the built-in demo agent defaults to its `standard` rung); None = unknown."""
    return DEMO_LADDER["standard"] if agent == "demo" else None


def _resolve_tier(agent: str, tier: str, settings: Settings | None) -> Resolution:
    override = _override(agent, tier, settings)
    if not takes_model(agent):
        if override:
            raise ResolveError(
                f"handover.{agent}.{tier} is set to {override!r}, but {agent} has no "
                "verified model flag, so zirv cannot pass a model to it"
            )
        if tier == "standard":
            return Resolution(agent, tier, None, "harness-default")
        raise ResolveError(
            f"{agent} takes no model choice (it starts with its own default); "
            "only the `standard` tier applies"
        )
    if override:
        if not _MODEL_ID.match(override):
            raise ResolveError(
                f"handover.{agent}.{tier} = {override!r} is not a model id; fix it in "
                f"~/.zirv/ctx.toml or ZIRV_CTX_HANDOVER_{agent.upper().replace('-', '_')}_"
                f"{tier.upper()}"
            )
        return Resolution(agent, tier, override, "override")
    built_in = LADDERS.get(agent, {}).get(tier)
    if built_in:
        return Resolution(agent, tier, built_in, "ladder")
    raise ResolveError(f"no {tier} model known for {agent}; {config_hint(agent, tier)}")


def picker_rows(
    settings: Settings | None,
    gate_enabled: Callable[[str], bool],
    current_agent: str | None,
    current_model: str | None,
    gate_refusal: Callable[[str], str | None] | None = None,
) -> list[PickerRow]:
    """One row per (enabled, installed harness × resolvable tier), adapter order;
    and one row with its `reason` for every other installed harness (disabled,
    or no tier resolves), so none is left out without saying why.

    A harness that takes no model (shell, and vendor CLIs without a verified model
    flag) gets one row: tier `standard`, model `–`.
    """
    rows: list[PickerRow] = []
    for name, adapter in adapters.ADAPTERS.items():
        if not adapter.installed():
            continue
        if not gate_enabled(name):
            refused = gate_refusal(name) if gate_refusal is not None else None
            rows.append(PickerRow(name, "", NO_MODEL, False, reason=refused or "disabled"))
            continue
        found = _harness_rows(name, settings, current_agent, current_model)
        if not found:
            reason = (
                f"no model set for its tiers: zirv ctx config set handover.{name}.standard <model>"
            )
            rows.append(PickerRow(name, "", NO_MODEL, name == current_agent, reason=reason))
        rows.extend(found)
    return rows


def _harness_rows(
    name: str, settings: Settings | None, current_agent: str | None, current_model: str | None
) -> list[PickerRow]:
    """The rows of the tiers that resolve for harness `name`."""
    # A vendor CLI without a model flag (droid's interactive CLI, kimi) runs
    # its own default: say so rather than offer a bare `–`.
    note = "its own default model" if harness_vendors(name) and not takes_model(name) else ""
    rows: list[PickerRow] = []
    for tier in TIERS:
        try:
            res = resolve_model(name, tier, settings)
        except ResolveError:
            continue
        is_current = name == current_agent and (
            same_model(res.model, current_model) if res.model else True
        )
        rows.append(PickerRow(name, tier, res.display_model, is_current, note=note))
    return rows
