"""The settings model, and every name derived from it for hints.

Each section is a pydantic-settings model whose environment variables follow the
upstream names (`ZIRV_CTX_DASH_MAX_PANES` for `dash.max_panes`, and the section's
own `enabled` flag drops the suffix: `ZIRV_CTX_DASH`). Error hints name keys,
variables and `zirv ctx config` commands through the functions here, so a hint
can never name a variable the model does not read.

The repository layer is untrusted: a checkout may not switch the dashboard on or
off, resize it, raise its own pane cap or pick which model spends the operator's
tokens. Those keys are *repo-forbidden* (`REPO_FORBIDDEN`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import AliasChoices, BaseModel, Field, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict


class _EnvFirst(BaseSettings):
    """Base: environment variables outrank values passed in from the TOML layers."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (env_settings, init_settings)


class DashSettings(_EnvFirst):
    model_config = SettingsConfigDict(env_prefix="ZIRV_CTX_DASH_", extra="ignore")

    enabled: bool = Field(default=True, validation_alias=AliasChoices("ZIRV_CTX_DASH", "enabled"))
    """Open the multiplexer on a capable terminal (false: single-pane session)."""
    sidebar_cols: int = Field(default=28, ge=16, le=80)
    """Width of the sidebar roster in columns."""
    max_panes: int = Field(default=9, ge=1, le=64)
    """Cap on live panes; spawns past it are refused."""
    mouse: bool = True
    """Capture the mouse (false leaves selection to the terminal)."""
    idle_quiet_ms: int = Field(default=10_000, ge=100)
    """Output quiet time after which a signal-less pane counts as idle."""
    roster_max_age_secs: int = Field(default=604_800, ge=0)
    """Restore rosters older than this are ignored."""
    workdir_roots: list[str] = Field(default_factory=list)
    """Extra directories a delegated pane's workdir may sit in."""
    scrollback_bytes: int = Field(default=8 * 1024 * 1024, ge=64 * 1024)
    """Scrollback kept per pane, bounded in bytes."""
    motion: Literal["full", "reduced"] = "full"
    """`full` animates the working spinners; `reduced` keeps every state change
    but draws a steady glyph, so nothing moves (and the chrome does not tick)."""
    keymap: str = "default"
    """Name of the shipped keymap preset (`default`, `tmux`)."""
    truecolor: Literal["auto", "true", "false"] = "auto"
    """24-bit colour to the outer terminal: `auto` detects it the way tmux does
    (COLORTERM, terminfo Tc/RGB, known TERMs); `true`/`false` override."""
    notify: Literal["off", "bell", "osc", "desktop"] = "osc"
    """Tell the outer terminal when a pane you are not looking at needs you, is
    done or failed: `osc` (OSC 9/777, through tmux passthrough) is the default
    because a terminal that does not understand it ignores it silently, while
    `bell` beeps and `desktop` needs `notify-send`; `off` sends nothing."""

    @field_validator("truecolor", mode="before")
    @classmethod
    def _truecolor_word(cls, value: object) -> object:
        # TOML booleans and env strings both reach here.
        if isinstance(value, bool):
            return "true" if value else "false"
        return value.lower() if isinstance(value, str) else value

    @field_validator("motion", mode="before")
    @classmethod
    def _motion_word(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @property
    def animated(self) -> bool:
        """Spinners advance (`motion = "full"`); false under reduced motion."""
        return self.motion == "full"


class MailSettings(_EnvFirst):
    model_config = SettingsConfigDict(env_prefix="ZIRV_CTX_MAIL_", extra="ignore")

    enabled: bool = Field(default=True, validation_alias=AliasChoices("ZIRV_CTX_MAIL", "enabled"))
    max_message_bytes: int = Field(default=4096, ge=64, le=1024 * 1024)
    """Bodies over this are cut (the whole text goes to a `full/` sidecar); at
    most 1 MiB so a reader never needs more than a bounded read."""
    max_delivered_bytes: int = Field(default=4096, ge=64, le=1024 * 1024)
    keep: int = Field(default=50, ge=1)


class Settings(BaseModel):
    """The merged, validated configuration for one process."""

    agent: str | None = None
    dash: DashSettings = Field(default_factory=DashSettings)
    mail: MailSettings = Field(default_factory=MailSettings)
    handover: dict[str, dict[str, str]] = Field(default_factory=dict)
    worker: dict[str, str] = Field(default_factory=dict)
    sources: list[str] = Field(default_factory=list)
    """Files that contributed, for `zirv ctx config`-style diagnostics."""


# Keys a repository checkout may not set (section → forbidden keys; "*" = all but
# the listed exceptions). See the module docstring for why.
REPO_FORBIDDEN: dict[str, tuple[str, ...]] = {
    "dash": ("*",),
    # Upstream forbids `enabled` and `max_delivered_bytes`; `keep` too, because a
    # checkout that shrinks it prunes every other session's mail history.
    "mail": ("enabled", "max_delivered_bytes", "keep"),
    "handover": ("*",),
    "worker": ("*",),
}
REPO_ALLOWED_EXCEPTIONS: dict[str, tuple[str, ...]] = {"dash": ("idle_quiet_ms",)}
REPO_FORBIDDEN_TOP = ("agent",)


# --- names of settings, for hints (every hint is built from the models) -------------

OPERATOR_FILE_SHOWN = "~/.zirv/ctx.toml"
SECTION_MODELS: dict[str, type[BaseSettings]] = {
    "dash": DashSettings,
    "mail": MailSettings,
}
"""Sections with a settings model (`handover` and `worker` are free-form tables)."""
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


def env_var(section: str, name: str) -> str:
    """The environment variable the model reads `section.name` from: an explicit
    `ZIRV_*` alias (the sections' `enabled` flags), else env_prefix + name."""
    model = SECTION_MODELS[section]
    alias = model.model_fields[name].validation_alias
    if isinstance(alias, AliasChoices):
        for choice in alias.choices:
            if isinstance(choice, str) and choice.startswith("ZIRV_"):
                return choice
    return f"{model.model_config.get('env_prefix', '')}{name}".upper()


def handover_env(agent: str, tier: str) -> str:
    """The variable `_handover_env` reads for `handover.<agent>.<tier>`."""
    return f"ZIRV_CTX_HANDOVER_{agent.upper().replace('-', '_')}_{tier.upper()}"


def repo_settable(section: str, name: str) -> bool:
    """May `<repo>/.zirv/ctx.toml` set `section.name`?"""
    if name in REPO_ALLOWED_EXCEPTIONS.get(section, ()):
        return True
    forbidden = REPO_FORBIDDEN.get(section, ())
    return "*" not in forbidden and name not in forbidden


def all_keys() -> list[str]:
    """Every scalar key `zirv ctx config` can set (handover keys are patterns)."""
    keys = list(TOP_ENV)
    for section, model in SECTION_MODELS.items():
        keys.extend(f"{section}.{name}" for name in model.model_fields)
    return keys


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


def operator_hint(section: str, name: str) -> str:
    key = f"{section}.{name}"
    return (
        f"set it with `zirv ctx config set {key} <value>` (writes {OPERATOR_FILE_SHOWN}) "
        f"or {env_var(section, name)} instead"
    )


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


_FILE_ONLY: dict[type[BaseSettings], type[BaseSettings]] = {}


def file_only(model: type[BaseSettings]) -> type[BaseSettings]:
    """`model` validating only the values it is given (no environment): how
    `zirv ctx config` checks a value before writing it to a file."""
    cached = _FILE_ONLY.get(model)
    if cached is not None:
        return cached

    class FileOnly(model):  # type: ignore[valid-type, misc]
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            return (init_settings,)

    FileOnly.__name__ = model.__name__
    _FILE_ONLY[model] = FileOnly
    return FileOnly


def gate_env(agent: str) -> str:
    """The variable that enables or disables harness `agent` (wins over the files)."""
    return f"ZIRV_AGENT_{agent.upper().replace('-', '_')}_ENABLED"
