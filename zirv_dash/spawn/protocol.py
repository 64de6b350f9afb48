"""The spawn request and ack records (inventory §5.3, §5.4) and their one decoder.

Both are `records.Record` structs. A request is decoded strictly, in one way:
`null` for a field with a default means that default, fields are checked in
the record's declared order (missing required fields first, then each field's
type and range), then every string is checked for what `execve` cannot take.
A msgspec failure is turned into the refusal wording requesters have always
seen ("field `depth` is out of range (0..255)"), derived from the record's own
type information, never from a second hand-written checker.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, TypeVar

import msgspec
import msgspec.inspect as mi

from zirv_dash import records
from zirv_dash.textcheck import UnencodableText, require_encodable, text_problem

MAX_REQUEST_BYTES = 256 * 1024
MAX_ACK_BYTES = 64 * 1024
SYSTEM_PROMPT_CAP = 16 * 1024
ACK_WARNINGS_MAX = 32

# `\A…\Z`, never `^…$`: `$` also matches before a trailing newline, so
# "abc\n" would pass a `$`-anchored check and reach argv or a path.
SHORT_RE = re.compile(r"\A[A-Za-z0-9]{1,64}\Z")

Role = Literal["orchestrator", "worker", "sub-orchestrator"]

U8 = Annotated[int, msgspec.Meta(ge=0, le=2**8 - 1)]
U32 = Annotated[int, msgspec.Meta(ge=0, le=2**32 - 1)]
U64 = Annotated[int, msgspec.Meta(ge=0, extra={"le": 2**64 - 1})]
"""Upstream's u64. msgspec bounds only fit int64, so the top is declared as
metadata and checked by `decode_record` from the record's type information."""

S = TypeVar("S", bound=records.Record)


def show(value: object, limit: int = 160) -> str:
    """Untrusted text made safe for a log line or an ack: control characters
    escaped, length capped."""
    text = value if isinstance(value, str) else repr(value)
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    joined = "".join(out)
    return joined if len(joined) <= limit else joined[: limit - 1] + "…"


class RequestError(records.RecordError):
    """An untrusted request that cannot be used; the message is the refusal reason."""


class SpawnRequest(records.Record, frozen=True, omit_defaults=True):
    """Every field of upstream `SpawnRequest` (inventory §5.3), with its default.

    The wire form (`to_json`, `records.encode`) omits defaults, so upstream
    readers never see a zirv-dash extension unless it is asked for."""

    agent: str
    prompt: str
    cwd: str
    requested_by: str
    name: str | None = None
    kill: str | None = None
    model: str | None = None
    interactive: bool = False
    role: str | None = None
    parent_session: str | None = None
    work_group_id: str | None = None
    budget_tokens: U64 | None = None
    force: bool = False
    workdir: str | None = None
    mode: Literal["read-only", "writing"] = "writing"
    owns_workdir: bool = False
    result_schema: str | None = None
    envelope: str | None = None
    path_scope: list[str] = msgspec.field(default_factory=list)
    no_network: bool = False
    depth: U8 | None = None
    max_restarts: U32 | None = None
    timeout_secs: U64 | None = None
    max_tool_calls: U32 | None = None
    flags: list[str] = msgspec.field(default_factory=list)
    system_prompt: str | None = None
    parent_seat_generation: U64 | None = None
    worktree: bool = False
    """zirv-dash extension: run the pane in its own git worktree (branch `zirv/<short>`)."""
    handle: str | None = None
    """zirv-dash extension: the delegation handle the requester minted (its record
    must exist in the dashboard's repository, else the dashboard mints its own)."""
    resume: str | None = None
    """zirv-dash extension: a follow-up of an ended claude worker resumes this
    earlier attempt's conversation; only from the delegating pane's own channel,
    only a session of that handle's attempts whose transcript exists."""

    @classmethod
    def from_json(cls, obj: object) -> SpawnRequest:
        """Strictly decode an untrusted JSON value. Raises RequestError."""
        return decode_request(obj)

    def to_json(self) -> dict[str, Any]:
        """Wire form: defaults and nulls omitted (upstream fills them back in)."""
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out


class KillRequest(records.Record, frozen=True):
    """A request that only names a pane to stop (no `agent` and `prompt`)."""

    kill: str


class SpawnAck(records.Record, frozen=True):
    """Upstream `SpawnAck` (inventory §5.4)."""

    ok: bool
    short: str | None = None
    reason: str | None = None
    retryable: bool = False
    budget_exhausted: bool = False
    capability_warnings: list[dict[str, str]] = msgspec.field(default_factory=list)
    handle: str | None = None
    """zirv-dash extension: the delegation handle the pane runs under."""

    @classmethod
    def spawned(
        cls, short: str, warnings: Sequence[Mapping[str, str]] = (), handle: str | None = None
    ) -> SpawnAck:
        return cls(
            ok=True, short=short, capability_warnings=[dict(w) for w in warnings], handle=handle
        )

    @classmethod
    def refused(cls, reason: str, retryable: bool = False) -> SpawnAck:
        return cls(ok=False, reason=reason, retryable=retryable)

    def to_json(self) -> dict[str, Any]:
        """Wire form: every field, `capability_warnings` only when there are some."""
        out: dict[str, Any] = msgspec.to_builtins(self)
        if not self.capability_warnings:
            del out["capability_warnings"]
        if self.handle is None:
            del out["handle"]
        return out

    @classmethod
    def from_json(cls, obj: object) -> SpawnAck | None:
        """The ack a dashboard wrote, or None when it is unusable. Never raises."""
        return decode_ack(obj)


# --- the one decoder --------------------------------------------------------------------


def decode_record(model: type[S], obj: object, *, what: str, source: str) -> S:
    """`obj` (parsed JSON) as a `model`, strictly, or RequestError in the wording
    a requester reads. `what` names the record in a refusal ("request")."""
    if not isinstance(obj, dict):
        raise RequestError(f"{what} must be a JSON object, not {json_type(obj)}")
    for name, required in _layout(model):
        if required and name not in obj:
            raise RequestError(f"{what} is missing the required field `{name}`")
    ordered = _known(model, obj)
    try:
        decoded = records.validate(model, ordered, source=source)
    except records.RecordError as exc:
        raise RequestError(_field_error(model, exc, ordered)) from None
    except UnicodeError:
        # msgspec encodes a string it is given for a non-string field, and a
        # lone surrogate makes that raise: the text check below names the field.
        _require_text(ordered)
        raise RequestError(f"{what} carries text that is not valid UTF-8") from None
    for info, top in _wide_bounds(model):
        value = ordered.get(info.name)
        if isinstance(value, int) and value > top:
            raise RequestError(_range_error(info.name, info.type))
    _require_text(ordered)
    return decoded


def _require_text(obj: Mapping[str, Any]) -> None:
    """Every string (in lists too) is one `execve`, a path or a header can take."""
    try:
        require_encodable(obj)
    except UnencodableText as exc:
        raise RequestError(str(exc)) from None


_AT = re.compile(r"at `\$\.([A-Za-z_][A-Za-z0-9_]*)")


def _field_error(
    model: type[records.Record], exc: records.RecordError, obj: Mapping[str, Any]
) -> str:
    """The refusal for msgspec's complaint, said from the field's declared type."""
    cause = str(exc.__cause__ or exc)
    found = _AT.search(cause)
    if found is None or found.group(1) not in obj:
        return show(cause, 200)
    name = found.group(1)
    value = obj[name]
    info = next(f for f in _type_info(model).fields if f.name == name)
    kind = _base(info.type)
    if isinstance(kind, mi.StrType):
        return f"field `{name}` must be a string, not {json_type(value)}"
    if isinstance(kind, mi.BoolType):
        return f"field `{name}` must be true or false, not {json_type(value)}"
    if isinstance(kind, mi.IntType):
        if isinstance(value, int) and not isinstance(value, bool):
            return _range_error(name, info.type)
        return f"field `{name}` must be a whole number, not {json_type(value)}"
    if isinstance(kind, mi.ListType):
        return f"field `{name}` must be a list of strings"
    if isinstance(kind, mi.LiteralType):
        choices = " or ".join(f'"{v}"' for v in kind.values)
        return f"field `{name}` must be {choices}, not {show(value)}"
    return f"field `{name}`: {show(cause, 160)}"


def _type_info(model: type[records.Record]) -> mi.StructType:
    info = _TYPE_INFO.get(model)
    if info is None:
        got = mi.type_info(model)
        assert isinstance(got, mi.StructType)
        info = _TYPE_INFO[model] = got
    return info


_TYPE_INFO: dict[type[records.Record], mi.StructType] = {}


def _base(kind: mi.Type) -> mi.Type:
    """`X | None` → `X` (null never reaches the decoder for an optional field),
    metadata unwrapped."""
    if isinstance(kind, mi.UnionType):
        rest = [t for t in kind.types if not isinstance(t, mi.NoneType)]
        if len(rest) == 1:
            kind = rest[0]
    return kind.type if isinstance(kind, mi.Metadata) else kind


def _top(kind: mi.Type) -> int | None:
    """The declared upper bound of an integer field (msgspec's own or ours)."""
    if isinstance(kind, mi.UnionType):
        found = [t for t in kind.types if not isinstance(t, mi.NoneType)]
        kind = found[0] if len(found) == 1 else kind
    if isinstance(kind, mi.Metadata):
        top = (kind.extra or {}).get("le")
        return top if isinstance(top, int) else _top(kind.type)
    return kind.le if isinstance(kind, mi.IntType) else None


@functools.cache
def _wide_bounds(model: type[records.Record]) -> tuple[tuple[mi.Field, int], ...]:
    """The integer fields whose upper bound msgspec cannot check itself (wider
    than int64, declared as metadata), with that bound."""
    out: list[tuple[mi.Field, int]] = []
    for info in _type_info(model).fields:
        top = _top(info.type)
        base = _base(info.type)
        if top is not None and isinstance(base, mi.IntType) and base.le != top:
            out.append((info, top))
    return tuple(out)


def _range_error(name: str, kind: mi.Type) -> str:
    base = _base(kind)
    low = base.ge if isinstance(base, mi.IntType) and base.ge is not None else 0
    return f"field `{name}` is out of range ({low}..{_top(kind)})"


def json_type(value: object) -> str:
    return {
        dict: "an object", list: "an array", str: "a string", bool: "a boolean",
        int: "a number", float: "a number", type(None): "null",
    }.get(type(value), type(value).__name__)  # fmt: skip


def decode_request(obj: object, source: str = "request") -> SpawnRequest:
    """A spawn request from parsed JSON. Raises RequestError naming the field."""
    req = decode_record(SpawnRequest, obj, what="request", source=source)
    if req.system_prompt is not None and len(req.system_prompt.encode()) > SYSTEM_PROMPT_CAP:
        capped = req.system_prompt.encode()[:SYSTEM_PROMPT_CAP].decode("utf-8", "ignore")
        req = msgspec.structs.replace(req, system_prompt=capped)
    return req


def decode_kill(obj: Mapping[str, Any], source: str = "request") -> str:
    """The short id a kill request names. Raises RequestError."""
    target = obj.get("kill")
    try:
        kill = decode_record(KillRequest, {"kill": target}, what="request", source=source).kill
    except RequestError:
        kill = None
    if kill is None or not SHORT_RE.match(kill):
        raise RequestError(f"kill target must be a short session id, not {show(target, 40)}")
    return kill


def decode_ack(obj: object, source: str = "ack") -> SpawnAck | None:
    """The requester's strict read of an ack: None when it is not one.

    Every string is checked the way a request's are, because the requester
    prints them: a short id that is not one makes a success unusable (and is
    dropped from a refusal), and free text (reason, warnings) that cannot be
    encoded is shown escaped instead of crashing the print."""
    if not isinstance(obj, dict):
        return None
    try:
        ack = records.validate(SpawnAck, _known(SpawnAck, obj), source=source)
    except (records.RecordError, UnicodeError):
        return None
    short = ack.short
    if short is not None and not SHORT_RE.match(short):
        if ack.ok:
            return None
        short = None
    return msgspec.structs.replace(
        ack,
        short=short,
        reason=_safe_text(ack.reason) if ack.reason is not None else None,
        capability_warnings=[
            {_safe_text(k): _safe_text(v) for k, v in w.items()}
            for w in ack.capability_warnings[:ACK_WARNINGS_MAX]
        ],
    )


def _known(model: type[records.Record], obj: Mapping[str, Any]) -> dict[str, Any]:
    """The fields `model` declares, in declared order (which decides what a
    record wrong in several ways is refused for), `null` meaning "the default"
    for every optional one. Unknown keys are dropped before msgspec sees them:
    it encodes every key it is given, and a lone surrogate in one would raise."""
    return {
        name: obj[name]
        for name, required in _layout(model)
        if name in obj and (required or obj[name] is not None)
    }


@functools.cache
def _layout(model: type[records.Record]) -> tuple[tuple[str, bool], ...]:
    """(field name, required) in declared order; cached, because msgspec works
    it out from the annotations on every call (milliseconds per request)."""
    return tuple((f.name, f.required) for f in msgspec.structs.fields(model))


def _safe_text(value: str, limit: int = 2000) -> str:
    """`value` if it is usable text, else its escaped form (see `show`)."""
    return value if text_problem(value) is None else show(value, limit)
