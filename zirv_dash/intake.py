"""The dashboard side of delegation and lifecycle (issue 5), without any UI.

Glue between the on-disk protocols (`spawn`, `roster`, `mail`) and a `Dashboard`:

- the spawn-request channel: stale token dirs swept at start, one token dir
  per launch (named after the orchestrator's short id), one private channel per
  pane (`dash.pane_channel`), a sweep that claims, validates, launches and acks;
- kill requests and the menu's graceful stop, both as non-blocking ladders
  advanced by `tick()` (nothing here waits on a child);
- report-back mail to a delegated pane's requester, once, when it settles or
  ends, unless the worker mailed first;
- retained ended rows (at most 8) with restore / retry from the kept request
  (re-validated) and dismiss;
- the restore roster: offered at start, written on quit.

The screen calls in here and renders the results; a headless runtime could do
the same.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from zirv_dash import adapters, catalogue, delegation_result, gitinfo, mail, paths, roster, spawn
from zirv_dash.dashboard import Dashboard, EndedRow
from zirv_dash.pane import STATE_WORDS, Pane, PaneState
from zirv_dash.ptysession import Ladder
from zirv_dash.textcheck import text_problem
from zirv_dash.textfmt import age_text as _age

log = logging.getLogger("zirv.intake")

ENDED_ROWS_MAX = 8
REPORT_TAIL_LINES = 20
REPORT_TAIL_BYTES = 2048
"""After SIGTERM, how long a killed child gets before SIGKILL."""
STOP_GRACE = 5.0
"""After the quit sequence, how long a stopped child gets (upstream `QUIT_GRACE`)."""
PRUNE_EVERY = 60.0
NO_CHANNEL = "no delegated agent can join this dashboard (it will still run headless instead)"


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


def _as_role(role: str) -> spawn.Role:
    if role == "orchestrator":
        return "orchestrator"
    if role == "sub-orchestrator":
        return "sub-orchestrator"
    return "worker"


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


class Intake:
    def __init__(
        self,
        dash: Dashboard,
        spawner: Spawner | None = None,
        state: Path | None = None,
        enabled: bool = True,
    ) -> None:
        self.dash = dash
        self.spawner: Spawner = spawner if spawner is not None else dash.spawn
        self.state = state if state is not None else paths.state_dir()
        self.enabled = enabled
        """Channels and the roster live on disk only when the dashboard manages state."""
        self.channel: spawn.DashChannel | None = None
        self.channel_failed = False
        self.owners: dict[str, Owner] = {}
        """Private channel dir name → the pane it was minted for."""
        self.parents: dict[str, str | None] = {}
        """Pane short → the verified short of the pane that requested it."""
        self.kept: dict[str, Kept] = {}
        self.report_to: dict[str, str] = {}
        self.reported: set[str] = set()
        self.titles: dict[str, str] = {}
        self.restored_from: dict[str, roster.RosterPane] = {}
        self.candidates: list[roster.RosterPane] = []
        """Restore entries offered and not yet answered."""
        self.deferred: list[roster.RosterPane] = []
        """Entries carried into the next roster (still live, over the cap, failed)."""
        self.deadlines: dict[str, float] = {}
        """Pane short → monotonic time its request's `timeout_secs` runs out."""
        self.stopping: dict[str, Ladder] = {}
        """Panes being stopped (kill requests, timeouts): the PTY layer's one
        termination ladder each, stepped by `advance_stops`."""
        """Pane short → (deadline, next step) of a running stop ladder."""
        self._pruned_at = time.monotonic()
        self._quit_done = False

    # -- channel ------------------------------------------------------------------------

    def start(self) -> None:
        """Sweep dead dashboards' token dirs and hook pane-channel minting."""
        self.dash.on_pane_added.append(self._pane_added)
        if not self.enabled:
            return
        try:
            spawn.sweep_stale_token_dirs(self.state)
        except OSError as exc:  # pragma: no cover - sweep is already tolerant
            log.warning("stale channel sweep failed: %s", exc)
        self.dash.pane_channel = self._mint

    def ensure_channel(self, short: str | None = None) -> spawn.DashChannel | None:
        if self.channel is not None or not self.enabled or self.channel_failed:
            return self.channel
        try:
            self.channel = spawn.DashChannel.create(self.state, short or self.dash.short)
        except OSError as exc:
            self.channel_failed = True
            self.dash.error(f"{NO_CHANNEL}: {exc}")
        return self.channel

    def _mint(self, pane: Pane) -> str | None:
        # The token dir is named after the orchestrator (the first pane).
        channel = self.ensure_channel(pane.short if pane.role == "orchestrator" else None)
        if channel is None:
            return None
        try:
            path = channel.mint_pane_channel()
        except OSError as exc:
            self.dash.error(f"pane {pane.short}: no private spawn channel ({exc})")
            return None
        self.owners[path.name] = Owner(pane.short, _as_role(pane.role), pane.session_id)
        return str(path)

    def _pane_added(self, pane: Pane) -> None:
        """Panes opened by the spawn dialog keep a request too, so they can be retried."""
        if pane.short in self.kept or pane.role == "orchestrator" or not pane.first_prompt:
            return
        if pane.spec.argv and pane.spec.headless:
            return  # launched by this intake; `_launch` records it
        self.kept[pane.short] = Kept(
            spawn.SpawnRequest(
                agent=pane.agent,
                prompt=pane.first_prompt,
                cwd=pane.cwd,
                requested_by=self.dash.short,
                model=pane.model,
                interactive=True,
            ),
            None,
        )

    def context(self, owner: Owner | None, file_drop: bool = True) -> spawn.ValidationContext:
        """Validation facts from the live settings and panes."""
        settings = self.dash.settings.dash
        live = self.dash.live_panes
        return spawn.ValidationContext(
            repo=self.dash.repo,
            workdir_roots=list(settings.workdir_roots),
            live_panes=len(live),
            max_panes=settings.max_panes,
            gate=self.dash.gate,
            channel_owner_role=owner.role if owner else None,
            channel_owner_short=owner.short if owner else None,
            channel_owner_session=owner.session if owner else None,
            live_shorts={p.short for p in live},
            file_drop=file_drop,
        )

    def sweep(self) -> Outcome:
        """Claim and fulfil waiting requests in every channel. Never raises.

        The three steps of `prepare_sweep` / `SweepJob.run` / `finish_sweep` in a
        row; a UI runs the middle one on a worker thread instead."""
        job = self.prepare_sweep()
        if job is None:
            return Outcome()
        job.run()
        return self.finish_sweep(job)

    def prepare_sweep(self, budget: int = spawn.SWEEP_BUDGET) -> SweepJob | None:
        """Snapshot what validation needs (cheap; on the event loop). None when
        there is no channel."""
        if self.channel is None:
            return None
        git_dirs: dict[str, Path | None] = {}
        live = {p.short for p in self.dash.live_panes}
        plan: list[Planned] = []
        for chan in self.channel.channels():
            if chan.name == spawn.REQUESTS_DIR:
                owner: Owner | None = None
            else:
                owner = self.owners.get(chan.name)
                closed = self._closed_reason(chan.name, owner, live)
                if closed is not None:
                    plan.append(Planned(chan, owner, None, closed))
                    continue
            ctx = self.context(owner)
            ctx.git_dirs = git_dirs
            plan.append(Planned(chan, owner, ctx))
        return SweepJob(plan, budget)

    @staticmethod
    def _closed_reason(name: str, owner: Owner | None, live: set[str]) -> str | None:
        """A private channel speaks for its pane only while that pane lives; a
        `p-*` dir this dashboard never minted speaks for nobody."""
        if owner is None:
            return f"channel {name} belongs to no pane of this dashboard"
        if owner.short not in live:
            return f"pane {owner.short} has ended; its channel grants nothing"
        return None

    def finish_sweep(self, job: SweepJob) -> Outcome:
        """Launch what the job accepted and carry out kill requests (on the event
        loop: both touch the dashboard). Never raises."""
        out = Outcome(refused=job.refused)
        for text in job.errors:
            self.dash.error(text)
        for claimed, planned in job.deferred:
            if planned.ctx is not None:
                self._fulfil_one(claimed, planned.owner, planned.ctx, out)
        return out

    def _fulfil_one(
        self,
        claimed: spawn.Claimed,
        owner: Owner | None,
        ctx: spawn.ValidationContext,
        out: Outcome,
    ) -> None:
        launched: list[Pane] = []

        def launch(decision: spawn.Decision) -> str:
            pane = self._launch(decision, owner)
            launched.append(pane)
            return pane.short

        def stop(short: str) -> None:
            pane = self.dash.pane_by_short(short)
            if pane is None or not pane.alive:
                raise LookupError(f"no live pane {short}")
            self.kill_now(pane)
            out.killed.append(short)

        try:
            if claimed.decision is not None:
                result = spawn.complete(claimed, claimed.decision, launch)
            else:
                result = spawn.fulfil(claimed, ctx, launch, stop, self.live_parents())
        except Exception as exc:  # noqa: BLE001 - one bad claim never stops the sweep
            log.exception("spawn request %s", claimed.req_id)
            self.dash.error(f"spawn request {claimed.req_id}: {exc}")
            claimed.release()
            return
        for text in result.errors:
            self.dash.error(text)
        if result.ack is not None and not result.ack.ok:
            out.refused += 1
        out.launched += launched
        for pane in launched:
            self.dash.notify(f"spawned {pane.agent} as {pane.short}")

    def live_parents(self) -> dict[str, str | None]:
        return {p.short: self.parents.get(p.short) for p in self.dash.live_panes}

    def _launch(self, decision: spawn.Decision, owner: Owner | None) -> Pane:
        req, adapter = decision.request, decision.adapter
        if req is None or adapter is None:  # pragma: no cover - validate sets both
            raise RuntimeError("accepted request without an adapter")
        kept = copy.deepcopy(req)
        argv, env_extra = spawn.build_launch(req, adapter, decision.headless)
        # Pin the harness to our session id where it can take one, so a later
        # handover or restore can resume this very conversation.
        session_id = paths.new_session_id()
        argv += adapter.pin_args(session_id) if adapter.name == "claude" else []
        requester = decision.parent or _requester_label(req.requested_by)
        pane = self.spawner(
            req.agent,
            prompt=req.prompt,
            model=req.model,
            cwd=str(decision.run_dir or self.dash.repo),
            role=decision.role,
            headless=decision.headless,
            argv=argv,
            session_id=session_id,
            extra_env=env_extra,
            # ZIRV_CTX_PARENT_SESSION: only the channel the request arrived on proves
            # a parent; what the request says of itself (`requested_by`) never does.
            requested_by=owner.session if owner is not None and decision.parent else None,
            focus=False,
            worktree=req.worktree,
        )
        if pane.spawn_error:
            raise RuntimeError(pane.spawn_error)
        self.kept[pane.short] = Kept(kept, owner)
        self.parents[pane.short] = decision.parent
        # Every delegated pane reports back: to the pane that asked, or, for a
        # request from a plain terminal, to the operator's inbox.
        self.report_to[pane.short] = requester or mail.OPERATOR
        self.titles[pane.short] = req.name or f"wrk {req.agent}"
        if req.timeout_secs:
            self.deadlines[pane.short] = time.monotonic() + req.timeout_secs
        return pane

    def prune(self, now: float | None = None) -> None:
        moment = time.monotonic() if now is None else now
        if self.channel is None or moment - self._pruned_at < PRUNE_EVERY:
            return
        self._pruned_at = moment
        for chan in self.channel.channels():
            spawn.prune_channel(chan)

    # -- stopping -------------------------------------------------------------------------

    def kill_now(self, pane: Pane) -> None:
        """A kill request: the harness's clean-quit signals now, then SIGKILL to
        every process group of its session (never a typed quit command)."""
        if pane.pty is None or not pane.alive:
            return
        ladder = pane.pty.stop_for(pane.agent, b"", typed_ok=False, drain=False)
        self.stopping[pane.short] = ladder
        ladder.step()

    def stop_gracefully(self, pane: Pane, grace: float = STOP_GRACE) -> None:
        """A stop with time to finish: the quit command only where the screen is
        known to be the harness's input prompt (typed into a dialog it would
        answer it for the user), else its clean-quit signals; then the ladder."""
        if pane.pty is None or not pane.alive:
            return
        ladder = pane.pty.stop_for(
            pane.agent,
            pane.adapter.quit_sequence,
            typed_ok=pane.at_input_prompt(),
            grace=grace,
            defer_submit=pane.adapter.defer_submit,
            drain=False,
        )
        self.stopping[pane.short] = ladder
        ladder.step()

    def enforce_deadlines(self, now: float | None = None) -> None:
        """A delegated pane past its `timeout_secs` is stopped (quit sequence first)."""
        moment = time.monotonic() if now is None else now
        for short, deadline in list(self.deadlines.items()):
            pane = self.dash.pane_by_short(short)
            if pane is None or not pane.alive:
                del self.deadlines[short]
            elif moment >= deadline:
                del self.deadlines[short]
                self.dash.error(f"pane {short} outran its --timeout-secs; stopping it")
                self.stop_gracefully(pane)

    def advance_stops(self, now: float | None = None) -> None:
        for short, ladder in list(self.stopping.items()):
            pane = self.dash.pane_by_short(short)
            if pane is None or pane.pty is None or ladder.step(now):
                del self.stopping[short]

    def tick(self, now: float | None = None, sweep: bool = True) -> Outcome:
        """The 1 s fallback: sweep, deadlines, stop ladders, settled reports, pruning.

        `sweep=False` leaves the request sweep to the caller (a UI runs
        `prepare_sweep` / `SweepJob.run` on a worker thread / `finish_sweep`)."""
        self.enforce_deadlines(now)
        self.advance_stops(now)
        out = self.sweep() if sweep else Outcome()
        self.report_settled()
        self.prune(now)
        return out

    # -- report back ----------------------------------------------------------------------

    def report_settled(self) -> None:
        now = time.monotonic()
        for pane in self.dash.live_panes:
            if pane.short not in self.report_to or pane.short in self.reported:
                continue
            if pane.last_output_at is None:
                continue
            if pane.state(now) in (PaneState.IDLE, PaneState.DONE_UNSEEN):
                self.report(pane, ended=False)

    def report(self, pane: Pane, ended: bool) -> bool:
        """Mail the requester once: outcome and the last screen lines. True if mailed."""
        requester = self.report_to.get(pane.short)
        if requester is None or pane.short in self.reported:
            return False
        self.reported.add(pane.short)
        body = report_body(pane, ended)
        self._store_result(pane, requester, body, ended)
        if not self.dash.settings.mail.enabled:
            return False
        try:
            if mail.sent_since(self.dash.slug, pane.short, pane.created_at):
                return False
            delegation_result.mail_report(
                self.dash.slug,
                body,
                from_session=pane.session_id,
                to_session=None if requester == mail.OPERATOR else requester,
                keep=self.dash.settings.mail.keep,
                max_message_bytes=self.dash.settings.mail.max_message_bytes,
            )
        except (mail.MailError, OSError) as exc:
            self.dash.error(f"report for {pane.short}: could not mail {requester}: {exc}")
            return False
        return True

    def _store_result(self, pane: Pane, requester: str, body: str, ended: bool) -> None:
        """The `logs/delegation-results/` record, written even when mail is off."""
        result = delegation_result.DelegationResult(
            session=pane.session_id,
            short=pane.short,
            harness=pane.agent,
            model=pane.model,
            mode="dashboard_pane",
            cwd=pane.cwd,
            outcome="ended" if ended else "settled",
            exit_code=pane.exit_code if ended else None,
            requested_by=paths.short_id(requester) or requester,
            body=body,
        )
        try:
            delegation_result.write(result)
        except OSError as exc:
            self.dash.error(f"report for {pane.short}: could not store its result: {exc}")

    # -- ended rows -----------------------------------------------------------------------

    def pane_ended(self, pane: Pane) -> list[Pane]:
        """Keep the row, send the report, and return older rows dropped past the cap."""
        self.stopping.pop(pane.short, None)
        if not any(row.pane is pane for row in self.dash.ended):
            self.dash.ended.append(
                EndedRow(
                    short=pane.short,
                    title=self.titles.get(pane.short, pane.title),
                    agent=pane.agent,
                    exit_code=pane.exit_code if pane.exit_code is not None else 0,
                    exited_at=pane.exited_at or time.time(),
                    pane=pane,
                )
            )
        self.report(pane, ended=True)
        dropped: list[Pane] = []
        while len(self.dash.ended) > ENDED_ROWS_MAX:
            row = self.dash.ended.pop(0)
            dropped.append(row.pane)
            self._forget(row.pane)
        return dropped

    def ended_row(self, pane: Pane) -> EndedRow | None:
        for row in self.dash.ended:
            if row.pane is pane:
                return row
        return None

    def _forget(self, pane: Pane) -> None:
        """Drop a finished pane from the dashboard (its row and screen)."""
        focused = self.dash.focused_pane
        if pane in self.dash.panes:
            self.dash.panes.remove(pane)
        if focused is not None and focused in self.dash.panes:
            self.dash.focused = self.dash.panes.index(focused)
        for table in (self.kept, self.parents, self.report_to, self.titles):
            table.pop(pane.short, None)

    def dismiss(self, pane: Pane) -> bool:
        row = self.ended_row(pane)
        if row is None:
            self.dash.error(f"dismiss {pane.short}: only a finished row can be dismissed")
            return False
        self.dash.ended.remove(row)
        self._forget(pane)
        self.dash.notify(f"dismissed {pane.short}")
        return True

    def relaunch(self, pane: Pane) -> Pane | None:
        """Restore or retry an ended row from its kept request, every gate re-applied."""
        short = pane.short
        kept = self.kept.get(short)
        if kept is None or pane.alive:
            self.dash.error(f"restore {short}: {disabled_reason_restore(pane, kept)}")
            return None
        req = copy.deepcopy(kept.request)
        # The kept request was sanitised when first accepted; re-validating it as a
        # fresh file drop would turn a pane opened from the spawn dialog headless.
        decision = spawn.validate(req, self.context(kept.owner, file_drop=False))
        if not decision.ok:
            self.dash.error(f"restore {short}: {decision.reason}")
            return None
        try:
            new = self._launch(decision, kept.owner)
        except Exception as exc:  # noqa: BLE001 - any launch failure keeps the row
            self.dash.error(f"restore {short}: {exc}")
            return None
        row = self.ended_row(pane)
        if row is not None:
            self.dash.ended.remove(row)
        self._forget(pane)
        self.dash.notify(f"restored {short} as {new.short}")
        return new

    # -- restore roster -------------------------------------------------------------------

    def take_restore_offer(self) -> list[roster.RosterPane]:
        """Claim the roster; notices for entries still live; the rest is offered."""
        if not self.enabled:
            return []
        problems: list[str] = []
        panes = roster.take_roster(
            self.state,
            self.dash.slug,
            self.dash.settings.dash.roster_max_age_secs,
            problems=problems,
        )
        for problem in problems:  # a refused or corrected entry must reach `^A e`
            self.dash.error(problem)
        offer, kept = roster.partition_live(panes, state=self.state)
        for entry in kept:
            notice = roster.kept_notice(entry)
            log.info("%s", notice)
            self.dash.notify(notice)
        self.deferred += kept
        self.candidates = list(offer)
        return offer

    def skip_restore(self) -> None:
        """Esc: the candidates wait for the next launch."""
        self.deferred += self.candidates
        self.candidates = []

    def restore(self, checked: Sequence[roster.RosterPane]) -> list[Pane]:
        """Enter: respawn the checked entries up to the pane cap; defer the rest."""
        self.candidates = []
        settings = self.dash.settings.dash
        now, later, error = roster.split_for_cap(
            list(checked), len(self.dash.live_panes), settings.max_panes
        )
        self.deferred += later
        if error:
            self.dash.error(error)
        out: list[Pane] = []
        for entry in now:
            pane = self.spawn_restored(entry)
            if pane is None:
                self.deferred.append(entry)
            else:
                out.append(pane)
        if out:
            self.dash.notify(f"restored {len(out)} pane(s)")
        return out

    def spawn_restored(self, entry: roster.RosterPane) -> Pane | None:
        for name in _ROSTER_TEXT:
            value = getattr(entry, name)
            problem = text_problem(value) if isinstance(value, str) else None
            if problem:
                # Checked again here, not only when the roster is read: these
                # strings go to argv and env, and one that cannot be encoded
                # must never reach a spawn.
                self.dash.error(f"restore {spawn.show(entry.short, 16)}: `{name}` {problem}")
                return None
        adapter = adapters.get(entry.agent)
        if adapter is None:
            self.dash.error(f"restore {entry.short}: unknown harness {spawn.show(entry.agent, 40)}")
            return None
        refusal = self.dash.gate.refusal(entry.agent)
        if refusal:
            self.dash.error(f"restore {entry.short}: adapter {entry.agent} is {refusal}")
            return None
        role = "sub-orchestrator" if entry.role == "sub-orchestrator" else "worker"
        try:
            pane = self.spawner(
                entry.agent,
                role=role,
                headless=not entry.interactive,
                session_id=entry.session_id,
                argv=roster.restore_argv(adapter, entry),
                model=entry.model,
                cwd=entry.cwd,
                # A report owed to the operator names no parent session.
                requested_by=(entry.report_to if entry.report_to != mail.OPERATOR else None)
                or entry.parent_session,
                focus=False,
            )
        except Exception as exc:  # noqa: BLE001 - DashError and spawn failures alike
            self.dash.error(f"restore {entry.short}: {exc}")
            return None
        if pane.spawn_error:
            self.dash.error(f"restore {entry.short}: {pane.spawn_error}")
            return None
        self.restored_from[pane.short] = entry
        if entry.report_to:
            self.report_to[pane.short] = entry.report_to
        if entry.settled_mail_sent:
            self.reported.add(pane.short)
        if entry.parent_session:
            self.parents[pane.short] = paths.short_id(entry.parent_session) or None
        self.titles[pane.short] = entry.title or f"wrk {entry.agent}"
        return pane

    def roster_entries(self) -> list[roster.RosterPane]:
        """Every live pane, then unanswered and deferred entries (de-duplicated on write)."""
        out: list[roster.RosterPane] = []
        for pane in self.dash.live_panes:
            before = self.restored_from.get(pane.short)
            parent = self.parents.get(pane.short)
            out.append(
                roster.RosterPane(
                    agent=pane.agent,
                    session_id=pane.session_id,
                    role=pane.role,
                    short=pane.short,
                    title=self.titles.get(pane.short)
                    or ("orch" if pane.role == "orchestrator" else f"wrk {pane.agent}"),
                    report_to=self.report_to.get(pane.short),
                    settled_mail_sent=pane.short in self.reported,
                    work_group_id=before.work_group_id if before else None,
                    budget_tokens=before.budget_tokens if before else None,
                    interactive=not pane.spec.headless,
                    parent_session=parent or (before.parent_session if before else None),
                    cwd=pane.cwd,
                    model=pane.model,
                )
            )
        return out + self.candidates + self.deferred

    def on_quit(self) -> None:
        """Write the roster, then remove this launch's token dir. Idempotent."""
        if self._quit_done:
            return
        self._quit_done = True
        if not self.enabled:
            return
        entries = self.roster_entries()
        if entries:
            try:
                roster.write_roster(self.state, self.dash.slug, entries)
            except OSError as exc:
                self.dash.error(f"restore roster could not be written: {exc}")
        if self.channel is not None:
            self.channel.remove()


_ROSTER_TEXT = (
    "agent", "session_id", "role", "short", "title", "report_to",
    "work_group_id", "parent_session", "cwd",
)  # fmt: skip


def _requester_label(label: str) -> str | None:
    """An advisory `requested_by` worth mailing (a short id, not `unknown`)."""
    if label and label != "unknown" and spawn.SHORT_RE.match(label):
        return label
    return None


def screen_tail(pane: Pane, lines: int = REPORT_TAIL_LINES, cap: int = REPORT_TAIL_BYTES) -> str:
    """The last non-blank screen lines, at most `cap` bytes (the newest kept)."""
    rows = [line.rstrip() for line in pane.model_view.lines()]
    while rows and not rows[-1].strip():
        rows.pop()
    text = "\n".join(rows[-lines:])
    data = text.encode("utf-8")
    if len(data) > cap:
        text = data[-cap:].decode("utf-8", "ignore")
    return text


def report_body(pane: Pane, ended: bool) -> str:
    outcome = f"ended with exit code {pane.exit_code}" if ended else "settled"
    return f"pane {pane.short} ({pane.agent}, {pane.cwd}) {outcome} with unread output\n\n" + (
        screen_tail(pane) or "(no output)"
    )


# --- menu and inspector (data only; screens render it) -----------------------------------


NOT_OURS = "not a pane this dashboard owns"
ENDED = "this pane has ended"
STILL_RUNNING = "still running"
NO_REQUEST = "no spawn request kept"
NO_CWD = "no cwd known"
CLEAN_EXIT = "exited cleanly"
NOT_FINISHED = "only a finished row can be dismissed"
THE_DASHBOARD = "the dashboard, not a session"

MENU_LABELS = (
    "inspect",
    "focus",
    "nudge",
    "mail",
    "handover",
    "stop",
    "restore",
    "open worktree",
    "evidence",
    "retry",
    "dismiss",
)


@dataclass(frozen=True)
class MenuEntry:
    letter: str
    label: str
    disabled: str | None = None

    @property
    def enabled(self) -> bool:
        return self.disabled is None


def menu_letters(labels: Sequence[str]) -> list[str]:
    """The first letter of each label still free, else the next free one in it."""
    used: set[str] = set()
    out: list[str] = []
    for label in labels:
        pick = next((c for c in label.lower() if c.isalpha() and c not in used), "")
        if pick:
            used.add(pick)
        out.append(pick)
    return out


def disabled_reason_restore(pane: Pane, kept: Kept | None) -> str:
    if pane.alive:
        return STILL_RUNNING
    return NO_REQUEST if kept is None else ""


def menu_entries(intake: Intake, pane: Pane | None) -> list[MenuEntry]:
    """Every upstream entry, in order, each with its disabled reason (or None)."""
    reasons: dict[str, str | None]
    if pane is None:
        reasons = {label: THE_DASHBOARD for label in MENU_LABELS}
        reasons["inspect"] = None
        reasons["mail"] = None
    else:
        ours = pane in intake.dash.panes
        ended = not pane.alive
        kept = intake.kept.get(pane.short)
        attached = None if ours and not ended else (ENDED if ours else NOT_OURS)
        retry: str | None
        restore: str | None
        dismiss: str | None
        if not ours:
            retry = restore = dismiss = NOT_OURS
        else:
            restore = STILL_RUNNING if not ended else (None if kept else NO_REQUEST)
            if not ended:
                retry = STILL_RUNNING
            elif (pane.exit_code or 0) == 0:
                retry = CLEAN_EXIT
            else:
                retry = None if kept else NO_REQUEST
            dismiss = None if intake.ended_row(pane) is not None else NOT_FINISHED
        reasons = {
            "inspect": None,
            "focus": attached,
            "nudge": ENDED if ended else None,
            "mail": None,
            "handover": attached,
            "stop": attached,
            "restore": restore,
            "open worktree": None if pane.cwd else NO_CWD,
            "evidence": None,
            "retry": retry,
            "dismiss": dismiss,
        }
    letters = menu_letters(MENU_LABELS)
    return [
        MenuEntry(letter, label, reasons[label])
        for letter, label in zip(letters, MENU_LABELS, strict=True)
    ]


Section = tuple[str, list[tuple[str, str]]]


def inspect_sections(
    intake: Intake, pane: Pane, now: float | None = None, ages: bool = True
) -> list[Section]:
    """The inspector's sections for one row: identity, status, evidence, signal, errors.

    `ages=False` shows `–` for every age (deterministic screenshots)."""
    moment = time.monotonic() if now is None else now
    dash = intake.dash
    state = pane.state(moment)
    reports_to = intake.report_to.get(pane.short)
    parent = intake.parents.get(pane.short) or (reports_to if reports_to != mail.OPERATOR else None)
    identity = [
        ("short", pane.short),
        ("harness", pane.agent),
        ("model", pane.model or catalogue.implicit_model(pane.agent) or "–"),
        ("role", pane.role),
        ("group", "–"),
        ("parent", parent or "–"),
        ("cwd", pane.cwd or "–"),
        ("branch", gitinfo.branch(pane.cwd) or "–"),
    ]
    if pane.short in intake.kept:
        identity.append(("request", "kept (restore / retry available once ended)"))
    started = time.time() - pane.created_at
    status = [
        ("lifecycle", "ended" if not pane.alive else STATE_WORDS.get(state, str(state))),
        ("attention", STATE_WORDS.get(state, str(state))),
        ("mode", "headless" if pane.spec.headless else "interactive"),
        ("started", f"{_age(started)} ago" if ages else "–"),
    ]
    if pane.exit_code is not None:
        # One row each: when it ended, and how (the code once, not twice).
        exited = time.time() - (pane.exited_at or time.time())
        status.append(("ended", f"{_age(exited)} ago" if ages else "–"))
        status.append(("exit code", str(pane.exit_code)))
    reason = pane.reason(moment)
    evidence = [("winning", reason or f"pane state: {STATE_WORDS.get(state, str(state))}")]
    signal_rows = [
        ("transport", "socket bound" if pane.short in dash.signals else "unreachable"),
        ("attached", "yes" if pane.pty is not None and pane.alive else "no"),
    ]
    if pane.short in intake.report_to:
        done = "sent" if pane.short in intake.reported else "pending"
        signal_rows.append(("report", f"to {intake.report_to[pane.short]} ({done})"))
    errors = [("error", e.text) for e in dash.errors.entries if pane.short in e.text]
    sections: list[Section] = [
        ("identity", identity),
        ("status", status),
        ("evidence", evidence),
        ("signal", signal_rows),
        ("errors", errors or [("error", "none recorded")]),
    ]
    return sections


def dashboard_sections(intake: Intake) -> list[Section]:
    """The inspector for the dashboard itself (subject `dashboard · {short}`)."""
    dash = intake.dash
    live = dash.live_panes
    orch = next((p for p in dash.panes if p.role == "orchestrator"), None)
    channel = intake.channel.root if intake.channel is not None else None
    return [
        (
            "harness",
            [("harness", orch.agent if orch else "–"), ("short", orch.short if orch else "–")],
        ),
        (
            "sessions",
            [("live", str(len(live))), ("ended", str(len(dash.panes) - len(live)))],
        ),
        (
            "dashboard",
            [
                ("state dir", str(intake.state)),
                ("channel", str(channel) if channel else "none (delegation runs inline)"),
                ("mouse", "on" if dash.settings.dash.mouse else "off"),
                ("sidebar", f"{dash.settings.dash.sidebar_cols} columns"),
                ("max panes", str(dash.settings.dash.max_panes)),
                ("restore", f"{len(intake.candidates) + len(intake.deferred)} waiting"),
            ],
        ),
    ]


def format_sections(sections: Sequence[Section]) -> list[str]:
    """`{section}` headings and `{key:<12}{value}` lines."""
    out: list[str] = []
    for title, rows in sections:
        out.append(title)
        out += [f"{key:<12}{value}" for key, value in rows]
    return out


__all__ = [
    "Intake",
    "Kept",
    "MenuEntry",
    "Outcome",
    "Owner",
    "format_sections",
    "inspect_sections",
    "menu_entries",
    "menu_letters",
    "report_body",
    "screen_tail",
]
