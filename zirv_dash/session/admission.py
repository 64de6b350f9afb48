"""Who gets a place among the runtime's connections (tmux's server has no
client limit; ours has one only so a loop of connects cannot exhaust its
descriptors, and it must never lock the owner out).

A connection speaks first within HELLO_SECS (its first request is its hello):
one that says nothing is dropped. Silent connections are held apart, at most
MAX_SILENT, the oldest dropped for a newcomer, so connections that never send
a byte cannot keep anyone out, the dashboard and the web relay included. Past
MAX_CLIENTS speaking connections a newcomer's first request is refused `busy`,
except an attach (the owner's own terminal): it takes the place of the oldest
connection that holds no seat, or is admitted over the limit when every one
holds a seat.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Protocol

from zirv_dash.session.protocol import (
    ErrorCode,
    ErrorInfo,
    ProtocolError,
    Response,
    best_effort_id,
    decode_request,
    encode,
)

log = logging.getLogger("zirv.session.server")

MAX_CLIENTS = 64
"""Speaking connections served at once; one more is told `busy` and closed (an
attach excepted)."""
MAX_SILENT = 32
"""Connections that have not spoken yet, held apart; the oldest is dropped for a newcomer."""
HELLO_SECS = 5.0
"""How long a new connection may stay silent before its first request."""
_SEATING = frozenset({"session.attach", "session.takeover"})


class Admitted(Protocol):
    client_id: str
    spoke: bool

    @property
    def attached(self) -> set[str]: ...

    def send(self, line: bytes) -> None: ...

    def close(self) -> None: ...


def error_line(rid: int | str | None, code: ErrorCode, message: str, revision: int = 0) -> bytes:
    error = ErrorInfo(code=code, message=message)
    return encode(Response(id=rid, ok=False, revision=revision, error=error))


class Admission:
    def __init__(self) -> None:
        self.silent: dict[str, Admitted] = {}
        """Connections that have not spoken yet, oldest first."""

    def arrived(self, conn: Admitted) -> None:
        """A new connection: held apart until it speaks."""
        self.silent[conn.client_id] = conn
        while len(self.silent) > MAX_SILENT:
            oldest = next(iter(self.silent.values()))
            self.silent.pop(oldest.client_id)
            log.warning("client %s said nothing; dropped for a newcomer", oldest.client_id)
            oldest.send(error_line(None, ErrorCode.BUSY, "too many silent connections"))
            oldest.close()

    def left(self, conn: Admitted) -> None:
        self.silent.pop(conn.client_id, None)

    def spoke(self, conn: Admitted, line: bytes, connections: Iterable[Admitted]) -> bool:
        """`conn` sent its first request (`line`): whether it takes a place among
        the speaking connections (`connections`, oldest first); if not, it was
        told `busy`."""
        conn.spoke = True
        self.silent.pop(conn.client_id, None)
        speaking = [c for c in connections if c.spoke and c is not conn]
        if len(speaking) < MAX_CLIENTS:
            return True
        try:
            method = decode_request(line).method
        except ProtocolError:
            method = ""
        if method not in _SEATING:
            refusal = f"{MAX_CLIENTS} clients already"
            conn.send(error_line(best_effort_id(line), ErrorCode.BUSY, refusal))
            return False
        seatless = [c for c in speaking if not c.attached]
        if seatless:  # the oldest connection holding no seat makes room
            log.warning("client %s dropped to make room for an attach", seatless[0].client_id)
            seatless[0].send(error_line(None, ErrorCode.BUSY, "dropped for an attach"))
            seatless[0].close()
        return True
