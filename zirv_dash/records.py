"""On-disk protocol records: typed models, decoded one strict way, written one way.

Every record another process may have written (registry record, spawn request
and ack, roster, handover request and ack, mail headers) is a `Record`
subclass. `decode` is the only way in: bounded JSON parsing (depth, syntax) from
`safeio`, then pydantic validation in strict mode (no `"1"` for `1`, no `1` for
`true`), with unknown fields ignored so a newer writer is still understood.
Every failure is one `RecordError` naming the source and the field. `encode`
and `write` are the only way out, through the one atomic writer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from zirv_dash import paths, safeio

R = TypeVar("R", bound="Record")


class RecordError(ValueError):
    """A record that cannot be used; `str()` names the source and the field."""


class Record(BaseModel):
    """Base of every on-disk record: strict types, unknown fields ignored, frozen."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


def _describe(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "record"
    return f"{where}: {first.get('msg', 'invalid')}"


def validate(model: type[R], value: Any, *, source: str) -> R:
    """`value` (already parsed JSON) as a `model`, or RecordError naming the field."""
    if not isinstance(value, dict):
        raise RecordError(f"{source}: not a JSON object")
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise RecordError(f"{source}: {_describe(exc)}") from exc


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
    return record.model_dump_json(exclude_none=False) + "\n"


def write(path: Path, record: Record, mode: int = 0o600) -> None:
    """Write `record` atomically (temp file, fsync, rename) with private mode."""
    paths.atomic_write(path, encode(record), mode)
