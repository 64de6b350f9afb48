"""The settings when every value is plainly valid, built without pydantic.

Importing pydantic and pydantic-settings and building the section models costs
the dashboard's first frame more than a fifth of its start-up, and nearly every
launch has nothing for them to decide: no configuration file (or one whose
values are plainly right) and no `ZIRV_CTX_DASH_*`-style variable. For that
case `plain_sections` gives the sections as `PlainSection`s, with exactly the
values the models would give. A value that is not plain (a wrong type, out of
range, an unknown key, any environment variable a model reads) gives None, and
`config.load_settings` validates with the models as always, so every error reads
as it did. What each field is (kind, default, bounds, variables) comes from the
model's generated copy (`config/table.py`); `tests/test_settings_plain.py` holds
what this takes to what the models make.
"""

from __future__ import annotations

from collections.abc import Mapping

from zirv_dash.config.table import BOOL_WORDS, ENV_NAMES, LOWERED, SECTIONS

TYPE_CHECKING = False  # `typing` is for type checkers only
if TYPE_CHECKING:
    from typing import Any

    from zirv_dash.config.model import Settings


class PlainSection:
    """One section's values, read and written as attributes like the model's."""

    def __init__(self, section: str, values: dict[str, object]) -> None:
        self.__dict__.update(values)
        self._section = section

    def model_dump(self) -> dict[str, object]:
        """The values by field name, as the model's `model_dump()` gives them."""
        return {name: _copy(getattr(self, name)) for name in SECTIONS[self._section]}

    @property
    def animated(self) -> bool:
        """Spinners advance (`motion = "full"`); false under reduced motion."""
        return bool(self.__dict__.get("motion") == "full")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlainSection):
            return NotImplemented
        return self._section == other._section and self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]  # mutable, like the model

    def __repr__(self) -> str:
        fields = " ".join(f"{k}={v!r}" for k, v in self.model_dump().items())
        return f"PlainSection[{self._section}]({fields})"


def _copy(value: object) -> object:
    return list(value) if isinstance(value, list) else value


class PlainSettings:
    """`settings_model.Settings` with plain sections: the same attributes."""

    def __init__(
        self,
        sections: dict[str, PlainSection],
        agent: str | None,
        handover: dict[str, dict[str, str]],
        worker: dict[str, str],
        sources: list[str],
        pricing: dict[str, dict[str, float]] | None = None,
    ) -> None:
        self.agent = agent
        self.dash = sections["dash"]
        self.mail = sections["mail"]
        self.session = sections["session"]
        self.score = sections["score"]
        self.pace = sections["pace"]
        self.fallback = sections["fallback"]
        self.native = sections["native"]
        self.mcp = sections["mcp"]
        self.pricing = pricing or {}
        self.handover = handover
        self.worker = worker
        self.sources = sources

    def model_dump(self) -> dict[str, object]:
        """The values by field name, as `Settings.model_dump()` gives them."""
        return {
            "agent": self.agent,
            "dash": self.dash.model_dump(),
            "mail": self.mail.model_dump(),
            "session": self.session.model_dump(),
            "score": self.score.model_dump(),
            "pace": self.pace.model_dump(),
            "fallback": self.fallback.model_dump(),
            "native": self.native.model_dump(),
            "mcp": self.mcp.model_dump(),
            "pricing": {model: dict(prices) for model, prices in self.pricing.items()},
            "handover": {agent: dict(tiers) for agent, tiers in self.handover.items()},
            "worker": dict(self.worker),
            "sources": list(self.sources),
        }

    def __repr__(self) -> str:
        return f"PlainSettings({self.model_dump()!r})"


def as_settings(plain: PlainSettings) -> Settings:
    """`plain` where a `Settings` is expected: it has every attribute a reader of
    the settings uses (`tests/test_settings_plain.py` holds it to the models), but
    it is not a pydantic model, which only type checkers would notice."""
    return plain  # type: ignore[return-value]


def plain_sections(
    merged: Mapping[str, Any], environ: Mapping[str, str]
) -> dict[str, PlainSection] | None:
    """Every modelled section of `merged` as the models would validate it, or
    None when a model has something to decide (or to refuse)."""
    names = {key.upper() for key in environ}
    out: dict[str, PlainSection] = {}
    for section, fields in SECTIONS.items():
        if names & ENV_NAMES[section]:
            return None
        table = merged.get(section, {})
        if not isinstance(table, Mapping) or not set(table) <= set(fields):
            return None
        values: dict[str, object] = {}
        for name, (kind, default, _, _) in fields.items():
            if name not in table:
                values[name] = list(default) if kind == "strs" else default  # type: ignore[call-overload]
                continue
            value = plain_value(section, name, table[name])
            if value is None:
                return None
            values[name] = value
        out[section] = PlainSection(section, values)
    return out


def plain_value(section: str, name: str, value: object) -> object:
    """`value` for `section.name` as the model stores it when it is plainly
    valid, else None."""
    kind, _, low, high = SECTIONS[section][name]
    if kind == "bool":
        return value if type(value) is bool else None
    if kind == "int":
        if type(value) is not int:
            return None
        if (low is not None and value < low) or (high is not None and value > high):
            return None
        return value
    if kind == "float":
        if type(value) not in (int, float):
            return None
        number = float(value)  # type: ignore[arg-type]
        if (low is not None and number < low) or (high is not None and number > high):
            return None
        return number
    if kind == "str":
        return value if type(value) is str else None
    if kind == "strs":
        if type(value) is not list or any(type(item) is not str for item in value):
            return None
        return list(value)
    if name in LOWERED[section]:
        if type(value) is bool and name in BOOL_WORDS[section]:
            value = "true" if value else "false"
        if type(value) is str:
            value = value.lower()
    return value if type(value) is str and value in kind else None
