"""Who is attached to which session: any number of observers, at most one controller.

Pure bookkeeping (no I/O): each change returns what happened so the server can
publish it. The controller is one client; a second client asking for control
is refused `busy` until it takes over (which demotes the old controller to an
observer, it stays attached) or the controller leaves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zirv_dash.session.protocol import ErrorCode, ProtocolError, SeatMode


@dataclass
class _Seat:
    controller: str | None = None
    attached: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class SeatChange:
    session_id: str
    client_id: str
    attached: bool
    """The client newly attached (False: it was already attached)."""
    controller: str | None
    previous: str | None
    """The controller before; differs from `controller` when the seat moved."""

    @property
    def controller_changed(self) -> bool:
        return self.controller != self.previous


class Seats:
    def __init__(self) -> None:
        self._seats: dict[str, _Seat] = {}

    def controller(self, session_id: str) -> str | None:
        seat = self._seats.get(session_id)
        return seat.controller if seat else None

    def observers(self, session_id: str) -> int:
        seat = self._seats.get(session_id)
        if seat is None:
            return 0
        return len(seat.attached) - (1 if seat.controller else 0)

    def is_attached(self, session_id: str, client_id: str) -> bool:
        seat = self._seats.get(session_id)
        return seat is not None and client_id in seat.attached

    def anyone_attached(self, session_id: str) -> bool:
        seat = self._seats.get(session_id)
        return seat is not None and bool(seat.attached)

    def attached_clients(self, session_id: str) -> set[str]:
        seat = self._seats.get(session_id)
        return set(seat.attached) if seat else set()

    def attach(self, session_id: str, client_id: str, mode: SeatMode) -> SeatChange:
        if mode not in (SeatMode.OBSERVER, SeatMode.CONTROLLER):
            raise ProtocolError(ErrorCode.BAD_PARAMS, f"unknown attach mode {mode.value!r}")
        seat = self._seats.setdefault(session_id, _Seat())
        previous = seat.controller
        if mode is SeatMode.CONTROLLER and previous not in (None, client_id):
            raise ProtocolError(
                ErrorCode.BUSY,
                f"session {session_id} already has a controller ({previous}); take it over",
            )
        newly = client_id not in seat.attached
        seat.attached.add(client_id)
        if mode is SeatMode.CONTROLLER:
            seat.controller = client_id
        elif previous == client_id:
            seat.controller = None  # a controller re-attaching as observer gives the seat up
        return SeatChange(session_id, client_id, newly, seat.controller, previous)

    def takeover(self, session_id: str, client_id: str) -> SeatChange:
        seat = self._seats.setdefault(session_id, _Seat())
        previous = seat.controller
        newly = client_id not in seat.attached
        seat.attached.add(client_id)
        seat.controller = client_id
        return SeatChange(session_id, client_id, newly, client_id, previous)

    def detach(self, session_id: str, client_id: str) -> SeatChange | None:
        seat = self._seats.get(session_id)
        if seat is None or client_id not in seat.attached:
            return None
        previous = seat.controller
        seat.attached.discard(client_id)
        if previous == client_id:
            seat.controller = None
        if not seat.attached:
            del self._seats[session_id]
        return SeatChange(session_id, client_id, False, seat.controller, previous)

    def detach_all(self, client_id: str) -> list[SeatChange]:
        """Everything `client_id` held (it disconnected)."""
        changes = []
        for session_id in [s for s, seat in self._seats.items() if client_id in seat.attached]:
            change = self.detach(session_id, client_id)
            if change is not None:
                changes.append(change)
        return changes

    def forget(self, session_id: str) -> None:
        self._seats.pop(session_id, None)
