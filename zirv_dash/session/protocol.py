"""Protocol v1 frames: NDJSON, one JSON object per line, in both directions.

The server writes one `Hello` first, then answers each `Request` with one
`Response` echoing its `id`, and pushes `Event`s (revisioned: the server-wide
`revision` grows by exactly one per event, so a gap means something was missed
and the client refreshes `session.snapshot`) and `Output` frames (a session's
raw terminal bytes, to attached clients only; not revisioned, they are a stream,
not facts). Unknown fields are ignored everywhere and every enum decodes an
unknown value as its `unknown` member, so an older peer understands a newer one.
"""

from __future__ import annotations

import enum
from typing import Any

import msgspec

from zirv_dash import PROTOCOL_VERSION as PROTOCOL_VERSION

MAX_FRAME_BYTES = 1024 * 1024
"""The largest line either side accepts; a longer one is refused and the
connection dropped (the reader never buffers more than this)."""


class _OpenEnum(enum.StrEnum):
    """A published vocabulary: a value this side does not know reads as `unknown`."""

    @classmethod
    def _missing_(cls, value: object) -> Any:
        return cls("unknown")


class Method(_OpenEnum):
    SERVER_PING = "server.ping"
    SERVER_CAPABILITIES = "server.capabilities"
    SESSION_SNAPSHOT = "session.snapshot"
    SESSION_LIST = "session.list"
    SESSION_GET = "session.get"
    SESSION_START = "session.start"
    SESSION_STOP = "session.stop"
    SESSION_READ = "session.read"
    SESSION_SEND_INPUT = "session.send_input"
    SESSION_WAIT = "session.wait"
    SESSION_ATTACH = "session.attach"
    SESSION_DETACH = "session.detach"
    SESSION_TAKEOVER = "session.takeover"
    SESSION_RESIZE = "session.resize"
    SESSION_SCREEN = "session.screen"
    EVENTS_SUBSCRIBE = "events.subscribe"
    SESSION_SUBMIT = "session.submit"
    SESSION_INTERRUPT = "session.interrupt"
    SESSION_PENDING = "session.pending"
    SESSION_APPROVE = "session.approve"
    DELEGATION_LIST = "delegation.list"
    DELEGATION_GET = "delegation.get"
    UNKNOWN = "unknown"


class ErrorCode(_OpenEnum):
    BAD_FRAME = "bad_frame"
    """Not one JSON object, or not a request."""
    FRAME_TOO_LARGE = "frame_too_large"
    UNKNOWN_METHOD = "unknown_method"
    BAD_PARAMS = "bad_params"
    NOT_FOUND = "not_found"
    BUSY = "busy"
    """The controller seat is taken (`session.takeover` moves it)."""
    NOT_CONTROLLER = "not_controller"
    """A mutation of an attached session from a client not holding its seat."""
    NOT_ATTACHED = "not_attached"
    UNSUPPORTED = "unsupported"
    FAILED = "failed"
    """The host could not do it (a command that cannot start, a gone session)."""
    STALE_GENERATION = "stale_generation"
    TIMEOUT = "timeout"
    FORBIDDEN = "forbidden"
    INTERNAL = "internal"
    UNKNOWN = "unknown"


class SessionState(_OpenEnum):
    STARTING = "starting"
    RUNNING = "running"
    STOPPING = "stopping"
    EXITED = "exited"
    """Ended by itself with code 0."""
    FAILED = "failed"
    """Ended with a non-zero code, or could not start."""
    STOPPED = "stopped"
    """Ended because it was stopped (or by a signal)."""
    UNKNOWN = "unknown"


ENDED_STATES = frozenset({SessionState.EXITED, SessionState.FAILED, SessionState.STOPPED})


class SeatMode(_OpenEnum):
    OBSERVER = "observer"
    CONTROLLER = "controller"
    UNKNOWN = "unknown"


class SubmitOutcome(_OpenEnum):
    """What a native conversation did with submitted text."""

    SENT = "sent"
    """A turn started with it."""
    STEER = "steer"
    """Recorded as steering; the running turn picks it up at its next boundary."""
    QUEUED = "queued"
    """Held behind an approval (or compaction); never taken as the answer."""
    EMPTY = "empty"
    UNKNOWN = "unknown"


class ApprovalAnswer(_OpenEnum):
    ONCE = "once"
    """Run this call."""
    SESSION = "session"
    """Run it, and stop asking for this exact tool and scope in this session."""
    DENY = "deny"
    """Refuse it; the guidance is committed as steering."""
    UNKNOWN = "unknown"


class EventKind(_OpenEnum):
    SESSION_STARTED = "session_started"
    SESSION_CHANGED = "session_changed"
    """State, size or exit code changed; `data.session` holds the new facts."""
    SESSION_EXITED = "session_exited"
    CONTROLLER_CHANGED = "controller_changed"
    CLIENT_ATTACHED = "client_attached"
    CLIENT_DETACHED = "client_detached"
    UNKNOWN = "unknown"


class Frame(msgspec.Struct, frozen=True, kw_only=True):
    """Base of every wire type: unknown fields ignored. Results and facts write
    every field; the envelopes below leave their unset optional fields off."""


class SessionFacts(Frame, frozen=True):
    """What anyone may know about a session: runtime facts only. By construction
    no prompt, command line, mail body, terminal history, credential or absolute
    path: `repo` is the working directory's last component."""

    id: str
    name: str = ""
    harness: str = ""
    state: SessionState = SessionState.UNKNOWN
    generation: int = 1
    pid: int | None = None
    started_at: float | None = None
    exit_code: int | None = None
    columns: int = 0
    rows: int = 0
    repo: str = ""
    controller: str | None = None
    """The client id holding the controller seat, if any."""
    observers: int = 0
    """Attached clients without the seat."""


class NotResumed(Frame, frozen=True):
    """A session of the runtime's previous run that was not brought back (its
    process ended with that runtime and nothing verifies its conversation)."""

    predecessor: str
    """The old session's id; never reused for a new session."""
    name: str = ""
    harness: str = ""
    reason: str = ""


class ErrorInfo(Frame, frozen=True, omit_defaults=True):
    code: ErrorCode
    message: str = ""


class Hello(Frame, frozen=True):
    protocol: int = PROTOCOL_VERSION
    server: str = "zirv-dash"
    capabilities: list[str] = []
    client_id: str = ""
    """This connection's id, as it appears in `controller` and seat events."""
    revision: int = 0
    max_frame_bytes: int = MAX_FRAME_BYTES


class HelloFrame(Frame, frozen=True):
    hello: Hello


RequestId = int | str


class Request(Frame, frozen=True, omit_defaults=True):
    id: RequestId
    method: str
    """Kept as text so an unknown method can be named in its error."""
    params: dict[str, Any] = {}
    idempotency_key: str | None = None


class Response(Frame, frozen=True, omit_defaults=True):
    id: RequestId | None
    """The request's id; None only for a frame that had no readable id."""
    ok: bool
    revision: int = 0
    result: Any = None
    error: ErrorInfo | None = None


class EventData(Frame, frozen=True, omit_defaults=True):
    session: SessionFacts | None = None
    session_id: str | None = None
    client_id: str | None = None
    controller: str | None = None
    previous: str | None = None
    mode: SeatMode | None = None


class Event(Frame, frozen=True):
    event: EventKind
    revision: int
    data: EventData = EventData()


class Output(Frame, frozen=True, omit_defaults=True):
    """Terminal bytes of one session (base64 on the wire), in order; `lost` says
    some were dropped for a slow reader: refresh with `session.screen`."""

    output: str
    seq: int
    data: bytes = b""
    lost: bool = False


class Incoming(Frame, frozen=True, omit_defaults=True):
    """Any server frame, for a client: exactly one of `hello`, `event`, `output`
    or `ok` (a response) is set."""

    hello: Hello | None = None
    id: RequestId | None = None
    ok: bool | None = None
    revision: int = 0
    result: Any = None
    error: ErrorInfo | None = None
    event: EventKind | None = None
    data: Any = None
    output: str | None = None
    seq: int = 0
    lost: bool = False


class ProtocolError(Exception):
    """A failure with a wire code; the server turns it into an error response."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def info(self) -> ErrorInfo:
        return ErrorInfo(code=self.code, message=self.message)


_encoder = msgspec.json.Encoder()
_request_decoder = msgspec.json.Decoder(Request)
_incoming_decoder = msgspec.json.Decoder(Incoming)


def encode(frame: Frame) -> bytes:
    """One NDJSON line."""
    return _encoder.encode(frame) + b"\n"


def decode_request(line: bytes) -> Request:
    """A request, or ProtocolError(bad_frame) saying what is wrong with the line."""
    try:
        return _request_decoder.decode(line)
    except msgspec.DecodeError as exc:
        raise ProtocolError(ErrorCode.BAD_FRAME, f"not a request: {exc}") from exc


def decode_incoming(line: bytes) -> Incoming:
    try:
        return _incoming_decoder.decode(line)
    except msgspec.DecodeError as exc:
        raise ProtocolError(ErrorCode.BAD_FRAME, f"not a server frame: {exc}") from exc


def best_effort_id(line: bytes) -> RequestId | None:
    """The `id` of a line that is JSON but not a valid request, so its error
    can still be matched by the caller."""
    try:
        value = msgspec.json.decode(line)
    except msgspec.DecodeError:
        return None
    if isinstance(value, dict):
        rid = value.get("id")
        if isinstance(rid, int | str) and not isinstance(rid, bool):
            return rid
    return None
