"""`Intake`: the dashboard side of delegation and lifecycle, without any UI.

Glue between the on-disk protocols (`spawn`, `roster`, `mail`) and a `Dashboard`:
the spawn-request channel (stale token dirs swept at start, one token dir per
launch, one private channel per pane, a sweep that claims, validates, launches
and acks), kill requests and the menu's graceful stop as non-blocking ladders
advanced by `tick()`, the deadlines of delegated panes, and retained ended rows
with restore / retry from the kept request (re-validated) and dismiss.
Report-back (`ReportBack`) and the restore roster (`RosterRestore`) are parts it
is composed of.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from zirv_dash import paths, spawn
from zirv_dash.dash import roster
from zirv_dash.dash.dashboard import Dashboard, EndedRow
from zirv_dash.harnesses.native_kind import NATIVE
from zirv_dash.intake import native_reopen, rows
from zirv_dash.intake.delegations import Delegations
from zirv_dash.intake.launching import open_pane, validation_context
from zirv_dash.intake.reasons import disabled_reason_restore
from zirv_dash.intake.report import ReportBack, requester_label
from zirv_dash.intake.restore import RosterRestore
from zirv_dash.intake.stopping import STOP_GRACE, Stopping
from zirv_dash.intake.sweep import (
    Kept,
    Outcome,
    Owner,
    Planned,
    Spawner,
    SweepJob,
    as_role,
    closed_reason,
)
from zirv_dash.mail import mailbox as mail
from zirv_dash.panes.pane import Pane

log = logging.getLogger("zirv.intake")

ENDED_ROWS_MAX = 8
PRUNE_EVERY = 60.0
NO_CHANNEL = "no delegated agent can join this dashboard (it will still run headless instead)"


class Intake:
    """The dashboard side of delegation for one `Dashboard` (see the package doc)."""

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
        self.titles: dict[str, str] = {}
        self.reports = ReportBack(dash)
        self.delegations = Delegations(dash.repo, dash.error, enabled=enabled)
        self.reports.delegations = self.delegations
        self.report_to = self.reports.to
        self.reported = self.reports.reported
        self.roster = RosterRestore(self)
        self.stops = Stopping(dash)
        self.deadlines = self.stops.deadlines
        """Pane short → monotonic time its request's `timeout_secs` runs out."""
        self.stopping = self.stops.ladders
        """Panes being stopped (kill requests, timeouts), stepped by `tick`."""
        self.close_native: Callable[[Pane, str], object] | None = None
        """Ends a native pane (no process): set by the engine that hosts them."""
        self._pruned_at = time.monotonic()
        self._quit_done = False

    # -- the restore roster (see `RosterRestore`) ------------------------------------------

    @property
    def candidates(self) -> list[roster.RosterPane]:
        """Restore entries offered and not yet answered."""
        return self.roster.candidates

    @property
    def deferred(self) -> list[roster.RosterPane]:
        """Entries carried into the next roster (still live, over the cap, failed)."""
        return self.roster.deferred

    @property
    def restored_from(self) -> dict[str, roster.RosterPane]:
        return self.roster.restored_from

    def take_restore_offer(self) -> list[roster.RosterPane]:
        """Claim the roster; notices for entries still live; the rest is offered."""
        return self.roster.take_offer()

    def skip_restore(self) -> None:
        """Esc: the candidates wait for the next launch."""
        self.roster.skip()

    def restore(self, checked: Sequence[roster.RosterPane]) -> list[Pane]:
        """Enter: respawn the checked entries up to the pane cap; defer the rest."""
        return self.roster.restore(checked)

    def spawn_restored(self, entry: roster.RosterPane) -> Pane | None:
        return self.roster.spawn_restored(entry)

    def roster_entries(self) -> list[roster.RosterPane]:
        """Every live pane, then unanswered and deferred entries (de-duplicated on write)."""
        return self.roster.entries()

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
        if self.reports.redeliver():
            self.dash.notify("delivered the outcome(s) a previous dashboard had not sent")

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
        self.owners[path.name] = Owner(pane.short, as_role(pane.role), pane.session_id)
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
        return validation_context(self.dash, owner, file_drop, self.delegations.permit_refusal)

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
                closed = closed_reason(chan.name, owner, live)
                if closed is not None:
                    plan.append(Planned(chan, owner, None, closed))
                    continue
            ctx = self.context(owner)
            ctx.git_dirs = git_dirs
            plan.append(Planned(chan, owner, ctx))
        return SweepJob(plan, budget)

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
        decision = result.decision
        steered = [w["detail"] for w in decision.warnings] if decision is not None else []
        for pane in launched:
            why = f" ({steered[0]})" if steered else ""
            self.dash.notify(f"spawned {pane.agent} as {pane.short}{why}")

    def live_parents(self) -> dict[str, str | None]:
        return {p.short: self.parents.get(p.short) for p in self.dash.live_panes}

    def _launch(self, decision: spawn.Decision, owner: Owner | None) -> Pane:
        req = decision.request
        if req is None:  # pragma: no cover - validate sets it
            raise RuntimeError("accepted request without an adapter")
        kept = copy.deepcopy(req)
        requester = decision.parent or requester_label(req.requested_by)
        refused = self.delegations.resume_refusal(req, decision.parent)
        if refused is not None:
            raise RuntimeError(refused)
        pane = open_pane(self.spawner, self.dash, decision, owner)
        self.kept[pane.short] = Kept(kept, owner)
        self.parents[pane.short] = decision.parent
        # Every delegated pane reports back: to the pane that asked, or, for a
        # request from a plain terminal, to the operator's inbox.
        self.report_to[pane.short] = requester or mail.OPERATOR
        decision.handle = self.delegations.launched(pane, req, requester or mail.OPERATOR)
        self.titles[pane.short] = req.name or f"wrk {req.agent}"
        delegator = self.dash.pane_by_short(owner.short) if owner is not None else None
        if delegator is not None and delegator.kind == "native":
            # The sidebar says which native session this worker answers to.
            pane.title = f"{pane.short[:4]}←{delegator.short[:4]}"
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
        """A kill request: clean-quit signals now, then SIGKILL (see `Stopping`)."""
        self.stops.kill_now(pane, self.close_native)

    def stop_gracefully(self, pane: Pane, grace: float = STOP_GRACE) -> None:
        """A stop with time to finish: quit sequence first (see `Stopping`)."""
        self.stops.stop_gracefully(pane, grace)

    def tick(self, now: float | None = None, sweep: bool = True) -> Outcome:
        """The 1 s fallback: sweep, deadlines, stop ladders, settled reports, pruning.

        `sweep=False` leaves the request sweep to the caller (a UI runs
        `prepare_sweep` / `SweepJob.run` on a worker thread / `finish_sweep`)."""
        self.stops.enforce_deadlines(now)
        self.stops.advance(now)
        out = self.sweep() if sweep else Outcome()
        self.report_settled()
        self.prune(now)
        return out

    # -- report back (see `ReportBack`) ---------------------------------------------------

    def report_settled(self) -> None:
        self.reports.settled()

    def report(self, pane: Pane, ended: bool) -> bool:
        """Mail the requester once: outcome and the last screen lines. True if mailed."""
        return self.reports.report(pane, ended)

    # -- ended rows -----------------------------------------------------------------------

    def pane_ended(self, pane: Pane) -> list[Pane]:
        """Keep the row, send the report, and return older rows dropped past the cap."""
        self.stopping.pop(pane.short, None)
        rows.keep_ended_row(self.dash, pane, self.titles.get(pane.short, pane.title))
        self.report(pane, ended=True)
        dropped: list[Pane] = []
        while len(self.dash.ended) > ENDED_ROWS_MAX:
            row = self.dash.ended.pop(0)
            dropped.append(row.pane)
            self._forget(row.pane)
        return dropped

    def ended_row(self, pane: Pane) -> EndedRow | None:
        return rows.ended_row(self.dash, pane)

    def forget(self, pane: Pane) -> None:
        """Drop a finished pane and its ended row (it was started again)."""
        row = self.ended_row(pane)
        if row is not None:
            self.dash.ended.remove(row)
        self._forget(pane)

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
        if kept is None and pane.agent == NATIVE and not pane.alive:
            return self._reopen_native(pane)
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

    def _reopen_native(self, pane: Pane) -> Pane | None:
        """An ended native row: its conversation reopened from its journal."""
        new = native_reopen.reopen_ended(self.dash, self.spawner, pane)
        if new is None or new.spawn_error:
            return None
        self.titles[new.short] = self.titles.get(pane.short, "") or (
            "orch" if pane.role == "orchestrator" else f"wrk {pane.agent}"
        )
        row = self.ended_row(pane)
        if row is not None:
            self.dash.ended.remove(row)
        self._forget(pane)
        self.dash.notify(f"restored {pane.short} as {new.short}")
        return new

    def on_quit(self) -> None:
        """Write the roster, then remove this launch's token dir. Idempotent."""
        if self._quit_done:
            return
        self._quit_done = True
        if not self.enabled:
            return
        self.roster.write()
        if self.channel is not None:
            self.channel.remove()
