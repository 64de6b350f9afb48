"""The engine host's native half: a native pane as protocol v1 serves it.

A native conversation's "screen" is what a grid tile of it shows: the status
line over the newest transcript lines (`zirv_dash.native.tail`, pure), at the
session's size, so `session.read` / `session.wait` / an attach see the
conversation as text. Input goes through its submit path; approvals are
answered only for the call that is open.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from zirv_dash.native.tail import presentation_state, tile_lines, tile_status
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime.native_pane import NativeSessionPane
from zirv_dash.session.host import HostError, Pending, Screen
from zirv_dash.session.protocol import ErrorCode
from zirv_dash.visible import visible

_ANSWERS = ("once", "session", "deny")


def native_of(pane: Pane) -> NativeSessionPane:
    if not isinstance(pane, NativeSessionPane) or pane.session is None:
        raise HostError(
            ErrorCode.UNSUPPORTED,
            f"session {pane.short} is not a native conversation (type into it instead)",
        )
    return pane


def screen(pane: NativeSessionPane) -> Screen:
    session = pane.session
    assert session is not None  # native_of checked it
    columns, rows = pane.model_view.columns, pane.model_view.rows
    snap = session.snapshot()
    activity = None
    if snap.running and snap.turn_started is not None and snap.pending is None:
        activity = (time.monotonic() - snap.turn_started, snap.turn_tokens)
    state = presentation_state(snap.state, snap.pending is not None)
    route = snap.route
    status = tile_status(route.label, route.name, route.billing, state, snap.context_left, columns)
    lines = tile_lines(status, snap.transcript.items, snap.streaming, activity, columns, rows)
    # Every part is already visible text; once more here, as this is what a
    # client's terminal is sent.
    text = [visible("".join(part for part, _style in line))[:columns] for line in lines]
    if snap.pending is not None:
        request = snap.pending
        note = f" ({request.note})" if request.note else ""
        text.append(visible(f"approval needed{note}: {request.tool} {request.scope}")[:columns])
    text = text[-rows:] + [""] * max(0, rows - len(text))
    return Screen(columns, rows, (0, 0), text, len(session.events))


def submit(pane: NativeSessionPane, text: str) -> str:
    if pane.exit_code is not None:
        raise HostError(ErrorCode.FAILED, f"session {pane.short} has ended")
    return pane.deliver(text)


def interrupt(pane: NativeSessionPane) -> bool:
    session = pane.session
    return session is not None and session.interrupt()


def pending(pane: NativeSessionPane) -> Pending | None:
    session = pane.session
    request = session.pending if session is not None else None
    if request is None:
        return None
    answers = tuple(answer for answer, _label in request.options())
    return Pending(request.call_id, request.tool, request.scope, answers)


def approve(pane: NativeSessionPane, call_id: str, answer: str, guidance: str) -> bool:
    session = pane.session
    if session is None or answer not in _ANSWERS:
        return False
    if answer == "once":
        return session.answer(call_id, "once", guidance)
    if answer == "session":
        return session.answer(call_id, "session", guidance)
    return session.answer(call_id, "deny", guidance)


FRAME_SECS = 0.05
"""A streaming answer changes the conversation per token: clients get at most
20 frames a second of it."""


def follow(pane: NativeSessionPane, emit: Callable[[bytes], None]) -> None:
    """Stream the conversation's text screen as output (a clear, then its lines)
    after every change, so attached clients see it and waits wake."""
    session = pane.session
    if session is None:
        return
    loop = asyncio.get_running_loop()
    scheduled: list[asyncio.TimerHandle] = []

    def frame() -> None:
        scheduled.clear()
        emit(b"\x1b[H\x1b[2J" + text_of(pane))

    def changed() -> None:
        if not scheduled:
            scheduled.append(loop.call_later(FRAME_SECS, frame))

    session.listeners.append(changed)


def text_of(pane: NativeSessionPane) -> bytes:
    return "\r\n".join(line.rstrip() for line in screen(pane).lines).encode()
