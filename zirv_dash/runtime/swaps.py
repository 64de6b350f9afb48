"""In-place harness or model swaps (handover), scheduled so the loop never waits.

The swap itself is `zirv_dash.handover.swap`: packet building (git, transcripts) and the
old child's quit grace run in worker threads, the successor is started and
installed on the loop. The old child is retired only once the successor has proved
itself (`runtime.successor_trial`); a successor that fails gives the pane back to it.
Swaps asked for while a pane is busy wait for its next idle boundary (the pane header
says `⤓ switching when idle`) unless forced. CLI requests (`<short>.handover-req`)
arrive through a watcher route, with the tick as a fallback, and are answered with
`<short>.handover-ack` (once the successor has proved itself, or failed).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import TYPE_CHECKING

from zirv_dash.handover import files as handover_files
from zirv_dash.handover import plan as handover_plan
from zirv_dash.handover import swap
from zirv_dash.handover.files import HandoverAck, HandoverError, HandoverFileError, HandoverRefused
from zirv_dash.handover.swap import SwapBook, SwapRequest
from zirv_dash.harnesses import adapters, catalogue
from zirv_dash.panes import registry
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.ptysession import PtySession
from zirv_dash.panes.session_env import child_env
from zirv_dash.runtime import events as ev
from zirv_dash.runtime import successor_trial as trial
from zirv_dash.runtime.host import SwapHost
from zirv_dash.runtime.swap_trials import SwapTrials
from zirv_dash.runtime.watch import Route

if TYPE_CHECKING:
    from zirv_dash.dash.dashboard import Dashboard

log = logging.getLogger("zirv.handover")


def _is_request(path: str) -> bool:
    return path.endswith(".handover-req")


class SwapScheduler:
    def __init__(self, engine: SwapHost) -> None:
        self._engine = engine
        self.book = SwapBook()
        self.trial = SwapTrials(engine, self.book, self._answer)

    def start(self) -> None:
        dash = self._engine.dash
        if not dash.manage_state:
            return
        swap.sweep_old_packets()
        try:
            sessions = registry.sessions_dir()
        except OSError as exc:
            log.warning("handover: cannot watch requests: %s", exc)
            return
        self._engine.watcher.add(
            Route("handover", sessions, _is_request, self.claim_requests, safety=True)
        )

    def tick(self) -> None:
        """Once a second (a fallback; event-driven work should not wait for it)."""
        if not self._engine.watcher.settled():
            self.claim_requests()
        self.start_due()
        book = self.book
        if book.packets:
            book.sweep_packets({p.short for p in self._engine.dash.panes if p.alive})

    def state_changed(self, pane: Pane) -> None:
        if pane.short in self.trial.trials:
            self.trial.judge()
        if pane.short in self.book.pending:
            self.start_due()

    @property
    def trials(self) -> dict[str, trial.Trial]:
        return self.trial.trials

    def on_trial(self, short: str) -> bool:
        """A successor in pane `short` has not proved itself yet."""
        return short in self.trial.trials

    def before_reap(self) -> None:
        self.trial.before_reap()

    def stop_kept(self) -> None:
        self.trial.stop_kept()

    def note(self, pane: Pane) -> str:
        """The pane header note for a pending or running swap, or ""."""
        return self.book.note(pane.short)

    # -- requests ------------------------------------------------------------------------

    def request(
        self,
        short: str,
        agent: str,
        model: str | None,
        *,
        force: bool = False,
        from_cli: bool = False,
        fresh: bool = False,
    ) -> HandoverAck:
        """Swap pane `short` to `agent`/`model`: at once if it is idle (or `force`),
        else at its next idle boundary. `fresh`: a new conversation even on the
        same harness and model (a rot restart), carried by the handoff packet.
        Returns the immediate answer (a started swap may still fail; that is
        logged in the error list)."""
        dash = self._engine.dash
        pane = dash.pane_by_short(short)
        request = SwapRequest(
            short,
            agent,
            None if model == catalogue.NO_MODEL else model,
            force=force,
            from_cli=from_cli,
            from_agent=pane.agent if pane else None,
            from_model=pane.model if pane else None,
            fresh=fresh,
        )
        if pane is None:
            return self._refuse(request, f"no pane {short} in this dashboard")
        book = self.book
        if book.busy(short):
            return self._refuse(request, f"a handover of pane {short} is already in progress")
        try:
            swap.precheck(pane, request.agent, request.model, dash.gate, fresh=fresh)
        except HandoverRefused as exc:
            return self._refuse(request, str(exc))
        login = self.trial.login_missing(request.agent, pane.cwd, running=pane.agent)
        if login:
            # Said before it starts; its trial still decides (one may have logged in since).
            dash.error(
                f"handover: warning: {request.agent} is not logged in: {login}; "
                f"pane {short} is kept if it still is"
            )
        if force or pane.is_idle():
            book.pending.pop(short, None)  # superseded by this one
            self._start(pane, request)
            return request.ack(True)
        book.defer(request)
        ack = request.ack(True, "queued until the pane is idle", stored=True)
        if from_cli:
            self._answer(short, ack)
            request.from_cli = False  # answered: the swap itself is reported in the UI
        dash.notify(
            f"handover: pane {short} switches to "
            f"{swap.describe(request.agent, request.model)} when idle"
        )
        return ack

    def _refuse(self, request: SwapRequest, reason: str) -> HandoverAck:
        self._engine.dash.error(f"handover: {reason}")
        ack = request.ack(False, reason)
        if request.from_cli:
            self._answer(request.short, ack)
            request.from_cli = False
        return ack

    def _answer(self, short: str, ack: HandoverAck) -> None:
        try:
            handover_files.write_ack(short, ack)
        except (OSError, ValueError) as exc:
            self._engine.dash.error(f"handover: could not answer pane {short}'s request: {exc}")

    def start_due(self) -> None:
        """Start deferred swaps whose pane reached an idle boundary."""
        engine = self._engine
        if engine.quitting or not self.book.pending:
            return
        for request in self.book.due(engine.dash.panes):
            pane = engine.dash.pane_by_short(request.short)
            if pane is None or not pane.alive:
                self._refuse(request, f"pane {request.short} ended before it was idle")
                continue
            try:
                swap.precheck(
                    pane, request.agent, request.model, engine.dash.gate, fresh=request.fresh
                )
            except HandoverRefused as exc:
                self._refuse(request, str(exc))
                continue
            self._start(pane, request)

    def claim_requests(self) -> None:
        """Claim `<short>.handover-req` files for panes this dashboard hosts."""
        dash = self._engine.dash
        if not dash.manage_state or self._engine.quitting:
            return
        try:
            shorts = handover_files.pending_request_shorts()
        except OSError as exc:
            log.warning("handover: cannot list requests: %s", exc)
            return
        for short in shorts:
            if dash.pane_by_short(short) is None:
                continue  # another dashboard's pane
            try:
                request = handover_files.claim_request(short)
            except HandoverFileError as exc:
                dash.error(f"handover: {exc}")
                self._answer(short, HandoverAck(False, str(exc)))
                continue
            except (OSError, ValueError) as exc:
                log.warning("handover: cannot claim %s: %s", short, exc)
                continue
            if request is None:
                continue
            self.request(
                short,
                request.target_agent,
                request.target_model,
                force=request.force,
                from_cli=True,
            )

    # -- the swap --------------------------------------------------------------------------

    def _start(self, pane: Pane, request: SwapRequest) -> None:
        self.book.running[pane.short] = request
        snapshot = swap.capture(pane)
        self._engine.run_task(
            self._run(pane, pane.pty, snapshot, request), f"handover {pane.short}"
        )
        self._engine.changed()

    async def _run(
        self,
        pane: Pane,
        old_pty: PtySession | None,
        snapshot: swap.Snapshot,
        request: SwapRequest,
    ) -> None:
        engine = self._engine
        dash = engine.dash
        book = self.book
        plan: handover_plan.SwapPlan | None = None
        try:
            plan = await asyncio.to_thread(
                swap.prepare, snapshot, request.agent, request.model, dash.gate, fresh=request.fresh
            )
            if pane.pty is not old_pty or not pane.alive or pane not in dash.panes:
                raise swap.SwapFailed(f"pane {pane.short} ended before its successor started")
            successor = start_successor(dash, pane, plan)
            # Judged on the old screen, before the successor replaces it: a quit
            # command typed into a dialog would answer it for the user.
            typed_quit_ok = pane.at_input_prompt()
            engine.unwatch(pane)
            kept = pane.kept()
            try:
                install_successor(dash, pane, successor)
            except BaseException:
                successor.pty.force_stop()
                engine.watch(pane)
                raise
            engine.watch(pane)
        except HandoverError as exc:
            swap.discard_packet(plan)
            book.running.pop(pane.short, None)
            self._refuse(request, str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - any failure keeps the original pane
            log.exception("handover of pane %s failed", pane.short)
            swap.discard_packet(plan)
            book.running.pop(pane.short, None)
            self._refuse(request, f"swap failed unexpectedly ({exc}); pane kept")
            return
        # The original is kept (unread, untouched) until the successor proves itself.
        engine.emit(ev.PaneReplaced(pane.short))
        engine.changed()
        self.trial.begin(
            trial.Trial(pane, successor.pty, kept, request, plan, typed_quit_ok, snapshot.agent)
        )


def start_successor(dash: Dashboard, pane: Pane, plan: handover_plan.SwapPlan) -> swap.Successor:
    """Start the pane's successor (swap.SwapFailed if it cannot); the pane and
    its old child are not touched. Same session id and turn-signal socket."""
    bound = dash.manage_state and pane.short in dash.signals
    env = child_env(
        pane.session_id,
        plan.agent,
        socket_path=str(registry.socket_path(pane.short)) if bound else None,
        dash_requests=dash.channels.get(pane.short),
        headless=pane.spec.headless,
        parent_session=pane.spec.requested_by,
        extra=plan.env_extra,
    )
    # The successor is a new launch: it gets the bridge as the first child did
    # (the plan's argv is built afresh for the target harness, without it).
    plan = dataclasses.replace(plan, argv=[*plan.argv, *dash.mcp_args(plan.agent, pane.session_id)])
    return swap.start_successor(
        plan,
        pane.cwd,
        env,
        pane.model_view.columns,
        pane.model_view.rows,
        dash.settings.dash.scrollback_bytes,
    )


def install_successor(dash: Dashboard, pane: Pane, successor: swap.Successor) -> PtySession | None:
    """Put a started successor in the pane and rewrite its registry record (same
    short, new pid and harness). Returns the old PTY (kept until the successor
    has proved itself, `runtime.successor_trial`)."""
    plan = successor.plan
    adapter = adapters.get(plan.agent)
    if adapter is None:  # plan_swap resolved it; defensive
        raise swap.SwapFailed(f"unknown harness {plan.agent!r}")
    prompted = plan.agent != "shell" and plan.mode != "resume"
    old_pty, _ = pane.install_successor(
        successor.pty, successor.model_view, adapter, plan.argv, plan.model, prompted
    )
    dash.register(pane, reachable=pane.short in dash.signals)
    return old_pty
