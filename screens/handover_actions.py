"""The handover picker and in-place harness or model swaps (issue 6).

A mixin of DashboardScreen: it may use the screen's `dash`, `views`, `_spawn`,
`_show_focused` and `_update_chrome`. The screen calls the hooks below.

The swap itself is `zirv_dash.swap`; this mixin schedules its steps so the UI
loop never waits: packet building (git, transcripts) and the old child's quit
grace run in worker threads, the successor is started and installed on the loop.
Swaps asked for while a pane is busy wait for its next idle boundary (the pane
header says `⤓ switching when idle`) unless forced. CLI requests
(`<short>.handover-req`) are picked up through watchfiles, with the 1 s tick as
a fallback, and answered with `<short>.handover-ack`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from textual import work

from zirv_dash import adapters, catalogue, handover, registry, swap
from zirv_dash.handover import HandoverAck, HandoverError, HandoverFileError, HandoverRefused
from zirv_dash.handover_cli import DELIVERY
from zirv_dash.pane import Pane
from zirv_dash.ptysession import PtySession
from zirv_dash.swap import SwapBook, SwapRequest

if TYPE_CHECKING:
    from screens.app import LaunchOptions
    from widgets.terminal_view import TerminalView
    from zirv_dash.dashboard import Dashboard

log = logging.getLogger("zirv.handover")

PENDING_POLL_SECS = 0.25


if TYPE_CHECKING:
    from textual.screen import Screen

    _Base = Screen[None]
else:
    _Base = object


class HandoverActions(_Base):
    if TYPE_CHECKING:
        dash: Dashboard
        views: dict[str, TerminalView]
        options: LaunchOptions

        def _watch(self, pane: Pane) -> None: ...
        def _unwatch(self, pane: Pane) -> None: ...
        def _update_chrome(self) -> None: ...

    # -- hooks -------------------------------------------------------------------------

    def _handover_mounted(self) -> None:
        """The screen is mounted and the first panes are starting."""
        self.set_interval(PENDING_POLL_SECS, self._handover_poll, name="handover-poll")
        if self.dash.manage_state:
            self._handover_watch()
            swap.sweep_old_packets()

    def _handover_tick(self) -> None:
        """Once a second (a fallback; event-driven work should not wait for it)."""
        self._handover_claim_requests()
        self._handover_poll()
        book = self._handover_book
        if book.packets:
            book.sweep_packets({p.short for p in self.dash.panes if p.alive})

    def _handover_extra(self, pane: Pane) -> str:
        """The pane header note for a pending or running swap, or ""."""
        return self._handover_book.note(pane.short)

    @property
    def _handover_book(self) -> SwapBook:
        book: SwapBook | None = getattr(self, "_handover_swaps", None)
        if book is None:
            book = SwapBook()
            self._handover_swaps = book
        return book

    # -- the picker ----------------------------------------------------------------------

    def do_handover(self) -> None:
        """Ctrl+A o: the handover picker for the focused pane."""
        pane = self.dash.focused_pane
        if pane is None:
            self.dash.notify("handover: no focused pane")
            self._update_chrome()
            return
        self.open_handover(pane.short)

    def open_handover(self, short: str) -> None:
        """The handover picker for pane `short` (the context menu's `handover`)."""
        from screens.handover import HandoverChoice, HandoverScreen

        pane = self.dash.pane_by_short(short)
        if pane is None or not pane.alive:
            self.dash.notify(f"handover: pane {short} has no running child to hand over")
            self._update_chrome()
            return
        rows = catalogue.picker_rows(
            self.options.settings, self.dash.gate.enabled, pane.agent, pane.model
        )
        book = self._handover_book
        note = ""
        if book.busy(short):
            note = f"a handover of pane {short} is in progress"
        elif short in book.pending:
            queued = book.pending[short]
            note = (
                f"⤓ switching to {swap.describe(queued.agent, queued.model)} when idle; "
                "a new choice replaces it"
            )

        def done(choice: HandoverChoice | None) -> None:
            if choice is not None:
                self.request_handover(short, choice.agent, choice.model, force=choice.force)

        self.app.push_screen(HandoverScreen(short, rows, idle=pane.is_idle(), busy_note=note), done)

    # -- requests ------------------------------------------------------------------------

    def request_handover(
        self,
        short: str,
        agent: str,
        model: str | None,
        *,
        force: bool = False,
        from_cli: bool = False,
    ) -> HandoverAck:
        """Swap pane `short` to `agent`/`model`: at once if it is idle (or `force`),
        else at its next idle boundary. Returns the immediate answer (a started
        swap may still fail; that is logged in the error list)."""
        pane = self.dash.pane_by_short(short)
        request = SwapRequest(
            short,
            agent,
            None if model == catalogue.NO_MODEL else model,
            force=force,
            from_cli=from_cli,
            from_agent=pane.agent if pane else None,
            from_model=pane.model if pane else None,
        )
        if pane is None:
            return self._handover_refuse(request, f"no pane {short} in this dashboard")
        book = self._handover_book
        if book.busy(short):
            return self._handover_refuse(
                request, f"a handover of pane {short} is already in progress"
            )
        try:
            swap.precheck(pane, request.agent, request.model, self.dash.gate)
        except HandoverRefused as exc:
            return self._handover_refuse(request, str(exc))
        if force or pane.is_idle():
            book.pending.pop(short, None)  # superseded by this one
            self._handover_start(pane, request)
            return request.ack(True)
        book.defer(request)
        ack = request.ack(True, "queued until the pane is idle", stored=True)
        if from_cli:
            self._handover_answer(short, ack)
            request.from_cli = False  # answered: the swap itself is reported in the UI
        self.dash.notify(
            f"handover: pane {short} switches to "
            f"{swap.describe(request.agent, request.model)} when idle"
        )
        self._update_chrome()
        return ack

    def _handover_refuse(self, request: SwapRequest, reason: str) -> HandoverAck:
        self.dash.error(f"handover: {reason}")
        ack = request.ack(False, reason)
        if request.from_cli:
            self._handover_answer(request.short, ack)
            request.from_cli = False
        self._update_chrome()
        return ack

    def _handover_answer(self, short: str, ack: HandoverAck) -> None:
        try:
            handover.write_ack(short, ack)
        except (OSError, ValueError) as exc:
            self.dash.error(f"handover: could not answer pane {short}'s request: {exc}")

    def _handover_poll(self) -> None:
        """Start deferred swaps whose pane reached an idle boundary."""
        if self._quitting:  # type: ignore[attr-defined]
            return
        book = self._handover_book
        if not book.pending:
            return
        for request in book.due(self.dash.panes):
            pane = self.dash.pane_by_short(request.short)
            if pane is None or not pane.alive:
                self._handover_refuse(request, f"pane {request.short} ended before it was idle")
                continue
            try:
                swap.precheck(pane, request.agent, request.model, self.dash.gate)
            except HandoverRefused as exc:
                self._handover_refuse(request, str(exc))
                continue
            self._handover_start(pane, request)

    def _handover_claim_requests(self) -> None:
        """Claim `<short>.handover-req` files for panes this dashboard hosts."""
        if not self.dash.manage_state:
            return
        try:
            shorts = handover.pending_request_shorts()
        except OSError as exc:
            log.warning("handover: cannot list requests: %s", exc)
            return
        for short in shorts:
            pane = self.dash.pane_by_short(short)
            if pane is None:
                continue  # another dashboard's pane
            try:
                request = handover.claim_request(short)
            except HandoverFileError as exc:
                self.dash.error(f"handover: {exc}")
                self._handover_answer(short, HandoverAck(False, str(exc)))
                continue
            except (OSError, ValueError) as exc:
                log.warning("handover: cannot claim %s: %s", short, exc)
                continue
            if request is None:
                continue
            self.request_handover(
                short,
                request.target_agent,
                request.target_model,
                force=request.force,
                from_cli=True,
            )

    @work(exclusive=True, group="handover-watch")
    async def _handover_watch(self) -> None:
        """Claim CLI requests as soon as they are written (the tick is a fallback)."""
        from watchfiles import awatch

        try:
            directory = registry.sessions_dir()
            async for changes in awatch(directory, debounce=100, step=100):
                if any(path.endswith(".handover-req") for _, path in changes):
                    self._handover_claim_requests()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the 1 s tick still claims requests
            log.warning("handover: watching requests failed (%s); polling instead", exc)

    # -- the swap --------------------------------------------------------------------------

    def _handover_start(self, pane: Pane, request: SwapRequest) -> None:
        book = self._handover_book
        book.running[pane.short] = request
        snapshot = swap.capture(pane)
        self.run_worker(
            self._handover_run(pane, pane.pty, snapshot, request),
            group=f"handover-{pane.short}",
            exit_on_error=False,
        )
        self._update_chrome()

    async def _handover_run(
        self,
        pane: Pane,
        old_pty: PtySession | None,
        snapshot: swap.Snapshot,
        request: SwapRequest,
    ) -> None:
        book = self._handover_book
        plan: handover.SwapPlan | None = None
        retiring: PtySession | None = None
        typed_quit_ok = False
        try:
            plan = await asyncio.to_thread(
                swap.prepare, snapshot, request.agent, request.model, self.dash.gate
            )
            if pane.pty is not old_pty or not pane.alive or pane not in self.dash.panes:
                raise swap.SwapFailed(f"pane {pane.short} ended before its successor started")
            successor = self.dash.start_successor(pane, plan)
            # Judged on the old screen, before the successor replaces it: a quit
            # command typed into a dialog would answer it for the user.
            typed_quit_ok = pane.at_input_prompt()
            self._unwatch(pane)
            try:
                retiring = self.dash.install_successor(pane, successor)
            except BaseException:
                successor.pty.force_stop()
                self._watch(pane)
                raise
            self._watch(pane)
            book.keep_packet(pane.short, plan)
        except HandoverError as exc:
            swap.discard_packet(plan)
            book.running.pop(pane.short, None)
            self._handover_refuse(request, str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - any failure keeps the original pane
            log.exception("handover of pane %s failed", pane.short)
            swap.discard_packet(plan)
            book.running.pop(pane.short, None)
            self._handover_refuse(request, f"swap failed unexpectedly ({exc}); pane kept")
            return
        book.running.pop(pane.short, None)
        view = self.views.get(pane.short)
        if view is not None:
            view.full_refresh()
        old = swap.describe(request.from_agent or "?", request.from_model)
        new = swap.describe(plan.agent, plan.model)
        self.dash.notify(f"handover: pane {pane.short} {old} → {new}")
        if request.from_cli:
            delivery = DELIVERY.get(plan.mode, plan.mode)
            if plan.packet_file is not None and plan.agent == "shell":
                delivery = f"handoff packet in {plan.packet_file} (never on a shell's argv)"
            self._handover_answer(pane.short, request.ack(True, delivery))
            request.from_cli = False
        self._update_chrome()
        if retiring is not None:
            outgoing = adapters.get(snapshot.agent)
            defer = bool(outgoing and outgoing.defer_submit)
            quit_sequence = plan.old_quit_sequence if typed_quit_ok else b""
            await asyncio.to_thread(swap.retire, retiring, quit_sequence, None, defer)
