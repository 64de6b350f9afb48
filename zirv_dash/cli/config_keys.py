"""Keys and values of `zirv ctx config`, checked against the settings model.

A key is `agent`, `<section>.<field>` of a settings model, or
`handover.<harness>.<tier>`; a value is read as TOML (`4`, `true`, `["/a"]`) for
typed fields and as plain text for text fields, then validated by the model
itself (a handover model by resolving it as a handover would).
"""

from __future__ import annotations

import json
import tomllib
import types
import typing
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from zirv_dash.config import layers as config
from zirv_dash.textcheck import text_problem


class Refused(Exception):
    """A request that cannot be carried out; the message says why and what to do."""


@dataclass(frozen=True)
class Key:
    """A settable key: `agent`, `<section>.<field>` or `handover.<agent>.<tier>`."""

    parts: tuple[str, ...]

    @property
    def text(self) -> str:
        return ".".join(self.parts)

    @property
    def env(self) -> str:
        if len(self.parts) == 1:
            return config.TOP_ENV[self.parts[0]]
        if self.parts[0] == "handover":
            return config.handover_env(self.parts[1], self.parts[2])
        return config.env_var(self.parts[0], self.parts[1])

    def field_type(self) -> Any:
        if len(self.parts) == 2:
            model = config.SECTION_MODELS[self.parts[0]]
            return model.model_fields[self.parts[1]].annotation
        return str

    @property
    def is_list(self) -> bool:
        return typing.get_origin(self.field_type()) is list


def handover_keys() -> list[str]:
    from zirv_dash.harnesses import adapters, catalogue

    return [
        f"handover.{agent}.{tier}"
        for agent in adapters.names()
        if catalogue.takes_model(agent)
        for tier in catalogue.TIERS
    ]


def parse_key(text: str) -> Key:
    """A Key, or Refused naming the close known keys."""
    parts = tuple(text.split("."))
    if len(parts) == 1 and parts[0] in config.TOP_ENV:
        return Key(parts)
    if len(parts) == 2 and parts[0] in config.SECTION_MODELS:
        if parts[1] in config.SECTION_MODELS[parts[0]].model_fields:
            return Key(parts)
    if len(parts) == 3 and parts[0] == "handover":
        _check_handover_key(parts[1], parts[2])
        return Key(parts)
    foreign = config.FOREIGN_SECTIONS.get(parts[0])
    if foreign is not None:
        raise Refused(f"unknown key `{text}`: {foreign}; an entry in the file is ignored")
    known = config.all_keys() + (handover_keys() if parts[0] == "handover" else [])
    raise Refused(config.unknown_key_words(text, known))


def _check_handover_key(agent: str, tier: str) -> None:
    from zirv_dash.harnesses import adapters, catalogue

    if adapters.get(agent) is None:
        raise Refused(f"unknown harness {agent!r}; known harnesses: {', '.join(adapters.names())}")
    if tier not in catalogue.TIERS:
        raise Refused(f"unknown tier {tier!r}; tiers: {', '.join(catalogue.TIERS)}")
    if not catalogue.takes_model(agent):
        raise Refused(
            f"{agent} has no verified model flag, so zirv cannot pass it a model; "
            f"handover.{agent}.{tier} has no effect"
        )


# --- values ------------------------------------------------------------------------


def _takes_text(annotation: Any) -> bool:
    """Is a plain string a value of this type (so VALUE is used as typed)?"""
    if annotation is str:
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return all(isinstance(a, str) for a in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return any(_takes_text(a) for a in typing.get_args(annotation))
    return False


def _literal(text: str) -> object:
    """VALUE read as a TOML value (`4`, `true`, `["/a"]`), else the text itself
    (the model's lax validation still reads `4` from "4")."""
    if "\n" in text or "\r" in text:
        return text
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def validate(key: Key, raw: object) -> object:
    """The value as the settings model accepts it (what gets written), or Refused
    with the model's own words."""
    if isinstance(raw, str):
        problem = text_problem(raw)
        if problem:
            raise Refused(f"the value for {key.text} {problem}")
    if key.parts[0] == "handover":
        return _validate_model(key, str(raw))
    if len(key.parts) == 1:
        return _validate_agent(str(raw))
    section, name = key.parts
    model = config.file_only(config.SECTION_MODELS[section])
    try:
        given: dict[str, Any] = {name: raw}
        instance = model(**given)
    except ValidationError as exc:
        words = "; ".join(str(e.get("msg", "invalid")) for e in exc.errors())
        raise Refused(f"{key.text}: {words} (got {raw!r})") from exc
    value: object = getattr(instance, name)
    return list(value) if isinstance(value, list) else value


def _validate_agent(value: str) -> str:
    from zirv_dash.harnesses import adapters

    if adapters.get(value) is None:
        raise Refused(f"unknown harness {value!r}; known harnesses: {', '.join(adapters.names())}")
    return value


def _validate_model(key: Key, value: str) -> str:
    """A handover override must resolve as one would at handover time."""
    from zirv_dash.harnesses import catalogue

    _, agent, tier = key.parts
    trial = config.Settings(handover={agent: {tier: value}})
    try:
        catalogue.resolve_model(agent, tier, trial)
    except catalogue.ResolveError as exc:
        raise Refused(str(exc)) from exc
    return value.strip()


def value_of(key: Key, text: str) -> object:
    if _takes_text(key.field_type()):
        # A TOML-quoted string (`'"tmux"'`) means its content, as in the file.
        quoted = _literal(text) if text[:1] in ("'", '"') else None
        raw: object = quoted if isinstance(quoted, str) else text
    else:
        raw = _literal(text)
    return validate(key, raw)


def render(value: object) -> str:
    """A value as TOML would write it (`9`, `true`, `"claude"`, `["/a"]`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(value, ensure_ascii=False)
