"""`zirv models [HARNESS]`: which model each tier resolves to, per harness.

For every harness: the three tiers (cheap / standard / deep), the model each
resolves to through `catalogue.resolve_model` (the same function handover, the
spawn dialog and `zirv agent` use), and where it came from — an operator
override is marked with the file or variable that set it. Then the catalogue:
every vendor's rungs per tier, `–` where the vendor has no rung for that tier
(zirv never invents one).
"""

from __future__ import annotations

import os
import sys

from zirv_dash.config.layers import ConfigError, handover_env, load_settings
from zirv_dash.harnesses import adapters, catalogue

TYPE_CHECKING = False
if TYPE_CHECKING:
    # `config.Settings` imports pydantic, which plainly valid settings never need.
    from zirv_dash.config.layers import Settings

USAGE = "usage: zirv models [HARNESS]\n"
_VENDOR_NOTES = {
    "opencode": "any vendor; pass the model as provider/id",
    "pi": "any vendor; pass the model as provider/id",
}


def _override_source(agent: str, tier: str) -> str:
    variable = handover_env(agent, tier)
    if os.environ.get(variable, "").strip():
        return f"override: env {variable}"
    return f"override: handover.{agent}.{tier} in ~/.zirv/ctx.toml"


def _tier_line(agent: str, tier: str, settings: Settings) -> str:
    try:
        res = catalogue.resolve_model(agent, tier, settings)
    except catalogue.ResolveError as exc:
        if not settings.handover.get(agent, {}).get(tier):
            why = f"not set: handover.{agent}.{tier} or {handover_env(agent, tier)}"
        else:  # an override that cannot be passed is still the operator's setting
            why = str(exc)
        return f"    {tier:<9} {catalogue.NO_MODEL:<28} {why}"
    shown = res.display_model
    found = catalogue.lookup(res.model)
    if found is not None and found.model_id != found.alias and res.model == found.alias:
        shown = f"{found.alias} ({found.model_id})"
    if res.source == "override":
        shown += " *"
        where = _override_source(agent, tier)
    elif res.source == "ladder":
        where = "built-in ladder"
    else:
        where = "the harness's own default model"
    return f"    {tier:<9} {shown:<28} {where}"


def _harness_head(name: str, adapter: adapters.Adapter) -> str:
    vendors = adapter.vendors
    if name in _VENDOR_NOTES:
        what = _VENDOR_NOTES[name]
    elif len(vendors) > 1:
        what = "any vendor"
    elif vendors:
        what = vendors[0]
    else:
        what = "no catalogue vendor"
    if not adapter.model_flag and name != "shell":
        what += "; no verified model flag, starts with its own default"
    if adapter.builtin:
        state = "built in"
    else:
        state = "installed" if adapter.installed() else "not installed"
    return f"  {name} ({what}) — {state}"


def harness_block(name: str, settings: Settings) -> list[str]:
    adapter = adapters.ADAPTERS[name]
    lines = [_harness_head(name, adapter)]
    tiers = catalogue.TIERS if adapter.model_flag else ("standard",)
    lines += [_tier_line(name, tier, settings) for tier in tiers]
    if not adapter.model_flag:
        for tier in catalogue.TIERS:
            if settings.handover.get(name, {}).get(tier) and tier not in tiers:
                lines.append(_tier_line(name, tier, settings))
    return lines


def vendor_line(vendor: str) -> str:
    rungs = catalogue.ladder(vendor)
    cells = [f"{t} {rungs[t].alias if t in rungs else catalogue.NO_MODEL}" for t in catalogue.TIERS]
    return f"  {vendor:<10} " + "   ".join(cells)


def render(settings: Settings, only: str | None = None) -> str:
    names = [only] if only else adapters.names()
    lines = ["Harnesses (tier → model; * = operator override):"]
    for name in names:
        lines += harness_block(name, settings)
    vendors = list(catalogue.VENDORS)
    if only:
        vendors = [v for v in vendors if v in catalogue.harness_vendors(only)]
    if vendors:
        lines += ["", "Catalogue (vendor: cheap / standard / deep; – = no rung):"]
        lines += [vendor_line(v) for v in vendors]
    if only is None or adapters.ADAPTERS[only].vendors[1:]:
        lines += [
            "",
            "A harness that runs several vendors has no built-in ladder: set its tiers with",
            '[handover.<harness>] <tier> = "<model>" in ~/.zirv/ctx.toml or '
            "ZIRV_CTX_HANDOVER_<HARNESS>_<TIER>.",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    if len(argv) > 1:
        sys.stderr.write(f"zirv models: expected at most one HARNESS\n{USAGE}")
        return 2
    only = argv[0].lower() if argv else None
    if only is not None and adapters.get(only) is None:
        known = ", ".join(adapters.names())
        sys.stderr.write(f"zirv models: unknown harness {argv[0]!r}; known: {known}\n")
        return 2
    try:
        settings = load_settings()
    except ConfigError as exc:
        sys.stderr.write(f"zirv models: {exc}\n")
        return 2
    sys.stdout.write(render(settings, only))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
