"""Settings policy and names that need no settings model (no pydantic import).

What a repository checkout may set, the sections kept for upstream zirv, the
mail limits' bounds, and the words of hints: the small CLIs (`zirv ctx send`)
and the layer checks in `config` use these without paying for pydantic;
`settings_model` builds its fields from the same constants and re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping

MAIL_KEEP_DEFAULT = 50
MAIL_KEEP_MIN = 1
MAIL_MESSAGE_BYTES_DEFAULT = 4096
MAIL_MESSAGE_BYTES_MIN = 64
MAIL_MESSAGE_BYTES_MAX = 1024 * 1024
"""A reader never needs more than a bounded read of one message."""

# Keys a repository checkout may not set (section → forbidden keys; "*" = all but
# the listed exceptions). See the module docstring for why.
REPO_FORBIDDEN: dict[str, tuple[str, ...]] = {
    "dash": ("*",),
    # Upstream forbids `enabled` and `max_delivered_bytes`; `keep` too, because a
    # checkout that shrinks it prunes every other session's mail history.
    "mail": ("enabled", "max_delivered_bytes", "keep"),
    "handover": ("*",),
    "worker": ("*",),
    # Whether cloning a repository is enough to make its sessions outlive the
    # operator's terminal is not the checkout's decision.
    "session": ("*",),
}
REPO_ALLOWED_EXCEPTIONS: dict[str, tuple[str, ...]] = {"dash": ("idle_quiet_ms",)}
MODELLED_SECTIONS = ("dash", "mail", "session")
"""Sections with a settings model (`settings_model.SECTION_MODELS`, which checks
it): a refused key there is named key by key. Here so that reading the files
needs no model (pydantic is not imported by `zirv ctx send`)."""
REPO_FORBIDDEN_TOP = ("agent",)

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
TOP_ENV: dict[str, str] = {"agent": "ZIRV_CTX_AGENT"}
"""Top-level keys and the environment variable each is read from (`load_settings`)."""


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
