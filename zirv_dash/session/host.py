"""The narrow interface the protocol server needs from an engine.

The server owns sockets, seats, revisions and idempotency; the host owns the
sessions (processes, terminals, models). Every call is made on the server's
event-loop thread, and a host calls its listeners on that thread too (an engine
that works on other threads hands over with `loop.call_soon_threadsafe`). A
host raises `HostError` for a refusal the client should see (unknown session,
a command that cannot start); anything else is a bug, reported as `internal`.

The facts a host returns are already redacted (`SessionFacts` has no field for a
prompt, command line, mail body, history, credential or absolute path); the
server fills in the seat fields (`controller`, `observers`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from zirv_dash.session.protocol import ErrorCode, NotResumed, SessionFacts


class HostError(Exception):
    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class StartSpec:
    argv: list[str]
    name: str = ""
    harness: str = ""
    cwd: str | None = None
    columns: int = 80
    rows: int = 24
    prompt: str = ""
    model: str = ""


@dataclass(frozen=True)
class Screen:
    """The visible screen of one session, as plain text rows."""

    columns: int
    rows: int
    cursor: tuple[int, int]
    lines: list[str]
    version: int


@dataclass(frozen=True)
class SessionEvent:
    """A session appeared, changed (state, size, exit code) or ended; `facts`
    are the new facts. `kind` is "started", "changed" or "exited"."""

    kind: str
    facts: SessionFacts


@dataclass(frozen=True)
class SessionOutput:
    """Bytes the session's child wrote, in order. Contract: a `screen()` or
    `repaint()` made after this event was delivered includes these bytes (the
    server numbers outputs and tells an attaching client which it already has)."""

    session_id: str
    data: bytes


HostEvent = SessionEvent | SessionOutput
Listener = Callable[[HostEvent], None]
Unsubscribe = Callable[[], None]


def on_loop(loop: asyncio.AbstractEventLoop, listener: Listener) -> Listener:
    """`listener` called on `loop`'s thread, for a host that emits from other threads."""

    def relay(event: HostEvent) -> None:
        loop.call_soon_threadsafe(listener, event)

    return relay


class Host(Protocol):
    not_resumed: list[NotResumed]
    """Sessions of a previous run this host did not bring back (Tier 2)."""

    @property
    def capabilities(self) -> Sequence[str]:
        """What the server's `hello` advertises for this host (`methods.CAPABILITIES`,
        plus `native` for a host that holds native conversations)."""
        ...

    def sessions(self) -> list[SessionFacts]:
        """Every session the host holds (ended ones it still reports included)."""
        ...

    def get(self, session_id: str) -> SessionFacts | None: ...

    def screen(self, session_id: str) -> Screen:
        """Raises HostError(not_found) for an unknown session."""
        ...

    def repaint(self, session_id: str) -> bytes:
        """Bytes that rebuild the screen in a fresh model (`repaint.repaint(model)`)."""
        ...

    def send_input(self, session_id: str, data: bytes) -> None:
        """Queue bytes for the child (never blocks). HostError if it is gone."""
        ...

    def resize(self, session_id: str, columns: int, rows: int) -> SessionFacts: ...

    async def start(self, spec: StartSpec) -> SessionFacts:
        """Start a session; its `started` event is delivered before this returns."""
        ...

    async def stop(self, session_id: str, grace: float) -> SessionFacts:
        """Run the termination ladder; returns once it ended (its `exited` event
        delivered first). Stopping an ended session returns its facts."""
        ...

    def subscribe(self, listener: Listener) -> Unsubscribe: ...

    async def close(self) -> None:
        """The server is shutting down (what happens to sessions is the host's call)."""
        ...

    def note_client(self, session_id: str, color_system: str) -> None:
        """A controller attached with this colour system (a host that draws for its
        clients renders for it; one that only relays bytes ignores it)."""
        ...

    def bind_detach(self, detach: Callable[[str], None]) -> None:
        """The server's way to release a session's controller, for a host whose own
        UI can end an attach (the hosted dashboard's Ctrl+A d); others ignore it."""
        ...


@dataclass(frozen=True)
class Pending:
    """A native conversation's open approval."""

    call_id: str
    tool: str
    scope: str
    answers: tuple[str, ...]


class NativeHost(Host, Protocol):
    """A host that also holds native conversations (the `native` capability)."""

    def submit(self, session_id: str, text: str) -> str:
        """sent, steer, queued or empty; HostError for a session that is no native one."""
        ...

    def interrupt(self, session_id: str) -> bool: ...

    def pending(self, session_id: str) -> Pending | None: ...

    def approve(self, session_id: str, call_id: str, answer: str, guidance: str) -> bool: ...
