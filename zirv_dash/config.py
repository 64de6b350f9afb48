"""Layered configuration: `~/.zirv/ctx.toml` → `<repo>/.zirv/ctx.toml` → env → flags.

Each section is a pydantic-settings model whose environment variables follow the
upstream names (`ZIRV_CTX_DASH_MAX_PANES` for `dash.max_panes`, and the section's
own `enabled` flag drops the suffix: `ZIRV_CTX_DASH`). File layers are merged
first and handed to the model as init values; the environment outranks them, and
command-line flags are applied last by the caller.

The repository layer is untrusted: a checkout may not switch the dashboard on or
off, resize it, raise its own pane cap or pick which model spends the operator's
tokens. Those keys are *repo-forbidden* and rejected with an error that names the
key and where to set it instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from zirv_dash import paths, safeio
from zirv_dash.textcheck import UnencodableText, require_encodable


class ConfigError(Exception):
    """A configuration problem the user can fix; the message names file and key."""


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
    motion: str = "full"
    """`full` animates spinners; `reduced` shows state only."""
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


class MailSettings(_EnvFirst):
    model_config = SettingsConfigDict(env_prefix="ZIRV_CTX_MAIL_", extra="ignore")

    enabled: bool = Field(default=True, validation_alias=AliasChoices("ZIRV_CTX_MAIL", "enabled"))
    max_message_bytes: int = Field(default=4096, ge=64, le=1024 * 1024)
    """Bodies over this are cut (the whole text goes to a `full/` sidecar); at
    most 1 MiB so a reader never needs more than a bounded read."""
    max_delivered_bytes: int = Field(default=4096, ge=64, le=1024 * 1024)
    keep: int = Field(default=50, ge=1)


class SuperviseSettings(_EnvFirst):
    model_config = SettingsConfigDict(env_prefix="ZIRV_CTX_SUPERVISE_", extra="ignore")

    max_nudges: int = 3
    poll_ms: int = 2000


class Settings(BaseModel):
    """The merged, validated configuration for one process."""

    agent: str | None = None
    dash: DashSettings = Field(default_factory=DashSettings)
    mail: MailSettings = Field(default_factory=MailSettings)
    supervise: SuperviseSettings = Field(default_factory=SuperviseSettings)
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


CONFIG_FILE_CAP = 1024 * 1024
"""A configuration file larger than this is refused (nothing of ours needs more)."""
TABLE_SECTIONS = ("dash", "mail", "supervise", "handover", "worker")
"""Top-level keys that must be tables in every file layer."""


def _read_toml(path: Path) -> dict[str, Any]:
    """One layer: {} when the file is absent; ConfigError naming the file for a
    device, FIFO, socket, oversized, non-UTF-8, malformed or too deep file."""
    try:
        data = safeio.read_toml(path, CONFIG_FILE_CAP)
    except (safeio.UnsafeFile, safeio.BadContent) as exc:
        raise ConfigError(str(exc)) from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    if data is None:
        return {}
    try:
        require_encodable(data, "config")
    except UnencodableText as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    return data


def check_shape(data: Mapping[str, Any], path: Path) -> None:
    """Every known section is a table (and every `[handover.<agent>]` too), so a
    layer of the wrong shape is an error instead of replacing a lower layer's table."""
    for section in TABLE_SECTIONS:
        if section in data and not isinstance(data[section], Mapping):
            got = "an array of tables" if isinstance(data[section], list) else "a value"
            raise ConfigError(
                f"{path}: `{section}` must be a table (`[{section}]`), but it is {got}"
            )
    for agent, tiers in dict(data.get("handover", {})).items():
        if not isinstance(tiers, Mapping):
            raise ConfigError(
                f"{path}: `handover.{agent}` must be a table (`[handover.{agent}]`) of tier = model"
            )


def _check_repo_layer(data: Mapping[str, Any], path: Path) -> None:
    for section, forbidden in REPO_FORBIDDEN.items():
        if section in data and "*" in forbidden and section not in REPO_ALLOWED_EXCEPTIONS:
            # Wholly forbidden: whatever its shape, the key itself is refused.
            raise ConfigError(
                f"{path}: `{section}` is repo-forbidden (a checkout may not set it); "
                f"{_section_hint(section, data[section])}"
            )
    check_shape(data, path)
    for key in REPO_FORBIDDEN_TOP:
        if key in data:
            raise ConfigError(f"{path}: `{key}` may not be set by a repository; {top_hint(key)}")
    for section, forbidden in REPO_FORBIDDEN.items():
        table = data.get(section)
        if not isinstance(table, Mapping):
            continue
        allowed = REPO_ALLOWED_EXCEPTIONS.get(section, ())
        for key in table:
            if key in allowed:
                continue
            if "*" in forbidden or key in forbidden:
                raise ConfigError(_repo_refusal(path, section, str(key)))


def _repo_refusal(path: Path, section: str, key: str) -> str:
    """Why the repo layer may not hold `section.key`: an unknown key is named as
    such (with close names), a real one says where the operator sets it."""
    model = SECTION_MODELS.get(section)
    if model is not None and key not in model.model_fields:
        return f"{path}: {unknown_key_words(f'{section}.{key}', all_keys())}"
    return (
        f"{path}: `{section}.{key}` is repo-forbidden (a checkout may not set it); "
        f"{operator_hint(section, key)}"
    )


# --- names of settings, for hints (every hint is built from the models) -------------

OPERATOR_FILE_SHOWN = "~/.zirv/ctx.toml"
SECTION_MODELS: dict[str, type[BaseSettings]] = {
    "dash": DashSettings,
    "mail": MailSettings,
    "supervise": SuperviseSettings,
}
"""Sections with a settings model (`handover` and `worker` are free-form tables)."""
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


def _section_hint(section: str, value: object) -> str:
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


def _merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _handover_env() -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    prefix = "ZIRV_CTX_HANDOVER_"
    for name, value in os.environ.items():
        if not name.startswith(prefix):
            continue
        rest = name[len(prefix) :]
        agent, _, tier = rest.rpartition("_")
        if agent and tier:
            found.setdefault(agent.lower().replace("_", "-"), {})[tier.lower()] = value
    return found


def load_settings(repo: Path | None = None, flags: Mapping[str, Any] | None = None) -> Settings:
    """Load and validate every layer. Raises ConfigError with a fixable message."""
    repo = repo or paths.repo_root()
    operator_file = paths.operator_dir() / "ctx.toml"
    repo_file = repo / ".zirv" / "ctx.toml"
    merged: dict[str, Any] = {}
    sources: list[str] = []
    layers: list[tuple[str, Mapping[str, Any]]] = []
    op = _read_toml(operator_file)
    check_shape(op, operator_file)
    if op:
        sources.append(str(operator_file))
        layers.append((str(operator_file), op))
    merged = _merge(merged, op)
    if repo_file.resolve() != operator_file.resolve():
        rp = _read_toml(repo_file)
        if rp:
            _check_repo_layer(rp, repo_file)
            sources.append(str(repo_file))
            layers.append((str(repo_file), rp))
        merged = _merge(merged, rp)
    if flags:
        merged = _merge(merged, flags)
        layers.append(("the command line", flags))
    sections: dict[str, Any] = {}
    for name, model in SECTION_MODELS.items():
        try:
            sections[name] = model(**_section(merged, name))
        except ValidationError as exc:
            raise ConfigError(_describe_validation(exc, name, layers)) from exc
    dash, mail, supervise = sections["dash"], sections["mail"], sections["supervise"]
    handover = {
        str(agent): {str(k): str(v) for k, v in tiers.items()}
        for agent, tiers in _section(merged, "handover").items()
        if isinstance(tiers, Mapping)
    }
    for agent, tiers in _handover_env().items():
        handover.setdefault(agent, {}).update(tiers)
    worker = {str(k): str(v) for k, v in _section(merged, "worker").items()}
    agent_value = os.environ.get("ZIRV_CTX_AGENT") or merged.get("agent")
    return Settings(
        agent=str(agent_value) if agent_value else None,
        dash=dash,
        mail=mail,
        supervise=supervise,
        handover=handover,
        worker=worker,
        sources=sources,
    )


def _section(merged: Mapping[str, Any], name: str) -> dict[str, Any]:
    value = merged.get(name, {})
    return dict(value) if isinstance(value, Mapping) else {}


def _describe_validation(
    exc: ValidationError, section: str, layers: list[tuple[str, Mapping[str, Any]]]
) -> str:
    """Each bad value named by key and blamed on where it came from: the
    environment variable when one is set (it outranks the files), else the
    highest layer that holds the key."""
    model = SECTION_MODELS[section]
    parts = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ())]
        name = _field_of(model, loc[0]) if loc else ""
        key = ".".join([section, name, *loc[1:]]) if name else section
        what = f"{key}: {err.get('msg', 'invalid')} (got {err.get('input')!r})"
        parts.append(f"{what}; from {_origin(section, name, layers)}")
    return "invalid configuration: " + "; ".join(parts)


def _field_of(model: type[BaseSettings], loc: str) -> str:
    """The field an error location names (an env alias such as `ZIRV_CTX_DASH`
    names the `enabled` field)."""
    if loc in model.model_fields:
        return loc
    for name, info in model.model_fields.items():
        alias = info.validation_alias
        if isinstance(alias, AliasChoices) and loc in alias.choices:
            return name
    return loc


def _origin(section: str, name: str, layers: list[tuple[str, Mapping[str, Any]]]) -> str:
    if name in SECTION_MODELS[section].model_fields:
        var = env_var(section, name)
        # pydantic-settings matches names case-insensitively.
        if any(k.upper() == var for k in os.environ):
            return f"the environment variable {var}"
    for layer in reversed(layers):
        table = layer[1].get(section)
        if isinstance(table, Mapping) and name in table:
            return str(layer[0])
    return "the defaults"


# --- adapter gate (.zirv/.settings.toml) -------------------------------------------


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


def gate_env(agent: str) -> str:
    """The variable that enables or disables harness `agent` (wins over the files)."""
    return f"ZIRV_AGENT_{agent.upper().replace('-', '_')}_ENABLED"


def load_adapter_gate(repo: Path | None = None, names: list[str] | None = None) -> AdapterGate:
    repo = repo or paths.repo_root()
    gate = AdapterGate()
    op_file = paths.operator_dir() / ".settings.toml"
    repo_file = repo / ".zirv" / ".settings.toml"
    for file, may_enable in ((op_file, True), (repo_file, False)):
        data = _read_toml(file)
        agents = data.get("agents", {})
        if not isinstance(agents, Mapping):
            # A gate of the wrong shape is an error, never a silent "all enabled".
            raise ConfigError(f"{file}: `agents` must be a table (`[agents.<name>]`)")
        for name, table in agents.items():
            if not isinstance(table, Mapping):
                raise ConfigError(f"{file}: `agents.{name}` must be a table (`[agents.{name}]`)")
            if "enabled" not in table:
                continue
            value = table["enabled"]
            if not isinstance(value, bool):
                raise ConfigError(f"{file}: agents.{name}.enabled must be true or false")
            if value is False:
                gate.disabled[str(name)] = f"disabled in {file}"
            elif may_enable:
                gate.disabled.pop(str(name), None)
    for name in names or []:
        var = gate_env(name)
        raw = os.environ.get(var)
        if raw is None:
            continue
        if raw not in ("true", "false"):
            raise ConfigError(f"{var} must be exactly `true` or `false` (got {raw!r})")
        if raw == "false":
            gate.disabled[name] = f"disabled by {var}"
        else:
            gate.disabled.pop(name, None)
    return gate


SAMPLE_CTX_TOML = """\
# zirv configuration for this repository.
#
# Layers, lowest first: ~/.zirv/ctx.toml (operator) -> this file (repository)
# -> ZIRV_CTX_* environment variables -> command-line flags.
#
# A repository may not set dashboard limits, the default agent, handover
# models or whether (and how much) mail is kept and delivered: put those in
# ~/.zirv/ctx.toml. What a repository may set:
#
# [dash]
# idle_quiet_ms = 10000        # ZIRV_CTX_DASH_IDLE_QUIET_MS
# [mail]
# max_message_bytes = 4096     # ZIRV_CTX_MAIL_MAX_MESSAGE_BYTES (at most 1 MiB)
#
# Operator-only keys (~/.zirv/ctx.toml; `zirv ctx config set KEY VALUE` writes
# one there after checking it, `zirv ctx config list` shows what applies):
#
# agent = "claude"             # default harness; ZIRV_CTX_AGENT
# [dash]
# enabled = true               # ZIRV_CTX_DASH
# sidebar_cols = 28            # ZIRV_CTX_DASH_SIDEBAR_COLS
# max_panes = 9                # ZIRV_CTX_DASH_MAX_PANES
# mouse = true                 # ZIRV_CTX_DASH_MOUSE
# roster_max_age_secs = 604800 # ZIRV_CTX_DASH_ROSTER_MAX_AGE_SECS
# workdir_roots = []           # ZIRV_CTX_DASH_WORKDIR_ROOTS
#
# [mail]
# enabled = true               # ZIRV_CTX_MAIL
# keep = 50                    # ZIRV_CTX_MAIL_KEEP (unread mail is never pruned:
#                              #   a mailbox holding this many refuses new mail)
# max_delivered_bytes = 4096   # ZIRV_CTX_MAIL_MAX_DELIVERED_BYTES
"""
