"""Protocol v1's native half: the methods of the `native` capability.

A native conversation has no terminal to type into: text is submitted through
its submit path (a turn, steering, or the queue, exactly as the composer's
Enter), a running turn is interrupted, and its open approval is answered by
naming the call it asked about (`session.pending` first: an answer to a call
the client never saw is refused, as the dialog must be drawn before a key can
answer it). Mutations follow the seat rule like every other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

from zirv_dash.session.host import NativeHost
from zirv_dash.session.methods import (
    ApproveParams,
    ApproveResult,
    InterruptResult,
    PendingResult,
    SessionRef,
    SubmitParams,
    SubmitResult,
)
from zirv_dash.session.protocol import ApprovalAnswer, Frame, Method, SubmitOutcome
from zirv_dash.session.serving import ConnectionView, ServerView, require_seat, resolve


def _host(server: ServerView) -> NativeHost:
    # Reached only when the server offers the `native` capability, which only a
    # host implementing these methods is served with.
    return cast(NativeHost, server.host)


async def _submit(server: ServerView, conn: ConnectionView, params: SubmitParams) -> SubmitResult:
    facts = resolve(server, params.session)
    require_seat(server, conn, facts.id)
    outcome = _host(server).submit(facts.id, params.text)
    return SubmitResult(session=facts.id, outcome=SubmitOutcome(outcome))


async def _interrupt(
    server: ServerView, conn: ConnectionView, params: SessionRef
) -> InterruptResult:
    facts = resolve(server, params.session)
    require_seat(server, conn, facts.id)
    return InterruptResult(session=facts.id, interrupted=_host(server).interrupt(facts.id))


async def _pending(server: ServerView, conn: ConnectionView, params: SessionRef) -> PendingResult:
    facts = resolve(server, params.session)
    pending = _host(server).pending(facts.id)
    if pending is None:
        return PendingResult(session=facts.id)
    return PendingResult(
        session=facts.id,
        call_id=pending.call_id,
        tool=pending.tool,
        scope=pending.scope,
        answers=[ApprovalAnswer(a) for a in pending.answers],
    )


async def _approve(
    server: ServerView, conn: ConnectionView, params: ApproveParams
) -> ApproveResult:
    facts = resolve(server, params.session)
    require_seat(server, conn, facts.id)
    answered = _host(server).approve(facts.id, params.call_id, params.answer.value, params.guidance)
    return ApproveResult(session=facts.id, answered=answered)


NATIVE_HANDLERS: dict[Method, Callable[[Any, Any, Any], Awaitable[Frame]]] = {
    Method.SESSION_SUBMIT: _submit,
    Method.SESSION_INTERRUPT: _interrupt,
    Method.SESSION_PENDING: _pending,
    Method.SESSION_APPROVE: _approve,
}
