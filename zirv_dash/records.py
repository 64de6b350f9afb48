"""On-disk protocol records: typed models, decoded one strict way, written one way.

Every record another process may have written (registry record, spawn request
and ack, roster, handover request and ack, mail headers) is a `Record`
subclass. `decode` is the only way in: bounded JSON parsing (depth, syntax) from
`safeio`, then msgspec conversion in strict mode (no `"1"` for `1`, no `1` for
`true`), with unknown fields ignored so a newer writer is still understood.
msgspec rather than pydantic because the small CLIs (`zirv ctx send`, hooks)
decode records too and must start fast: it imports in ~10 ms, pydantic models
in ~300 ms.
Every failure is one `RecordError` naming the source and the field. `encode`
and `write` are the only way out, through the one atomic writer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import msgspec

from zirv_dash import paths, safeio

R = TypeVar("R", bound="Record")


class RecordError(ValueError):
    """A record that cannot be used; `str()` names the source and the field."""


class Record(msgspec.Struct, frozen=True, kw_only=True):
    """Base of every on-disk record: strict types, unknown fields ignored, frozen."""


def validate(model: type[R], value: Any, *, source: str) -> R:
    """`value` (already parsed JSON) as a `model`, or RecordError naming the field."""
    if not isinstance(value, dict):
        raise RecordError(f"{source}: not a JSON object")
    try:
        return msgspec.convert(value, model, strict=True)
    except msgspec.ValidationError as exc:
        # msgspec says e.g. "Expected `int`, got `str` - at `$.count`".
        raise RecordError(f"{source}: {exc}") from exc
    except UnicodeError as exc:  # a lone surrogate in a key or a non-string field
        raise RecordError(f"{source}: text that is not valid UTF-8") from exc


def decode(model: type[R], text: str | bytes, *, source: str) -> R:
    """Parse and validate one record; every failure is a RecordError."""
    where = Path(source)
    try:
        if isinstance(text, bytes):
            text = safeio.decode_utf8(text, where)
        value = safeio.parse_json(text, where)
    except safeio.BadContent as exc:
        raise RecordError(str(exc)) from exc
    return validate(model, value, source=source)


def read(model: type[R], path: Path, cap: int) -> R | None:
    """The record at `path` (a state file: never through a symlink), or None if
    absent. Raises RecordError for bad content, OSError for unreadable files."""
    data = safeio.read_bounded(path, cap)
    if data is None:
        return None
    return decode(model, data, source=str(path))


def encode(record: Record) -> str:
    """One compact JSON line (the form every reader of ours accepts)."""
    return msgspec.json.encode(record).decode("utf-8") + "\n"


def write(path: Path, record: Record, mode: int = 0o600) -> None:
    """Write `record` atomically (temp file, fsync, rename) with private mode."""
    paths.atomic_write(path, encode(record), mode)
