"""Protocol v1 method implementations over a `Host`.

`handle` decodes params with the method's own type, applies the seat rule (a
mutation of a session someone is attached to must come from its controller) and
the idempotency rule (a replayed key gets the first answer, not a second
effect), and turns every refusal into an `ErrorInfo`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from zirv_dash.session.delegation_methods import DELEGATION_HANDLERS
from zirv_dash.session.host import HostError, StartSpec
from zirv_dash.session.idempotency import Answer
from zirv_dash.session.methods import (
    METHODS,
    AttachParams,
    AttachResult,
    CapabilitiesResult,
    DetachParams,
    DetachResult,
    GetResult,
    ListResult,
    PingResult,
    ReadParams,
    ReadResult,
    ResizeParams,
    ScreenParams,
    ScreenResult,
    SendInputParams,
    SendInputResult,
    SessionRef,
    SnapshotResult,
    StartParams,
    StopParams,
    SubscribeParams,
    SubscribeResult,
    WaitParams,
    WaitResult,
)
from zirv_dash.session.native_handlers import NATIVE_HANDLERS
from zirv_dash.session.protocol import (
    ENDED_STATES,
    ErrorCode,
    ErrorInfo,
    EventKind,
    Frame,
    Method,
    ProtocolError,
    Request,
    SeatMode,
    SessionFacts,
)
from zirv_dash.session.serving import (
    ConnectionView,
    ServerView,
    require_seat,
    resolve,
    screen_of,
)

__all__ = ["Request", "handle", "runs_long"]

log = logging.getLogger("zirv.session.handlers")

MAX_WAIT = 3600.0
_LONG = frozenset({Method.SESSION_WAIT.value, Method.SESSION_STOP.value})


def runs_long(method: str) -> bool:
    return method in _LONG


async def handle(server: ServerView, conn: ConnectionView, request: Request) -> Answer:
    method = Method(request.method)
    spec = METHODS.get(method)
    if spec is None:
        return _refusal(ErrorCode.UNKNOWN_METHOD, f"unknown method {request.method!r}")
    if spec.capability not in server.capabilities:
        return _refusal(
            ErrorCode.UNSUPPORTED, f"{request.method} needs the {spec.capability!r} capability"
        )

    async def work() -> Answer:
        try:
            params = msgspec.convert(request.params, spec.params, strict=True)
            result = await _HANDLERS[method](server, conn, params)
        except msgspec.ValidationError as exc:
            return _refusal(ErrorCode.BAD_PARAMS, f"{request.method}: {exc}")
        except ProtocolError as exc:
            return False, None, exc.info()
        except HostError as exc:
            return _refusal(exc.code, exc.message)
        except Exception:
            log.exception("%s failed", request.method)
            return _refusal(ErrorCode.INTERNAL, f"{request.method} failed inside the runtime")
        return True, msgspec.to_builtins(result), None

    if spec.mutation and request.idempotency_key:
        return await server.idempotent.run(request.method, request.idempotency_key, work)
    return await work()


def _refusal(code: ErrorCode, message: str) -> Answer:
    return False, None, ErrorInfo(code=code, message=message)


# -- methods ------------------------------------------------------------------------------


async def _ping(server: ServerView, conn: ConnectionView, params: Frame) -> PingResult:
    return PingResult()


async def _capabilities(
    server: ServerView, conn: ConnectionView, params: Frame
) -> CapabilitiesResult:
    offered = [m.value for m, spec in METHODS.items() if spec.capability in server.capabilities]
    return CapabilitiesResult(capabilities=list(server.capabilities), methods=offered)


async def _snapshot(server: ServerView, conn: ConnectionView, params: Frame) -> SnapshotResult:
    sessions = [server.facts(f) for f in server.host.sessions()]
    return SnapshotResult(
        revision=server.revision,
        sessions=sessions,
        clients=len(server.connections),
        not_resumed=list(server.host.not_resumed),
    )


async def _list(server: ServerView, conn: ConnectionView, params: Frame) -> ListResult:
    sessions = [server.facts(f) for f in server.host.sessions()]
    return ListResult(sessions=sessions, not_resumed=list(server.host.not_resumed))


async def _get(server: ServerView, conn: ConnectionView, params: SessionRef) -> GetResult:
    return GetResult(session=server.facts(resolve(server, params.session)))


async def _start(server: ServerView, conn: ConnectionView, params: StartParams) -> GetResult:
    spec = StartSpec(
        argv=list(params.argv),
        name=params.name,
        harness=params.harness,
        cwd=params.cwd,
        columns=params.columns,
        rows=params.rows,
        prompt=params.prompt,
        model=params.model,
    )
    return GetResult(session=server.facts(await server.host.start(spec)))


async def _stop(server: ServerView, conn: ConnectionView, params: StopParams) -> GetResult:
    # Not seat-checked: stopping is the operator's separate verb (`zirv session
    # stop` asks first), which must work while a dashboard holds the seat.
    facts = resolve(server, params.session)
    return GetResult(session=server.facts(await server.host.stop(facts.id, params.grace)))


async def _read(server: ServerView, conn: ConnectionView, params: ReadParams) -> ReadResult:
    facts = resolve(server, params.session)
    lines = server.host.screen(facts.id).lines
    while lines and not lines[-1]:
        lines = lines[:-1]
    if params.lines > 0:
        lines = lines[-params.lines :]
    return ReadResult(session=facts.id, lines=lines)


async def _send_input(
    server: ServerView, conn: ConnectionView, params: SendInputParams
) -> SendInputResult:
    facts = resolve(server, params.session)
    require_seat(server, conn, facts.id)
    data = params.text.encode("utf-8", "surrogateescape") + params.data
    server.host.send_input(facts.id, data)
    return SendInputResult(session=facts.id, bytes=len(data))


async def _wait(server: ServerView, conn: ConnectionView, params: WaitParams) -> WaitResult:
    facts = resolve(server, params.session)
    generation = params.generation or facts.generation
    if facts.generation != generation:
        raise ProtocolError(ErrorCode.STALE_GENERATION, f"session {facts.id} was replaced")
    timeout = min(max(0.0, params.timeout), MAX_WAIT)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        changed = server.next_change(facts.id)  # registered before the check: no lost wakeup
        current = server.host.get(facts.id)
        if current is None or current.generation != generation:
            raise ProtocolError(ErrorCode.STALE_GENERATION, f"session {facts.id} was replaced")
        matched = _matches(server, current, params.text)
        if matched is not None:
            return WaitResult(session=server.facts(current), matched=matched)
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise ProtocolError(ErrorCode.TIMEOUT, f"waited {timeout:g}s for session {facts.id}")
        try:
            await asyncio.wait_for(changed.wait(), remaining)
        except TimeoutError:
            continue


def _matches(server: ServerView, facts: SessionFacts, text: str) -> str | None:
    if not text:
        return facts.state.value if facts.state in ENDED_STATES else None
    lines = server.host.screen(facts.id).lines
    if any(text in line for line in lines):
        return text
    if facts.state in ENDED_STATES:
        raise ProtocolError(ErrorCode.FAILED, f"session {facts.id} ended before {text!r} showed")
    return None


async def _attach(server: ServerView, conn: ConnectionView, params: AttachParams) -> AttachResult:
    facts = resolve(server, params.session)
    change = server.seats.attach(facts.id, conn.client_id, params.mode)
    if params.color_system and params.mode is SeatMode.CONTROLLER:
        server.host.note_client(facts.id, params.color_system)  # a host may draw for it
    return _attached(server, conn, facts.id, change, params.repaint)


async def _takeover(server: ServerView, conn: ConnectionView, params: SessionRef) -> AttachResult:
    facts = resolve(server, params.session)
    change = server.seats.takeover(facts.id, conn.client_id)
    return _attached(server, conn, facts.id, change)


def _attached(
    server: ServerView, conn: ConnectionView, session_id: str, change: Any, repaint: bool = False
) -> AttachResult:
    # Screen first, then subscribe: both happen before any later output is
    # delivered (one loop thread), so the client misses nothing and sees no byte twice.
    screen = screen_of(server, session_id, repaint)
    conn.attached.add(session_id)
    conn.subscribed = True
    server.publish_seat(change, EventKind.CLIENT_ATTACHED if change.attached else None)
    facts = server.facts(resolve(server, session_id))
    mode = SeatMode.CONTROLLER if facts.controller == conn.client_id else SeatMode.OBSERVER
    return AttachResult(session=facts, mode=mode, screen=screen)


async def _detach(server: ServerView, conn: ConnectionView, params: DetachParams) -> DetachResult:
    facts = resolve(server, params.session)
    targets = server.seats.attached_clients(facts.id) if params.all else {conn.client_id}
    released = 0
    for client_id in sorted(targets):
        change = server.seats.detach(facts.id, client_id)
        holder = server.connections.get(client_id)
        if holder is not None:
            holder.attached.discard(facts.id)
        if change is not None:
            released += 1
            server.publish_seat(change, EventKind.CLIENT_DETACHED)
    return DetachResult(session=facts.id, detached=released > 0, clients=released)


async def _resize(server: ServerView, conn: ConnectionView, params: ResizeParams) -> GetResult:
    facts = resolve(server, params.session)
    require_seat(server, conn, facts.id)
    if not (1 <= params.columns <= 1000 and 1 <= params.rows <= 1000):
        raise ProtocolError(ErrorCode.BAD_PARAMS, "columns and rows must be within 1..1000")
    resized = server.host.resize(facts.id, params.columns, params.rows)
    return GetResult(session=server.facts(resized))


async def _screen(server: ServerView, conn: ConnectionView, params: ScreenParams) -> ScreenResult:
    return screen_of(server, resolve(server, params.session).id, params.repaint)


async def _subscribe(
    server: ServerView, conn: ConnectionView, params: SubscribeParams
) -> SubscribeResult:
    conn.subscribed = True
    if params.since is None or params.since >= server.revision:
        return SubscribeResult(revision=server.revision)
    held = list(server.events)
    if not held or held[0].revision > params.since + 1:
        return SubscribeResult(revision=server.revision, gap=True)
    replayed = [e for e in held if e.revision > params.since]
    return SubscribeResult(revision=server.revision, replayed=replayed)


_Handler = Callable[[Any, Any, Any], Awaitable[Frame]]
_HANDLERS: dict[Method, _Handler] = {
    Method.SERVER_PING: _ping,
    Method.SERVER_CAPABILITIES: _capabilities,
    Method.SESSION_SNAPSHOT: _snapshot,
    Method.SESSION_LIST: _list,
    Method.SESSION_GET: _get,
    Method.SESSION_START: _start,
    Method.SESSION_STOP: _stop,
    Method.SESSION_READ: _read,
    Method.SESSION_SEND_INPUT: _send_input,
    Method.SESSION_WAIT: _wait,
    Method.SESSION_ATTACH: _attach,
    Method.SESSION_DETACH: _detach,
    Method.SESSION_TAKEOVER: _takeover,
    Method.SESSION_RESIZE: _resize,
    Method.SESSION_SCREEN: _screen,
    Method.EVENTS_SUBSCRIBE: _subscribe,
    **NATIVE_HANDLERS,
    **DELEGATION_HANDLERS,
}
