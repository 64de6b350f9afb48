"""What a method handler sees of the server and of the asking connection.

`Server` and `Connection` (server.py) satisfy these protocols; the handlers
import only this module, so the import arrow runs from the server down to its
handlers and never back. The helpers every handler shares live here too."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Iterable, Mapping
from typing import Protocol

from zirv_dash.session.host import Host
from zirv_dash.session.idempotency import IdempotencyCache
from zirv_dash.session.methods import ScreenResult
from zirv_dash.session.protocol import (
    ENDED_STATES,
    ErrorCode,
    Event,
    EventKind,
    ProtocolError,
    SessionFacts,
)
from zirv_dash.session.seats import SeatChange, Seats


class ConnectionView(Protocol):
    """One client's connection, as a handler reads and marks it."""

    subscribed: bool

    @property
    def client_id(self) -> str: ...

    @property
    def attached(self) -> set[str]: ...


class ServerView(Protocol):
    """The server's state and the three things a handler asks of it."""

    @property
    def host(self) -> Host: ...

    @property
    def capabilities(self) -> Collection[str]: ...

    @property
    def seats(self) -> Seats: ...

    @property
    def revision(self) -> int: ...

    @property
    def events(self) -> Iterable[Event]: ...

    @property
    def connections(self) -> Mapping[str, ConnectionView]: ...

    @property
    def seq(self) -> Mapping[str, int]: ...

    @property
    def idempotent(self) -> IdempotencyCache: ...

    def facts(self, facts: SessionFacts) -> SessionFacts: ...

    def publish_seat(self, change: SeatChange, kind: EventKind | None) -> None: ...

    def next_change(self, session_id: str) -> asyncio.Event: ...


def resolve(server: ServerView, ref: str) -> SessionFacts:
    """A session by id, else by unique name."""
    facts = server.host.get(ref)
    if facts is not None:
        return facts
    named = [f for f in server.host.sessions() if f.name == ref]
    live = [f for f in named if f.state not in ENDED_STATES]
    if len(live) == 1 or len(named) == 1:
        return (live or named)[0]
    if named:
        raise ProtocolError(ErrorCode.BAD_PARAMS, f"{len(named)} sessions are named {ref!r}")
    raise ProtocolError(ErrorCode.NOT_FOUND, f"no session {ref!r}")


def require_seat(server: ServerView, conn: ConnectionView, session_id: str) -> None:
    """Once anyone is attached, only the controller may change the session."""
    if not server.seats.anyone_attached(session_id):
        return
    controller = server.seats.controller(session_id)
    if controller != conn.client_id:
        holder = f"client {controller}" if controller else "nobody (take the seat first)"
        raise ProtocolError(
            ErrorCode.NOT_CONTROLLER, f"session {session_id} is controlled by {holder}"
        )


def screen_of(server: ServerView, session_id: str, repaint: bool = False) -> ScreenResult:
    screen = server.host.screen(session_id)
    return ScreenResult(
        session=session_id,
        columns=screen.columns,
        rows=screen.rows,
        cursor=screen.cursor,
        lines=screen.lines,
        version=screen.version,
        seq=server.seq.get(session_id, 0),
        repaint=server.host.repaint(session_id) if repaint else b"",
    )
