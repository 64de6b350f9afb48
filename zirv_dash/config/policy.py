"""Settings policy and names that need no settings model (no pydantic import).

What a repository checkout may set (declared on the model, read here from its
generated copy, `table`), the sections kept for upstream zirv, and the words of
hints: the small CLIs (`zirv ctx send`) and the layer checks in `config` use
these without paying for pydantic; `config.model` re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping

from zirv_dash.config import table

# What a checkout may set, and where the top-level keys are read from, are
# declared on the settings model (`operator_only`, `env`); these are its
# generated plain copies (`config/table.py`), so reading the files needs no model
# (pydantic is not imported by `zirv ctx send`).
REPO_FORBIDDEN = table.REPO_FORBIDDEN
"""Keys a repository checkout may not set (section → forbidden keys; "*" = all
but `REPO_ALLOWED_EXCEPTIONS`)."""
REPO_ALLOWED_EXCEPTIONS = table.REPO_ALLOWED_EXCEPTIONS
MODELLED_SECTIONS = table.MODELLED_SECTIONS
"""Sections with a settings model: a refused key there is named key by key."""
REPO_FORBIDDEN_TOP = table.REPO_FORBIDDEN_TOP
TOP_ENV = table.TOP_ENV
"""Top-level keys and the environment variable each is read from (`load_settings`)."""

OPERATOR_FILE_SHOWN = "~/.zirv/ctx.toml"
FOREIGN_SECTIONS: dict[str, str] = {
    "supervise": (
        "zirv-dash does not read `[supervise]`: its keys (max_nudges, poll_ms, "
        "max_restarts, …) drive upstream zirv's headless exec/loop supervisors, which "
        "zirv-dash does not have (a dashboard pane takes a nudge as typed text, never a "
        "restart, and watches its state directory instead of polling)"
    ),
}
"""Sections `~/.zirv/ctx.toml` may hold for upstream zirv (the file is shared)
that no setting here reads: loading ignores them, as it ignores any key no model
has, and `zirv ctx config` refuses them with this reason."""


def handover_env(agent: str, tier: str) -> str:
    """The variable `_handover_env` reads for `handover.<agent>.<tier>`."""
    return f"ZIRV_CTX_HANDOVER_{agent.upper().replace('-', '_')}_{tier.upper()}"


def repo_settable(section: str, name: str) -> bool:
    """May `<repo>/.zirv/ctx.toml` set `section.name`?"""
    if name in REPO_ALLOWED_EXCEPTIONS.get(section, ()):
        return True
    forbidden = REPO_FORBIDDEN.get(section, ())
    return "*" not in forbidden and name not in forbidden


def unknown_key_words(key: str, known: list[str]) -> str:
    """`unknown key `dash.max_pane`; did you mean `dash.max_panes`?`: close names
    compared within the key's own section (the shared `dash.` prefix would make
    every dash key look close), else every known key of that section."""
    import difflib

    section, dot, name = key.rpartition(".")
    same = [k for k in known if k.rpartition(".")[0] == section] if dot else []
    by_name = {k.rpartition(".")[2]: k for k in same}
    close = [by_name[n] for n in difflib.get_close_matches(name, list(by_name), n=3)]
    if not same:
        close = difflib.get_close_matches(key, known, n=3)
    if close:
        return f"unknown key `{key}`; did you mean {', '.join(f'`{k}`' for k in close[:3])}?"
    return f"unknown key `{key}`; known keys: {', '.join(same or known)}"


def top_hint(key: str) -> str:
    return (
        f"set it with `zirv ctx config set {key} <value>` (writes {OPERATOR_FILE_SHOWN}) "
        f"or {TOP_ENV[key]} instead"
    )


def handover_hint(agent: str, tier: str) -> str:
    return (
        f"set it with `zirv ctx config set handover.{agent}.{tier} <model>` "
        f"(writes {OPERATOR_FILE_SHOWN}) or {handover_env(agent, tier)} instead"
    )


def section_hint(section: str, value: object) -> str:
    """Where a wholly forbidden section is set instead, naming the first real
    `handover.<agent>.<tier>` the checkout tried when there is one."""
    if section == "handover":
        if isinstance(value, Mapping):
            for agent, tiers in value.items():
                if isinstance(tiers, Mapping):
                    for tier in tiers:
                        return handover_hint(str(agent), str(tier))
        return handover_hint("<agent>", "<tier>")
    return f"set it in {OPERATOR_FILE_SHOWN} instead"


def gate_env(agent: str) -> str:
    """The variable that enables or disables harness `agent` (wins over the files)."""
    return f"ZIRV_AGENT_{agent.upper().replace('-', '_')}_ENABLED"
