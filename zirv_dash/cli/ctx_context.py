"""The `context` of each session in `zirv ctx status`: what its dashboard last read.

The dashboard that runs a pane writes `<sessions>/<short>.context` beside its
registry record whenever the pane's reading changes (`runtime.context_ctl`);
this reads it back, checked field by field. No file, a bad file, or a harness
that records nothing: `context` is null, never a guess.
"""

from __future__ import annotations

import time
from typing import Any

from zirv_dash import safeio
from zirv_dash.panes import registry

CONTEXT_CAP = 64 * 1024
NUMBERS = ("tokens", "window", "percent", "cost_usd", "session_tokens", "score", "turns")
TEXTS = ("source", "verdict", "model")
VERDICTS = ("healthy", "advise", "compact", "restart")


def context_of(short: str, problems: list[str] | None = None) -> dict[str, Any] | None:
    """The session's `context` object (`tokens`, `window`, `percent`, `source`,
    `age_s`, `verdict`, `cost_usd`, …), or None."""
    try:
        path = registry.sibling_path(short, ".context")
        data = safeio.read_bounded(path, CONTEXT_CAP)
        if data is None:
            return None
        body = safeio.parse_json(safeio.decode_utf8(data, path), path)
    except (safeio.UnsafeFile, safeio.BadContent, ValueError) as exc:
        if problems is not None:
            problems.append(str(exc))
        return None
    context = body.get("context") if isinstance(body, dict) else None
    return _checked(context) if isinstance(context, dict) else None


def _checked(raw: dict[str, Any]) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    for name in NUMBERS:
        value = raw.get(name)
        ok = value is None or (isinstance(value, int | float) and not isinstance(value, bool))
        if not ok or (isinstance(value, int | float) and value < 0):
            return None
        out[name] = value
    for name in TEXTS:
        value = raw.get(name)
        if value is not None and not (isinstance(value, str) and value.isprintable()):
            return None
        out[name] = value
    if out["verdict"] not in (None, *VERDICTS):
        return None
    read_at = raw.get("read_at")
    if not isinstance(read_at, int | float) or isinstance(read_at, bool):
        return None
    out["age_s"] = max(0, round(time.time() - read_at))
    out["cost_is_estimate"] = True
    return out


def status_words(context: dict[str, Any] | None) -> str:
    """` · ctx 42% advise ~$1.20` for a status line ("" when nothing was read)."""
    if context is None:
        return ""
    percent = context.get("percent")
    fill = f"{percent:.0f}%" if isinstance(percent, int | float) else "–"
    verdict = context.get("verdict") or "–"
    cost = context.get("cost_usd")
    money = f" ~${cost:.2f}" if isinstance(cost, int | float) else ""
    return f" · ctx {fill} {verdict}{money}"


def fallback_lines(problems: list[str] | None = None) -> list[str]:
    """Upstream's `fallback:` lines: the policy, then each harness of the order
    (`fallback claude: enabled / ready / full / 62% measured`); [] when the
    settings cannot be read (the problem is named)."""
    from zirv_dash.config.context_policy import fallback_policy, pace_config
    from zirv_dash.config.errors import ConfigError
    from zirv_dash.config.layers import load_adapter_gate, load_settings
    from zirv_dash.context import fallback, usage
    from zirv_dash.harnesses.fallback_facts import harness_facts, vendors

    try:
        settings = load_settings()
        gate = load_adapter_gate(names=list(settings.fallback.order))
    except ConfigError as exc:
        if problems is not None:
            problems.append(str(exc))
        return []
    policy = fallback_policy(settings)
    facts = harness_facts(policy.order, gate)
    windows = usage.read_windows(pace=pace_config(settings), problems=problems)
    return fallback.status_lines(policy, facts, windows, vendors())
