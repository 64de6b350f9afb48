"""One registry record, field for field the upstream JSON (`registry` stores them)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import msgspec

from zirv_dash import paths, record_fields, records
from zirv_dash.panes import procinfo
from zirv_dash.record_fields import Int64, Pid
from zirv_dash.textcheck import UnencodableText, require_encodable


class SessionRecord(records.Record, frozen=True, kw_only=True):
    """One registry record, field for field the upstream JSON."""

    session: Annotated[str, msgspec.Meta(min_length=1)]
    short: str
    agent: str = "unknown"
    repo: str = ""
    repo_slug: str = ""
    verb: str = "unknown"
    pid: Pid
    started_at: Int64 = 0
    reachable: bool = True
    owner_pid: Pid | None = None
    role: str | None = None
    start_time: float | None = None
    runtime: str = "harness"
    extra: dict[str, Any] = msgspec.field(default_factory=dict)
    """Fields this version does not know (kept so a rewrite never drops them);
    written back at the top level, never as an `extra` key."""

    @classmethod
    def new(
        cls,
        session: str,
        agent: str,
        repo: Path,
        verb: str,
        pid: int,
        *,
        reachable: bool = True,
        owner_pid: int | None = None,
        role: str | None = None,
        runtime: str = "harness",
    ) -> SessionRecord:
        """A record for a process running now (short id, slug and times derived)."""
        return cls(
            session=session,
            short=paths.short_id(session),
            agent=agent,
            repo=str(repo),
            repo_slug=paths.repo_slug(repo),
            verb=verb,
            pid=pid,
            started_at=int(time.time()),
            reachable=reachable,
            owner_pid=owner_pid,
            role=role,
            start_time=procinfo.process_start_time(pid),
            runtime=runtime,
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        known = msgspec.structs.asdict(self)
        del known["extra"]
        # Optional upstream fields are omitted when unset, as upstream does.
        data.update((k, v) for k, v in known.items() if v is not None or k not in _OPTIONAL)
        return data

    @classmethod
    def from_json(cls, data: object, source: str = "record") -> SessionRecord:
        """Decode an untrusted record; RecordError names `source` and the field."""
        if not isinstance(data, dict):
            raise record_fields.FieldError(source, "not a JSON object")
        try:
            # Every string (unknown fields too: a rewrite keeps them) must be
            # usable as an argument or path: no lone surrogates, no NUL.
            require_encodable(data, "record")
        except UnencodableText as exc:
            raise record_fields.FieldError(source, str(exc)) from exc
        known = {k: v for k, v in data.items() if k in _KNOWN_FIELDS}
        extra = {k: v for k, v in data.items() if k not in _KNOWN_FIELDS}
        if known.get("short") is None and isinstance(known.get("session"), str):
            known["short"] = paths.short_id(known["session"])
        record = record_fields.validate(cls, {**known, "extra": extra}, source=source)
        if not valid_short(record.short):
            raise record_fields.FieldError(
                source, f"field 'short' is not a short id: {record.short!r}", "short"
            )
        return record


_KNOWN_FIELDS = frozenset(f for f in SessionRecord.__struct_fields__ if f != "extra")
_OPTIONAL = frozenset({"owner_pid", "role", "start_time"})


def valid_short(short: str) -> bool:
    """A short id as records carry it: 1-64 ASCII letters and digits."""
    return 0 < len(short) <= 64 and short.isascii() and short.isalnum()
