"""The modelled sections validated by pydantic, each refusal named by key and origin.

Only loaded when a value is not plainly valid (`config.plain`): importing
pydantic is most of what loading the settings would otherwise cost.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic import AliasChoices, ValidationError
from pydantic_settings import BaseSettings, SettingsError

from zirv_dash.config.env_source import EnvListError
from zirv_dash.config.errors import ConfigError
from zirv_dash.config.model import SECTION_MODELS, env_var

Layers = list[tuple[str, Mapping[str, Any]]]
"""The layers that were merged, lowest first, each named by where it came from."""


def model_sections(tables: Mapping[str, dict[str, Any]], layers: Layers) -> dict[str, Any]:
    """Each modelled section (its merged table in `tables`) validated by its
    settings model; ConfigError naming each bad key and where it came from."""
    sections: dict[str, Any] = {}
    for name, model in SECTION_MODELS.items():
        try:
            sections[name] = model(**tables.get(name, {}))
        except ValidationError as exc:
            raise ConfigError(describe_validation(exc, name, layers)) from exc
        except SettingsError as exc:
            # An environment value the source could not read at all (a list
            # variable that is not JSON): its own words name the variable.
            cause = exc.__cause__
            words = str(cause) if isinstance(cause, EnvListError) else str(exc)
            raise ConfigError(f"invalid configuration: {words}") from exc
    return sections


def describe_validation(exc: ValidationError, section: str, layers: Layers) -> str:
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


def _origin(section: str, name: str, layers: Layers) -> str:
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
