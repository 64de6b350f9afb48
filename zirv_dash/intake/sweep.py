"""One sweep of the spawn channels, and the small records the intake keeps.

`SweepJob` is the part of a sweep that may run off the event loop (files and
`git` only, never the Dashboard); `Intake.finish_sweep` does the rest.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from zirv_dash import spawn
from zirv_dash.panes.pane import Pane

log = logging.getLogger("zirv.intake")


class Spawner(Protocol):
    """`Dashboard.spawn`, or a screen wrapper that also mounts a view."""

    def __call__(
        self,
        agent: str,
        *,
        prompt: str | None = ...,
        model: str | None = ...,
        cwd: str | None = ...,
        role: str = ...,
        headless: bool = ...,
        session_id: str | None = ...,
        argv: list[str] | None = ...,
        requested_by: str | None = ...,
        focus: bool = ...,
        extra_env: Mapping[str, str] | None = ...,
        worktree: bool = ...,
    ) -> Pane: ...


@dataclass(frozen=True)
class Owner:
    """The pane a private channel belongs to (identity is proven by location)."""

    short: str
    role: spawn.Role
    session: str


@dataclass
class Kept:
    """A spawn request kept for a later restore or retry of its pane."""

    request: spawn.SpawnRequest
    owner: Owner | None


@dataclass
class Outcome:
    """What one sweep did, for the UI: panes launched and panes asked to stop."""

    launched: list[Pane] = field(default_factory=list)
    refused: int = 0
    killed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.launched or self.refused or self.killed)


def as_role(role: str) -> spawn.Role:
    if role == "orchestrator":
        return "orchestrator"
    if role == "sub-orchestrator":
        return "sub-orchestrator"
    return "worker"


def closed_reason(name: str, owner: Owner | None, live: set[str]) -> str | None:
    """A private channel speaks for its pane only while that pane lives; a
    `p-*` dir this dashboard never minted speaks for nobody."""
    if owner is None:
        return f"channel {name} belongs to no pane of this dashboard"
    if owner.short not in live:
        return f"pane {owner.short} has ended; its channel grants nothing"
    return None


@dataclass
class Planned:
    """One channel of a sweep: who owns it, its validation facts, or why it is closed."""

    channel: Path
    owner: Owner | None
    ctx: spawn.ValidationContext | None
    closed: str | None = None


class SweepJob:
    """The part of a sweep that may run off the event loop: claim, read, parse
    and validate requests (files and `git` only, never the Dashboard), and ack
    every refusal. Accepted requests and kill requests are left in `deferred`
    for `Intake.finish_sweep`.

    Work is bounded: at most `budget` claims over all channels, and accepted
    requests count against the pane cap as they are decided, so a flood is
    answered with cheap cap refusals instead of piling up launches.
    """

    def __init__(
        self,
        plan: list[Planned],
        budget: int = spawn.SWEEP_BUDGET,
    ) -> None:
        self.plan = plan
        self.budget = budget
        self.deferred: list[tuple[spawn.Claimed, Planned]] = []
        self.errors: list[str] = []
        self.refused = 0
        self.claimed = 0
        self._accepted = 0

    def run(self) -> SweepJob:
        """Never raises."""
        for planned in self.plan:
            room = self.budget - self.claimed
            if room <= 0:
                break
            limit = min(spawn.CLAIM_BATCH, room)
            for claimed in spawn.claim_requests(planned.channel, limit=limit):
                self.claimed += 1
                try:
                    self._one(claimed, planned)
                except Exception as exc:  # noqa: BLE001 - one bad claim never stops the sweep
                    log.exception("spawn request %s", claimed.req_id)
                    self.errors.append(f"spawn request {claimed.req_id}: {exc}")
                    claimed.release()
        return self

    def _one(self, claimed: spawn.Claimed, planned: Planned) -> None:
        ctx = planned.ctx
        if planned.closed is not None or ctx is None:
            self._refuse(claimed, planned.closed or "channel closed")
            return
        if claimed.kill is not None and claimed.error is None:
            self.deferred.append((claimed, planned))  # needs the live panes: event loop
            return
        if claimed.error is not None or claimed.request is None:
            result = spawn.fulfil(claimed, ctx, _no_launch, _no_stop, {})
            self._count(result)
            return
        ctx.live_panes += self._accepted
        try:
            decision = spawn.validate(claimed.request, ctx)
        finally:
            ctx.live_panes -= self._accepted
        if not decision.ok:
            self._count(spawn.refuse(claimed, decision))
            return
        claimed.decision = decision
        self._accepted += 1
        self.deferred.append((claimed, planned))

    def _refuse(self, claimed: spawn.Claimed, reason: str) -> None:
        ack = spawn.SpawnAck.refused(reason)
        self.refused += 1
        self.errors.append(f"spawn refused: {reason}")
        problem = spawn.answer(claimed, ack)
        if problem:
            self.errors.append(problem)

    def _count(self, result: spawn.Fulfilment) -> None:
        self.errors += result.errors
        if result.ack is not None and not result.ack.ok:
            self.refused += 1


def _no_launch(decision: spawn.Decision) -> str:  # pragma: no cover - error claims only
    raise RuntimeError("not launched off the event loop")


def _no_stop(short: str) -> None:  # pragma: no cover - error claims only
    raise RuntimeError("not stopped off the event loop")
