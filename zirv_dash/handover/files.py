"""Handover request and ack files: `<state>/sessions/<short>.handover-req` / `.handover-ack`.

Upstream JSON, written atomically and private, decoded by the one strict record
decoder. A file is claimed by rename and then deleted, so of two readers racing
for it only one acts on it; a claimed file that is garbage is removed and
reported (naming the file and the field), never acted on — the sender gets a
refusal ack that says why.
"""

from __future__ import annotations

import os
import re
import stat
import uuid
from pathlib import Path
from typing import Annotated, Any, TypeVar

import msgspec

from zirv_dash import paths, record_fields, records, safeio
from zirv_dash.record_fields import Int64
from zirv_dash.textcheck import UnencodableText, require_encodable

MAX_STATE_FILE_BYTES = 64 * 1024

R = TypeVar("R", bound=records.Record)


class HandoverError(Exception):
    """Base class; every message names what failed and what to do."""


class HandoverRefused(HandoverError):
    """The swap may not happen (unknown, disabled or missing harness, bad model)."""


class HandoverFileError(HandoverError):
    """A request/ack file that is not valid JSON of the expected shape (it was removed)."""


class HandoverRecordError(HandoverError, ValueError):
    """A decoded request/ack of the wrong shape, or with a string that cannot be
    used (a lone surrogate, a NUL); the message names the field. A ValueError too,
    so callers that catch ValueError keep working."""


class HandoverRequest(records.Record, frozen=True, kw_only=False):
    """Inventory §9.1/§9.2 `HandoverRequest` (upstream field names)."""

    target_agent: Annotated[str, msgspec.Meta(min_length=1)]
    target_model: str | None = None
    force: bool = False
    requested_at: Int64 = 0
    interactive: bool = False
    automatic: bool = False
    generation: Int64 | None = None
    structural_only: bool = False
    resume_session: str | None = None
    target_runtime: str | None = None
    target_route: str | None = None

    def to_json(self) -> str:
        return records.encode(self)

    @classmethod
    def from_dict(cls, data: Any) -> HandoverRequest:
        """Decode an untrusted request. Raises HandoverRecordError only."""
        return _decode(cls, data)


class HandoverAck(records.Record, frozen=True, kw_only=False):
    """`{ok, reason, from_agent, from_model, to_agent, to_model, stored, failed}`.

    `stored` is true when the dashboard accepted the request but queued it for the
    pane's next idle boundary instead of performing it at once.
    """

    ok: bool
    reason: str = ""
    from_agent: str | None = None
    from_model: str | None = None
    to_agent: str | None = None
    to_model: str | None = None
    stored: bool = False
    failed: bool = False
    """The successor started and failed (it exited, was not logged in, never
    reached its prompt): the original was kept and runs on."""

    def to_json(self) -> str:
        return records.encode(self)

    @classmethod
    def from_dict(cls, data: Any) -> HandoverAck:
        """Decode an untrusted ack. Raises HandoverRecordError only."""
        return _decode(cls, data)


def _decode(model: type[R], data: Any) -> R:
    if isinstance(data, dict):
        # Every string the record carries (keys too) must be usable text: a lone
        # surrogate would otherwise reach a successor's argv and crash the fork.
        try:
            require_encodable(data)
        except UnencodableText as exc:
            raise HandoverRecordError(str(exc)) from None
    try:
        return record_fields.validate(model, _whole(data), source="record")
    except record_fields.FieldError as exc:
        raise HandoverRecordError(exc.detail) from None


def _whole(data: Any) -> Any:
    # Upstream writers may send a time or generation as 5.0.
    return record_fields.whole_numbers(data, ("requested_at", "generation"))


# `\Z`, not `$`: `$` would let "abc\n" through as a short id.
_SHORT = re.compile(r"\A[A-Za-z0-9]{1,64}\Z")


def _checked_short(short: str) -> str:
    if not _SHORT.match(short):
        raise ValueError(f"invalid session short id {short!r} (expected ASCII letters/digits)")
    return short


def sessions_dir() -> Path:
    return paths.ensure_private_dir(paths.state_dir() / "sessions")


def request_path(short: str) -> Path:
    return sessions_dir() / f"{_checked_short(short)}.handover-req"


def ack_path(short: str) -> Path:
    return sessions_dir() / f"{_checked_short(short)}.handover-ack"


def write_request(short: str, request: HandoverRequest) -> Path:
    path = request_path(short)
    records.write(path, request)
    return path


def write_ack(short: str, ack: HandoverAck) -> Path:
    path = ack_path(short)
    records.write(path, ack)
    return path


def pending_request_shorts() -> list[str]:
    """Shorts with a request file waiting (the dashboard claims those it hosts)."""
    suffix = ".handover-req"
    return sorted(
        p.name[: -len(suffix)]
        for p in sessions_dir().glob(f"*{suffix}")
        if _SHORT.match(p.name[: -len(suffix)])
    )


def _claim(path: Path) -> bytes | None:
    """Take `path` (rename, read, delete) and return its bytes, or None if absent.

    The rename makes the claim exclusive: of two processes racing for one file only
    one gets it.
    """
    claimed = path.with_name(f".{path.name}.claim-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        os.rename(path, claimed)
    except FileNotFoundError:
        return None
    try:
        raw = _read_regular(claimed, path)
    finally:
        try:
            os.unlink(claimed)
        except OSError:
            pass
    if len(raw) > MAX_STATE_FILE_BYTES:
        raise HandoverFileError(f"{path}: larger than {MAX_STATE_FILE_BYTES} bytes; removed")
    return raw


def _read_regular(claimed: Path, shown: Path) -> bytes:
    """At most MAX_STATE_FILE_BYTES + 1 bytes of a regular file; a symlink, FIFO
    or device is refused without blocking or following it."""
    try:
        fd = os.open(claimed, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise HandoverFileError(f"{shown}: cannot be opened ({exc.strerror}); removed") from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise HandoverFileError(f"{shown}: not a regular file; removed")
        chunks: list[bytes] = []
        total = 0
        while total <= MAX_STATE_FILE_BYTES:
            chunk = os.read(fd, MAX_STATE_FILE_BYTES + 1 - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _claim_record(path: Path, model: type[R], what: str) -> R | None:
    raw = _claim(path)
    if raw is None:
        return None
    try:
        value = safeio.parse_json(safeio.decode_utf8(raw, path), path)
    except safeio.BadContent as exc:
        raise HandoverFileError(f"{exc}; removed") from exc
    try:
        return _decode(model, value)
    except HandoverRecordError as exc:
        raise HandoverFileError(f"{path}: malformed {what} ({exc}); removed") from exc


def claim_request(short: str) -> HandoverRequest | None:
    """Claim `<short>.handover-req`: None if there is none; HandoverFileError (file
    removed) if it is garbage — answer that with a refusal ack."""
    return _claim_record(request_path(short), HandoverRequest, "handover request")


def claim_ack(short: str) -> HandoverAck | None:
    return _claim_record(ack_path(short), HandoverAck, "handover ack")


def withdraw_request(short: str) -> bool:
    """Remove an unclaimed request (the CLI gave up waiting). True if one was removed."""
    try:
        request_path(short).unlink()
    except FileNotFoundError:
        return False
    return True


def clear_ack(short: str) -> None:
    """Remove a stale ack before a new request, so it is not mistaken for the answer."""
    try:
        ack_path(short).unlink()
    except FileNotFoundError:
        pass
