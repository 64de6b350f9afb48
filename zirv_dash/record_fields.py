"""Field types and plain error wording shared by the on-disk record types.

`records.validate` is the one strict decoder; this module only adds what every
record of ours wants on top of it: bounded integer types (a pid or a count of
2**70 must be refused at the door, not crash `os.kill` later) and an error
message that names the field in words an operator reads (``field 'pid' is
missing``) rather than msgspec's JSON-path notation.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, TypeVar

import msgspec

from zirv_dash import records

R = TypeVar("R", bound=records.Record)

INT64_MAX = 2**63 - 1
Int64 = Annotated[int, msgspec.Meta(ge=-INT64_MAX, le=INT64_MAX)]
"""Any integer a record carries: within 64 bits."""
Count = Annotated[int, msgspec.Meta(ge=0, le=INT64_MAX)]
"""A non-negative integer (budgets, generations)."""
Pid = Annotated[int, msgspec.Meta(ge=1, le=2**31 - 1)]
"""A process id: positive and small enough for `os.kill`."""


class FieldError(records.RecordError):
    """A record that failed validation: `source` is the file (or a label),
    `detail` the problem without it, `field` the field's name when one is at fault."""

    def __init__(self, source: str, detail: str, field: str | None = None) -> None:
        super().__init__(f"{source}: {detail}")
        self.source = source
        self.detail = detail
        self.field = field


_MISSING = re.compile(r"^Object missing required field `([^`]+)`(?: - at `\$(.*)`)?$")
_EXPECTED = re.compile(r"^Expected `([^`]+)`, got `([^`]+)` - at `\$(.*)`$")
_BOUND = re.compile(r"^Expected `([^`]+)` ([^,]+?) - at `\$(.*)`$")
_ELSEWHERE = re.compile(r"^(.*) - at `\$(.*)`$", re.S)
_KINDS = {
    "int": "a number",
    "float": "a number",
    "str": "a string",
    "bool": "true/false",
    "null": "null",
    "object": "an object",
    "array": "a list",
}


def _field_name(path: str, leaf: str | None = None) -> str:
    name = path.lstrip(".")
    if leaf is not None:
        name = f"{name}.{leaf}" if name else leaf
    return name


def whole_numbers(value: Any, names: tuple[str, ...]) -> Any:
    """`value` with the named fields' integral floats (``5.0``) as ints, for
    records whose upstream writers may emit them; anything else is untouched
    (a ``5.5`` still fails validation, naming the field)."""
    if not isinstance(value, dict):
        return value
    out = dict(value)
    for name in names:
        item = out.get(name)
        if isinstance(item, float) and item.is_integer() and abs(item) <= INT64_MAX:
            out[name] = int(item)
    return out


def _kind(expected: str) -> str:
    parts = [_KINDS.get(part.strip(), part.strip()) for part in expected.split("|")]
    return " or ".join(dict.fromkeys(parts))


def reword(message: str) -> tuple[str, str | None]:
    """(plain detail, field name or None) for a msgspec validation message."""
    if match := _MISSING.match(message):
        field = _field_name(match.group(2) or "", match.group(1))
        return f"field {field!r} is missing", field
    if match := _EXPECTED.match(message):
        field = _field_name(match.group(3))
        got = _KINDS.get(match.group(2), match.group(2))
        if match.group(2) == "float" and "int" in match.group(1):
            got = "a fraction"
        return f"field {field!r} is not {_kind(match.group(1))} (got {got})", field
    if match := _BOUND.match(message):
        field = _field_name(match.group(3))
        return f"field {field!r} is not {_kind(match.group(1))} {match.group(2)}", field
    if match := _ELSEWHERE.match(message):
        field = _field_name(match.group(2))
        if field:
            return f"field {field!r}: {match.group(1)}", field
        return match.group(1), None
    return message, None


def _reworded(exc: records.RecordError, source: str) -> FieldError:
    cause = exc.__cause__
    if isinstance(cause, msgspec.ValidationError):
        detail, field = reword(str(cause))
        return FieldError(source, detail, field)
    return FieldError(source, str(exc).removeprefix(f"{source}: "))


def validate(model: type[R], value: Any, *, source: str) -> R:
    """`records.validate`, its failure reworded as a FieldError naming the field."""
    try:
        return records.validate(model, value, source=source)
    except records.RecordError as exc:
        raise _reworded(exc, source) from exc
    except UnicodeEncodeError as exc:
        # msgspec encodes each key to look its field up: a key with a lone
        # surrogate (legal in JSON as "\ud800") fails there.
        raise FieldError(source, f"a field name is not valid UTF-8 text ({exc.reason})") from exc


def decode(model: type[R], text: str | bytes, *, source: str) -> R:
    """`records.decode`, its failure reworded as a FieldError naming the field."""
    try:
        return records.decode(model, text, source=source)
    except records.RecordError as exc:
        raise _reworded(exc, source) from exc
