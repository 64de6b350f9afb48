"""Layered configuration: `~/.zirv/ctx.toml` → `<repo>/.zirv/ctx.toml` → env → flags.

The sections are the models in `zirv_dash.config.model` (re-exported here).
File layers are merged first and handed to the model as init values; the
environment outranks them, and command-line flags are applied last by the caller.

The repository layer is untrusted: its *repo-forbidden* keys are rejected with
an error that names the key and where to set it instead (a key the model does
not have is called unknown, with the close names).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from zirv_dash import paths, safeio
from zirv_dash.config import table
from zirv_dash.config.errors import ConfigError as ConfigError
from zirv_dash.config.policy import FOREIGN_SECTIONS as FOREIGN_SECTIONS
from zirv_dash.config.policy import MODELLED_SECTIONS, section_hint, top_hint
from zirv_dash.config.policy import OPERATOR_FILE_SHOWN as OPERATOR_FILE_SHOWN
from zirv_dash.config.policy import REPO_ALLOWED_EXCEPTIONS as REPO_ALLOWED_EXCEPTIONS
from zirv_dash.config.policy import REPO_FORBIDDEN as REPO_FORBIDDEN
from zirv_dash.config.policy import REPO_FORBIDDEN_TOP as REPO_FORBIDDEN_TOP
from zirv_dash.config.policy import TOP_ENV as TOP_ENV
from zirv_dash.config.policy import gate_env as gate_env
from zirv_dash.config.policy import handover_env as handover_env
from zirv_dash.config.policy import handover_hint as handover_hint
from zirv_dash.config.policy import repo_settable as repo_settable
from zirv_dash.config.policy import unknown_key_words as unknown_key_words
from zirv_dash.textcheck import UnencodableText, require_encodable

TYPE_CHECKING = False  # `typing` (with contextlib) is not imported for the mail limits
if TYPE_CHECKING:
    from typing import Any

    from zirv_dash.config.gate import AdapterGate as AdapterGate
    from zirv_dash.config.model import SECTION_MODELS as SECTION_MODELS
    from zirv_dash.config.model import DashSettings as DashSettings
    from zirv_dash.config.model import MailSettings as MailSettings
    from zirv_dash.config.model import Settings as Settings
    from zirv_dash.config.model import all_keys as all_keys
    from zirv_dash.config.model import env_var as env_var
    from zirv_dash.config.model import file_only as file_only
    from zirv_dash.config.model import operator_hint as operator_hint

_MODEL_NAMES = frozenset(
    {
        "SECTION_MODELS",
        "DashSettings",
        "MailSettings",
        "Settings",
        "all_keys",
        "env_var",
        "file_only",
        "operator_hint",
    }
)
"""Names re-exported from `config.model` on first use: importing pydantic costs
more than the whole of `zirv ctx send` may take, and only loading the settings
(or naming a model) needs it."""


def __getattr__(name: str) -> object:
    if name == "AdapterGate":  # a dataclass: `dataclasses` is not cheap to import
        from zirv_dash.config.gate import AdapterGate

        return AdapterGate
    if name in _MODEL_NAMES:
        from zirv_dash.config import model as settings_model

        return getattr(settings_model, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


CONFIG_FILE_CAP = 1024 * 1024
"""A configuration file larger than this is refused (nothing of ours needs more)."""
TABLE_SECTIONS = (
    "dash",
    "mail",
    "score",
    "pace",
    "fallback",
    "native",
    "pricing",
    "handover",
    "worker",
)
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
        whole = "*" in forbidden and section not in REPO_ALLOWED_EXCEPTIONS
        if section in data and whole and section not in MODELLED_SECTIONS:
            # A wholly forbidden free-form table: whatever its shape, the key
            # itself is refused (a modelled section names each key's own hint).
            raise ConfigError(
                f"{path}: `{section}` is repo-forbidden (a checkout may not set it); "
                f"{section_hint(section, data[section])}"
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
    from zirv_dash.config import model as settings_model

    model = settings_model.SECTION_MODELS.get(section)
    if model is not None and key not in model.model_fields:
        return f"{path}: {unknown_key_words(f'{section}.{key}', settings_model.all_keys())}"
    return (
        f"{path}: `{section}.{key}` is repo-forbidden (a checkout may not set it); "
        f"{settings_model.operator_hint(section, key)}"
    )


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
    """Load and validate every layer. Raises ConfigError with a fixable message.

    Plainly valid values (and the defaults) are taken as they are, without
    pydantic (`config.plain`); anything else is validated by the models."""
    from zirv_dash.config import plain as settings_plain

    layers = _file_layers(repo or paths.repo_root())
    sources = [name for name, _ in layers]
    merged: dict[str, Any] = {}
    for _, layer in layers:
        merged = _merge(merged, layer)
    if flags:
        merged = _merge(merged, flags)
        layers.append(("the command line", flags))
    plain = settings_plain.plain_sections(merged, os.environ)
    if plain is None:
        from zirv_dash.config.validation import model_sections

        sections = model_sections({n: _section(merged, n) for n in MODELLED_SECTIONS}, layers)
    handover = {
        str(agent): {str(k): str(v) for k, v in tiers.items()}
        for agent, tiers in _section(merged, "handover").items()
        if isinstance(tiers, Mapping)
    }
    for agent, tiers in _handover_env().items():
        handover.setdefault(agent, {}).update(tiers)
    worker = {str(k): str(v) for k, v in _section(merged, "worker").items()}
    prices = _pricing(_section(merged, "pricing"), layers)
    agent_value = os.environ.get(TOP_ENV["agent"]) or merged.get("agent")
    default_agent = str(agent_value) if agent_value else None
    if plain is not None:
        top = settings_plain.PlainSettings(
            plain, default_agent, handover, worker, sources, pricing=prices
        )
        return settings_plain.as_settings(top)
    from zirv_dash.config.model import Settings

    return Settings(
        agent=default_agent,
        dash=sections["dash"],
        mail=sections["mail"],
        session=sections["session"],
        score=sections["score"],
        pace=sections["pace"],
        fallback=sections["fallback"],
        native=sections["native"],
        mcp=sections["mcp"],
        pricing=prices,
        handover=handover,
        worker=worker,
        sources=sources,
    )


def _pricing(
    table: Mapping[str, Any], layers: list[tuple[str, Mapping[str, Any]]]
) -> dict[str, dict[str, float]]:
    """`[pricing]` checked as prices (`context.pricing.merge_overrides` says what a
    price is); ConfigError naming the key and the file it came from."""
    if not table:
        return {}  # nothing to check: the pricing table is not loaded for it
    from zirv_dash.context.pricing import PricingError, merge_overrides

    try:
        merge_overrides(table)
    except PricingError as exc:
        origin = next(
            (name for name, layer in reversed(layers) if isinstance(layer.get("pricing"), Mapping)),
            "the defaults",
        )
        raise ConfigError(f"invalid configuration: {exc}; from {origin}") from exc
    return {
        str(model): {str(k): float(v) for k, v in dict(entry).items()}
        for model, entry in table.items()
    }


def _file_layers(repo: Path) -> list[tuple[str, Mapping[str, Any]]]:
    """The non-empty file layers, lowest first, each checked (shape; the repo
    layer's forbidden keys) and named by its path."""
    operator_file = paths.operator_dir() / "ctx.toml"
    repo_file = repo / ".zirv" / "ctx.toml"
    layers: list[tuple[str, Mapping[str, Any]]] = []
    op = _read_toml(operator_file)
    check_shape(op, operator_file)
    if op:
        layers.append((str(operator_file), op))
    if repo_file.resolve() != operator_file.resolve():
        rp = _read_toml(repo_file)
        if rp:
            _check_repo_layer(rp, repo_file)
            layers.append((str(repo_file), rp))
    return layers


_PLAIN_COUNT = r"[0-9]{1,12}"
"""A plain count in an environment variable; compiled only when one is set."""


def mail_limits(repo: Path | None = None) -> tuple[int, int]:
    """(`mail.keep`, `mail.max_message_bytes`) exactly as `load_settings` would
    give them, without importing pydantic: `zirv ctx send` runs many times a
    minute and needs only these two. The same file layers are read with the same
    checks; a value this does not plainly accept (not a whole number, out of
    range, an odd environment variable) is handed to `load_settings`, so its
    error reads the same. Other sections are not validated here."""
    repo = repo or paths.repo_root()
    mail: dict[str, Any] = {}
    for _, layer in _file_layers(repo):
        mail.update(_section(layer, "mail"))
    values: list[int] = []
    for name in ("keep", "max_message_bytes"):
        _, default, low, high = table.SECTIONS["mail"][name]
        assert isinstance(low, int)  # both have a floor (the model's `ge`)
        value = _plain_limit(name, mail.get(name, default), low, high)
        if value is None:
            settings = load_settings(repo)
            return settings.mail.keep, settings.mail.max_message_bytes
        values.append(value)
    return values[0], values[1]


def _plain_limit(name: str, value: object, low: int, high: int | None) -> int | None:
    """`value` (or its environment variable, which outranks it) if it is plainly
    a whole number in range, else None."""
    var = table.ENV["mail"][name]
    # pydantic-settings matches names case-insensitively: any spelling counts.
    given = [v for k, v in os.environ.items() if k.upper() == var]
    if len(given) > 1:
        return None
    if given:
        if not re.fullmatch(_PLAIN_COUNT, given[0]):
            return None
        value = int(given[0])
    if type(value) is not int or value < low or (high is not None and value > high):
        return None
    return value


def _section(merged: Mapping[str, Any], name: str) -> dict[str, Any]:
    value = merged.get(name, {})
    return dict(value) if isinstance(value, Mapping) else {}


# --- adapter gate (.zirv/.settings.toml) -------------------------------------------


def load_adapter_gate(repo: Path | None = None, names: list[str] | None = None) -> AdapterGate:
    from zirv_dash.config.gate import AdapterGate

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
        for name, entry in agents.items():
            if not isinstance(entry, Mapping):
                raise ConfigError(f"{file}: `agents.{name}` must be a table (`[agents.{name}]`)")
            if "enabled" not in entry:
                continue
            value = entry["enabled"]
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
