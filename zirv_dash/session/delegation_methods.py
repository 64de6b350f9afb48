"""Protocol v1's delegation reads: `delegation.list` and `delegation.get`.

The runtime's repository's delegation records (the same ones `zirv ctx status
--agents` and the dashboard read), as wire frames. Read-only: starting and
stopping workers stays with the native sessions' tools and the CLI verbs.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from zirv_dash.session.delegation_frames import (
    DelegationFacts,
    DelegationGetResult,
    DelegationListResult,
    DelegationRef,
)
from zirv_dash.session.protocol import ErrorCode, Frame, Method, ProtocolError
from zirv_dash.session.serving import ConnectionView, ServerView


def _repo(server: ServerView) -> Path:
    repo = getattr(server.host, "repo", None)
    if not isinstance(repo, Path):
        raise ProtocolError(ErrorCode.UNSUPPORTED, "this runtime keeps no delegation records")
    return repo


def _facts(record: Any, now: float) -> DelegationFacts:
    from zirv_dash.delegation import permits, records

    outcome = record.outcome
    return DelegationFacts(
        handle=record.handle,
        harness=record.harness,
        state=record.state,
        owner=record.owner,
        age_s=records.age_s(record, now),
        permit=record.permit if permits.holds(record) else None,
        pane=record.current.short if record.current is not None else None,
        outcome=outcome.kind if outcome is not None else None,
        exit_code=outcome.exit_code if outcome is not None else None,
    )


async def _list(server: ServerView, conn: ConnectionView, params: Frame) -> DelegationListResult:
    from zirv_dash.delegation import records

    problems: list[str] = []
    found = records.list_all(_repo(server), problems)
    now = time.time()
    return DelegationListResult(delegations=[_facts(r, now) for r in found], problems=problems)


async def _get(
    server: ServerView, conn: ConnectionView, params: DelegationRef
) -> DelegationGetResult:
    from zirv_dash.delegation import records
    from zirv_dash.delegation.service import manifest

    try:
        record = records.read(_repo(server), params.handle)
    except records.RecordProblem as exc:
        raise ProtocolError(ErrorCode.NOT_FOUND, str(exc)) from None
    shown = manifest(record)
    return DelegationGetResult(
        delegation=_facts(record, time.time()),
        deliveries=[d.identity for d in record.deliveries],
        report_path=shown["report_path"],
        last_lines=shown["last_lines"],
        last_lines_cut=shown["last_lines_cut"],
    )


DELEGATION_HANDLERS: dict[Method, Callable[[Any, Any, Any], Awaitable[Frame]]] = {
    Method.DELEGATION_LIST: _list,
    Method.DELEGATION_GET: _get,
}
