"""The header lines of a message as an on-disk record (msgspec).

Kept apart from `format` so that storing and reading plain mail never
imports msgspec: `format.parse_message` builds its message directly when
every header is plainly valid and comes here only to word a refusal.
"""

from __future__ import annotations

from pathlib import Path

from zirv_dash import record_fields, records
from zirv_dash.record_fields import Int64


class MailHeaders(records.Record, frozen=True):
    """The header lines of a message, as a record (``From-session`` is
    `from_session`); a missing or empty header takes its default."""

    from_session: str = "unknown"
    from_agent: str = "unknown"
    to: str = "any"
    to_session: str | None = None
    sent: Int64 = 0


def validate(values: dict[str, str | int], path: Path) -> MailHeaders:
    """`values` as headers; `records.RecordError` naming the file and header if not."""
    return record_fields.validate(MailHeaders, values, source=str(path))
