"""Protocol v1 method table: each method's params and result types.

The schema (`zirv ctx api schema`) is generated from this table, and the server
decodes params with exactly these types, so the documentation and the wire are
one thing.
"""

from __future__ import annotations

from dataclasses import dataclass

from zirv_dash.session.delegation_frames import (
    DelegationGetResult,
    DelegationListResult,
    DelegationRef,
)
from zirv_dash.session.protocol import (
    PROTOCOL_VERSION,
    ApprovalAnswer,
    Event,
    Frame,
    Method,
    NotResumed,
    SeatMode,
    SessionFacts,
    SubmitOutcome,
)


class NoParams(Frame, frozen=True):
    pass


class SessionRef(Frame, frozen=True):
    session: str
    """A session id, or a unique session name."""


class PingResult(Frame, frozen=True):
    pong: bool = True
    protocol: int = PROTOCOL_VERSION


class CapabilitiesResult(Frame, frozen=True):
    protocol: int = PROTOCOL_VERSION
    capabilities: list[str] = []
    methods: list[str] = []


class SnapshotResult(Frame, frozen=True):
    revision: int
    sessions: list[SessionFacts] = []
    clients: int = 0
    not_resumed: list[NotResumed] = []
    """Sessions of the runtime's previous run that were not resumed (Tier 2)."""


class ListResult(Frame, frozen=True):
    sessions: list[SessionFacts] = []
    not_resumed: list[NotResumed] = []


class GetResult(Frame, frozen=True):
    session: SessionFacts


class StartParams(Frame, frozen=True):
    argv: list[str] = []
    """The command (a host that starts harnesses by name wants it empty)."""
    name: str = ""
    harness: str = ""
    cwd: str | None = None
    columns: int = 80
    rows: int = 24
    prompt: str = ""
    """The harness's first prompt, as `zirv agent HARNESS PROMPT` gives it (a host
    that advertises `START_PROMPT`; another refuses a start that carries one)."""
    model: str = ""


class StopParams(Frame, frozen=True):
    session: str
    grace: float = 3.0
    """Seconds between the clean-quit signal and SIGKILL."""


class ReadParams(Frame, frozen=True):
    session: str
    lines: int = 0
    """The last N non-blank-trailing screen lines; 0 for all of them."""


class ReadResult(Frame, frozen=True):
    session: str
    lines: list[str] = []


class SendInputParams(Frame, frozen=True):
    session: str
    text: str = ""
    data: bytes = b""
    """Raw bytes (base64 on the wire), sent after `text`."""


class SendInputResult(Frame, frozen=True):
    session: str
    bytes: int


class WaitParams(Frame, frozen=True):
    session: str
    text: str = ""
    """Wait until the screen shows this text; empty: wait until the session ends."""
    timeout: float = 30.0
    generation: int = 0
    """Pin a generation (0: the one current at call time)."""


class WaitResult(Frame, frozen=True):
    session: SessionFacts
    matched: str = ""


class AttachParams(Frame, frozen=True):
    session: str
    mode: SeatMode = SeatMode.OBSERVER
    repaint: bool = False
    """Also send `screen.repaint`."""
    color_system: str = ""
    """What the client's terminal renders ("truecolor", "256", "standard"): a UI
    the runtime draws for this client (`dash`) renders for it."""


class ScreenParams(Frame, frozen=True):
    session: str
    repaint: bool = False
    """Also send `repaint`: bytes that rebuild the styled screen, cursor and
    key/mouse modes in a fresh terminal model of this size (feed it, then every
    `Output` after `seq`, and the model tracks the runtime's)."""


class ScreenResult(Frame, frozen=True):
    session: str
    columns: int
    rows: int
    cursor: tuple[int, int] = (0, 0)
    lines: list[str] = []
    version: int = 0
    seq: int = 0
    """The `Output` sequence number this screen already includes."""
    repaint: bytes = b""


class AttachResult(Frame, frozen=True):
    session: SessionFacts
    mode: SeatMode
    screen: ScreenResult


class DetachParams(Frame, frozen=True):
    session: str
    all: bool = False
    """Release every attached client (`zirv session detach`), not only the caller."""


class DetachResult(Frame, frozen=True):
    session: str
    detached: bool
    clients: int = 0
    """How many clients were released."""


class ResizeParams(Frame, frozen=True):
    session: str
    columns: int
    rows: int


class SubscribeParams(Frame, frozen=True):
    since: int | None = None
    """Replay the events after this revision (when the server still holds them)."""


class SubscribeResult(Frame, frozen=True):
    revision: int
    replayed: list[Event] = []
    gap: bool = False
    """The events after `since` are no longer held: refresh `session.snapshot`."""


class SubmitParams(Frame, frozen=True):
    session: str
    text: str
    """What the operator would type into the composer (never a /command or a
    !shell line over the protocol: it reaches the model as text)."""


class SubmitResult(Frame, frozen=True):
    session: str
    outcome: SubmitOutcome


class InterruptResult(Frame, frozen=True):
    session: str
    interrupted: bool
    """False when no turn was running."""


class PendingResult(Frame, frozen=True):
    session: str
    call_id: str = ""
    """The open approval's call ("": none is open)."""
    tool: str = ""
    scope: str = ""
    """What exactly would run (a command line, a path inside the workdir)."""
    answers: list[ApprovalAnswer] = []
    """What this session may answer (once, session, deny; no `session` for a
    scope that is not stated exactly)."""


class ApproveParams(Frame, frozen=True):
    session: str
    call_id: str
    """The call `session.pending` named: an answer to any other is refused."""
    answer: ApprovalAnswer
    guidance: str = ""
    """With `deny`: what the model should do instead."""


class ApproveResult(Frame, frozen=True):
    session: str
    answered: bool


@dataclass(frozen=True)
class MethodSpec:
    params: type[Frame]
    result: type[Frame]
    mutation: bool = False
    """Accepts `idempotency_key`; refused to non-controllers of an attached session."""
    capability: str = "core"
    summary: str = ""


METHODS: dict[Method, MethodSpec] = {
    Method.SERVER_PING: MethodSpec(NoParams, PingResult, summary="liveness"),
    Method.SERVER_CAPABILITIES: MethodSpec(
        NoParams, CapabilitiesResult, summary="what this server offers"
    ),
    Method.SESSION_SNAPSHOT: MethodSpec(
        NoParams, SnapshotResult, summary="every session and the current revision"
    ),
    Method.SESSION_LIST: MethodSpec(NoParams, ListResult, summary="every session"),
    Method.SESSION_GET: MethodSpec(SessionRef, GetResult, summary="one session"),
    Method.SESSION_START: MethodSpec(
        StartParams, GetResult, mutation=True, summary="start a session on a new terminal"
    ),
    Method.SESSION_STOP: MethodSpec(
        StopParams, GetResult, mutation=True, summary="end a session (termination ladder)"
    ),
    Method.SESSION_READ: MethodSpec(ReadParams, ReadResult, summary="screen text"),
    Method.SESSION_SEND_INPUT: MethodSpec(
        SendInputParams, SendInputResult, mutation=True, summary="type into a session"
    ),
    Method.SESSION_WAIT: MethodSpec(
        WaitParams, WaitResult, summary="until text shows or the session ends"
    ),
    Method.SESSION_ATTACH: MethodSpec(
        AttachParams,
        AttachResult,
        capability="session.attach",
        summary="observe (or control) a session: its screen, then its output",
    ),
    Method.SESSION_DETACH: MethodSpec(
        DetachParams, DetachResult, capability="session.attach", summary="release; stops nothing"
    ),
    Method.SESSION_TAKEOVER: MethodSpec(
        SessionRef,
        AttachResult,
        capability="session.attach",
        summary="take the controller seat",
    ),
    Method.SESSION_RESIZE: MethodSpec(
        ResizeParams,
        GetResult,
        mutation=True,
        capability="session.attach",
        summary="resize the terminal",
    ),
    Method.SESSION_SCREEN: MethodSpec(
        ScreenParams, ScreenResult, capability="session.attach", summary="the current screen"
    ),
    Method.EVENTS_SUBSCRIBE: MethodSpec(
        SubscribeParams, SubscribeResult, summary="receive every event from now on"
    ),
    Method.SESSION_SUBMIT: MethodSpec(
        SubmitParams,
        SubmitResult,
        mutation=True,
        capability="native",
        summary="a native conversation: send, steer or queue text",
    ),
    Method.SESSION_INTERRUPT: MethodSpec(
        SessionRef,
        InterruptResult,
        mutation=True,
        capability="native",
        summary="a native conversation: interrupt the running turn",
    ),
    Method.SESSION_PENDING: MethodSpec(
        SessionRef,
        PendingResult,
        capability="native",
        summary="a native conversation: the approval it waits for",
    ),
    Method.SESSION_APPROVE: MethodSpec(
        ApproveParams,
        ApproveResult,
        mutation=True,
        capability="native",
        summary="a native conversation: answer its open approval",
    ),
    Method.DELEGATION_LIST: MethodSpec(
        NoParams,
        DelegationListResult,
        capability="native",
        summary="this repository's delegations (handle, harness, state, owner, permit)",
    ),
    Method.DELEGATION_GET: MethodSpec(
        DelegationRef,
        DelegationGetResult,
        capability="native",
        summary="one delegation: its outcome, deliveries and bounded report",
    ),
}

CAPABILITIES: tuple[str, ...] = ("core", "events", "session.attach")
START_PROMPT = "session.start.prompt"
"""`session.start` takes a first prompt and model (a delegation over `zirv agent --host`)."""
NATIVE_CAPABILITIES: tuple[str, ...] = (*CAPABILITIES, "native", START_PROMPT)
"""A runtime that also holds native conversations (the engine's)."""
