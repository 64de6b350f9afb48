"""Typing mail and nudges into panes (inventory §6), without any UI.

Text is only ever typed into a pane that can take it ("injectable"): idle, not
still digesting an earlier injection, not showing a prompt, and not holding
something the operator typed since its last turn. Typing is two writes: the
visible line ``[zirv ▸ label] body`` first, then a lone ``\\r`` about 50 ms later
(`injection` steps one line through its Enter, confirmation and retry). The
engine never sleeps: `poll(now)` does whatever is due and `next_deadline(now)`
says when to call it again, so the owner arms one timer.

A line whose Enter goes unanswered twice is reported: the dashboard logs an
error and mails the sender that the text may not have been submitted.

Sweeps (`sweep`) are cheap enough to run on every mailbox or registry change:
they claim ``.nudge`` markers, deliver queued operator nudges, and give every
injectable worker pane at most one unread message (consumed only once it has
been typed). The orchestrator never gets bodies, only a one-line advisory per
new newest-unread message — except that a native pane gets the report of one of
its own delegations as the bounded outcome (`reports`, set by the runtime),
once, and not at all when its `wait`/`result` already returned that outcome.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from enum import Enum
from typing import Protocol

from zirv_dash import paths
from zirv_dash.attention.states import PaneState
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.mail import mailbox as mail
from zirv_dash.mail import nudge, nudge_queue
from zirv_dash.mail.injection import (
    SUBMIT_DELAY,
    Injection,
    Phase,
    Step,
    advance,
    operator_typed,
    unconfirmed_text,
)
from zirv_dash.mail.nudge_queue import QueuedNudge
from zirv_dash.panes.pane import Pane

log = logging.getLogger("zirv.delivery")

OPERATOR_NUDGE_LABEL = "nudge from operator"
NUDGE_QUEUED = "nudge queued -- delivers when idle"
NO_MAIL_HARNESSES = frozenset({"shell"})
"""Panes that never get mail typed in: a shell would run the line as a command."""
DRAFT_HELD_SECS = 60.0
"""Mail waiting this long for what the operator typed in a pane says so on its row."""
SYSTEM_AGENT = "zirv"
"""`from_agent` of the dashboard's own mail (`mail.sent_since` ignores it)."""


class HeldReport(Protocol):
    """A worker's report-back mail to the native session that delegated it
    (`delegation.report_notes.Report`: the mail floor cannot import it)."""

    @property
    def consumed(self) -> bool: ...

    def label(self) -> str: ...

    def note(self) -> str: ...

    def consume(self) -> None: ...


ReportFinder = Callable[[str, str], HeldReport | None]
"""(mail body, the pane's short) → the report it is, or None."""


class NudgeResult(Enum):
    DELIVERED = "delivered"
    QUEUED = "queued"
    ENDED = "ended"


class DeliveryEngine:
    """Delivery state for one dashboard: in-flight injections, nudge queues,
    advisories already given, and the unread counts the badges show."""

    def __init__(self, dash: Dashboard) -> None:
        self.dash = dash
        self.inflight: dict[str, Injection] = {}
        self.nudges: dict[str, deque[QueuedNudge]] = {}
        """Operator nudges waiting per pane; each also on disk (`nudge_queue`)."""
        self._nudges_loaded: set[str] = set()
        """Panes whose on-disk nudges (left by an earlier dashboard) were read."""
        self.unread: dict[str, int] = {}
        """Unread messages per pane short id, as of the last sweep."""
        self.waiting: set[str] = set()
        """Panes with mail they could not take at the last sweep."""
        self.draft_held: dict[str, float] = {}
        """Panes whose mail waits for what the operator typed there (a draft), since when."""
        self._advised: dict[str, set[str]] = {}
        self._attention_skipped: set[str] = set()
        self.reports: ReportFinder | None = None
        """Set by the runtime: finds reports of a native pane's own delegations."""
        self.reports_waiting: set[str] = set()
        """Native panes with a report held until their turn ends."""

    # -- who can take text ------------------------------------------------------------

    def injectable(self, pane: Pane, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        if pane.kind == "native":  # its session knows whether a line starts a turn now,
            # or waits in its durable queue behind an approval (never answering it)
            return pane.alive and (pane.at_input_prompt() or pane.queues_input_durably())
        if not pane.alive or pane.pty is None or pane.pty.eof:
            return False
        if pane.short in self.inflight or operator_typed(pane, now):
            return False
        pane.check_screen(now)  # a prompt that just appeared must count
        if pane.remote_host and not pane.at_input_prompt():
            return False  # over the link: only at a known prompt, with the link up and ours
        return pane.is_idle(now)

    # -- typing -----------------------------------------------------------------------

    def inject(
        self,
        pane: Pane,
        line: str,
        *,
        kind: str,
        reply_to: mail.Message | None = None,
        now: float | None = None,
    ) -> bool:
        """Phase 1: type `line` (already flattened) and schedule its Enter.

        The caller checks `injectable` first; this only refuses a pane that
        cannot be written at all. Returns whether the line was written.
        """
        now = time.monotonic() if now is None else now
        if pane.kind == "native":  # its submit path, never typed bytes: no Enter phase
            return pane.deliver(line) in ("sent", "steer", "queued")
        if not pane.alive or pane.pty is None or pane.pty.eof:
            return False
        pane.send(line.encode("utf-8"), typed=False)
        self.inflight[pane.short] = Injection(
            short=pane.short,
            agent=pane.agent,
            kind=kind,
            typed_at=now,
            submit_at=now + SUBMIT_DELAY,
            typed_wall=time.time(),
            reply_to=reply_to,
            input_mark=pane.last_input_at,
        )
        log.info("typed %s into pane %s (%d bytes)", kind, pane.short, len(line))
        return True

    def poll(self, now: float | None = None) -> bool:
        """Advance every in-flight injection; returns whether anything changed."""
        now = time.monotonic() if now is None else now
        changed = False
        for short, item in list(self.inflight.items()):
            pane = self.dash.pane_by_short(short)
            if pane is None:
                del self.inflight[short]
                changed = True
                continue
            if self._advance(pane, item, now):
                changed = True
        return changed

    def _advance(self, pane: Pane, item: Injection, now: float) -> bool:
        step = advance(pane, item, now)
        if step is Step.FINISHED:
            del self.inflight[item.short]
        elif step is Step.UNCONFIRMED:
            self._unconfirmed(pane, item)
        return step is not Step.WAITING

    def _unconfirmed(self, pane: Pane, item: Injection) -> None:
        self.inflight.pop(item.short, None)
        text = unconfirmed_text(pane, item)
        self.dash.error(text)
        sender = item.reply_to
        if sender is None or sender.from_session in ("", "unknown", mail.OPERATOR):
            return
        try:
            mail.store(
                self.dash.slug,
                text,
                from_session=self.dash.short,
                from_agent=SYSTEM_AGENT,
                to=sender.from_agent,
                to_session=sender.from_session,
                keep=self.dash.settings.mail.keep,
                max_message_bytes=self.dash.settings.mail.max_message_bytes,
            )
        except (OSError, mail.MailError) as exc:
            self.dash.error(f"mail back to {sender.from_short}: {exc}")

    def next_deadline(self, now: float | None = None) -> float | None:
        """When `poll` (or a retried sweep) next has something to do, if ever
        without a new event."""
        now = time.monotonic() if now is None else now
        deadlines: list[float] = []
        for short, item in self.inflight.items():
            if item.phase is Phase.TYPED:
                deadlines.append(item.submit_at)
            elif item.phase is Phase.CONFIRMING:
                deadlines.append(item.confirm_by)
            else:
                pane = self.dash.pane_by_short(short)
                if pane is not None:
                    deadline = pane.tracker.next_deadline(now)
                    if deadline is not None:
                        deadlines.append(deadline)
        for short in self.pending_panes():
            pane = self.dash.pane_by_short(short)
            if pane is not None and short not in self.inflight:
                deadline = pane.tracker.next_deadline(now)
                if deadline is not None:
                    deadlines.append(deadline)
        return min(deadlines) if deadlines else None

    def _note_draft(self, pane: Pane, now: float) -> None:
        if operator_typed(pane, now):
            self.draft_held.setdefault(pane.short, now)
        else:
            self.draft_held.pop(pane.short, None)

    def held_by_draft(self, short: str, now: float | None = None) -> bool:
        """Mail has waited longer than `DRAFT_HELD_SECS` for what the operator
        typed in pane `short` (the row says so: nothing is lost, it waits)."""
        since = self.draft_held.get(short)
        now = time.monotonic() if now is None else now
        return since is not None and now - since > DRAFT_HELD_SECS

    def pending_panes(self) -> set[str]:
        """Panes that have something waiting for them (mail or queued nudges)."""
        held = self.waiting | self.reports_waiting
        return held | {s for s, q in self.nudges.items() if q}

    # -- operator nudges -----------------------------------------------------------------

    def nudge(self, pane: Pane, text: str, now: float | None = None) -> NudgeResult:
        """Type an operator nudge now if the pane can take it, else queue it
        (durably: a restarted dashboard delivers it to the restored pane)."""
        now = time.monotonic() if now is None else now
        if not pane.alive:
            self.dash.error(f"nudge: target ended before it could be delivered ({pane.short})")
            return NudgeResult.ENDED
        queue = self._queue(pane.short)
        if not queue and self.injectable(pane, now):
            line = mail.injection_line(
                OPERATOR_NUDGE_LABEL, text, self.dash.settings.mail.max_delivered_bytes
            )
            if self.inject(pane, line, kind="nudge", now=now):
                return NudgeResult.DELIVERED
        queue.append(self._store_nudge(pane.short, text))
        return NudgeResult.QUEUED

    def _queue(self, short: str) -> deque[QueuedNudge]:
        """The pane's queue, first seeded with what an earlier dashboard left on disk."""
        queue = self.nudges.setdefault(short, deque())
        if short not in self._nudges_loaded:
            self._nudges_loaded.add(short)
            if self.dash.manage_state:
                known = {item.path for item in queue}
                queue.extendleft(
                    reversed([i for i in nudge_queue.pending(short) if i.path not in known])
                )
        return queue

    def _store_nudge(self, short: str, text: str) -> QueuedNudge:
        if not self.dash.manage_state:
            return QueuedNudge(text)
        try:
            return QueuedNudge(text, nudge_queue.enqueue(short, text))
        except (OSError, ValueError) as exc:
            self.dash.error(f"nudge for {short} kept in memory only (not stored: {exc})")
            return QueuedNudge(text)

    def load_nudges(self) -> None:
        """Pick up nudges left on disk for live panes seen for the first time (a
        restored pane after a restart): one directory listing per pane, once."""
        for pane in self.dash.live_panes:
            if pane.short not in self._nudges_loaded:
                if not self._queue(pane.short):
                    del self.nudges[pane.short]

    def deliver_nudges(self, now: float | None = None) -> int:
        """One queued nudge per injectable pane; returns how many were typed."""
        now = time.monotonic() if now is None else now
        typed = 0
        for short, queue in list(self.nudges.items()):
            if not queue:
                del self.nudges[short]
                continue
            pane = self.dash.pane_by_short(short)
            if pane is None or not pane.alive:
                self.dash.error(f"nudge: target ended before it could be delivered ({short})")
                for item in queue:
                    nudge_queue.remove(item)
                del self.nudges[short]
                continue
            if not self.injectable(pane, now):
                continue
            line = mail.injection_line(
                OPERATOR_NUDGE_LABEL, queue[0].text, self.dash.settings.mail.max_delivered_bytes
            )
            if self.inject(pane, line, kind="nudge", now=now):
                nudge_queue.remove(queue.popleft())
                typed += 1
                if not queue:
                    del self.nudges[short]
        return typed

    # -- markers and mail ------------------------------------------------------------

    def claim_markers(self) -> list[str]:
        """Claim the ``.nudge`` markers of our live panes; returns the notices."""
        notices = []
        for pane in self.dash.live_panes:
            if pane.remote_host:
                continue  # its markers are its host's, claimed by that runtime
            try:
                sender = nudge.claim_marker(pane.short)
            except (OSError, ValueError) as exc:
                log.warning("nudge marker of %s: %s", pane.short, exc)
                continue
            if sender is not None:
                log.info("nudge marker for %s claimed (from %s)", pane.short, sender)
                notices.append(f"nudge received for {pane.short} -- see inbox")
        return notices

    def sweep_mail(self, now: float | None = None, only: set[str] | None = None) -> int:
        """Deliver at most one message per injectable worker pane and advise the
        orchestrator; refresh the unread counts. Returns how many were typed.

        `only` limits the sweep to those panes (a cheap retry at an idle boundary).
        """
        now = time.monotonic() if now is None else now
        settings = self.dash.settings.mail
        if not settings.enabled:
            self.unread.clear()
            self.waiting.clear()
            return 0
        typed = 0
        # A remote host's pane gets its mail from its own repository's mailbox,
        # typed by its own runtime there: this mailbox is never copied to it.
        live = [
            p
            for p in self.dash.live_panes
            if not p.remote_host and (only is None or p.short in only)
        ]
        # Workers first, so the orchestrator is only advised of what they left.
        live.sort(key=lambda p: p.role == "orchestrator")
        for pane in live:
            problems: list[str] = []
            try:
                unread = mail.list_messages(
                    self.dash.slug, agent=pane.agent, short=pane.short, problems=problems
                )
            except (OSError, mail.MailError) as exc:
                self.dash.error(f"mail: {exc}")
                return typed
            for problem in problems:
                log.warning("%s", problem)
            held = 0  # a native pane's reports held for the end of its turn
            if pane.kind == "native" and self.reports is not None:
                unread, held, typed_report = self._native_reports(pane, unread, now)
                typed += typed_report
            self.unread[pane.short] = len(unread) + held
            if pane.agent in NO_MAIL_HARNESSES:
                self.waiting.discard(pane.short)
                continue
            if pane.role == "orchestrator":
                self._advise(pane, unread, now)
                continue
            if not unread:
                self.waiting.discard(pane.short)
                self.draft_held.pop(pane.short, None)
                continue
            if not self.injectable(pane, now):
                self.waiting.add(pane.short)
                self._note_draft(pane, now)
                self._note_attention_skip(pane, unread[0], now)
                continue
            self.draft_held.pop(pane.short, None)
            if self._deliver(pane, unread[0], now):
                typed += 1
                self.unread[pane.short] = len(unread) - 1 + held
            if len(unread) > 1:
                self.waiting.add(pane.short)
            else:
                self.waiting.discard(pane.short)
        alive = {p.short for p in self.dash.live_panes}
        self.waiting &= alive
        self.reports_waiting &= alive
        for short in list(self.draft_held):
            if short not in alive:
                del self.draft_held[short]
        for short in list(self.unread):
            if short not in alive:
                del self.unread[short]
        return typed

    def _native_reports(
        self, pane: Pane, unread: list[mail.Message], now: float
    ) -> tuple[list[mail.Message], int, int]:
        """A native pane's reports of its own delegations: each is the bounded
        outcome itself, typed at most once (by its delivery identity) and only
        at the end of a turn — and not at all when `wait` or `result` already
        gave the model that outcome (the mail is then marked read, no turn
        starts). Returns the other messages, how many reports wait and how many
        were typed."""
        assert self.reports is not None
        rest: list[mail.Message] = []
        held = typed = 0
        for message in unread:
            report = self.reports(message.body, pane.short)
            if report is None:
                rest.append(message)
                continue
            if report.consumed:
                self._consume_report(pane, message, "its outcome already reached the model")
                continue
            # Never steered into a running turn (it may be the `wait` about to
            # return this very outcome) nor queued behind an approval.
            if typed or not pane.at_input_prompt():
                held += 1
                continue
            line = mail.injection_line(
                report.label(), report.note(), self.dash.settings.mail.max_delivered_bytes
            )
            if not self.inject(pane, line, kind="report", now=now):
                held += 1
                continue
            try:
                report.consume()
            except OSError as exc:
                self.dash.error(f"report {message.id}: typed, identity not consumed: {exc}")
            self._consume_report(pane, message, "typed")
            typed += 1
        if held:
            self.reports_waiting.add(pane.short)
        else:
            self.reports_waiting.discard(pane.short)
        return rest, held, typed

    def _consume_report(self, pane: Pane, message: mail.Message, why: str) -> None:
        try:
            mail.consume(message, reader=pane.short)
        except OSError as exc:
            self.dash.error(f"mail {message.id}: not marked read: {exc}")
            return
        log.info("report %s for %s consumed (%s)", message.id, pane.short, why)

    def _deliver(self, pane: Pane, message: mail.Message, now: float) -> bool:
        parent = paths.short_id(pane.spec.requested_by) if pane.spec.requested_by else None
        line = mail.injection_line(
            mail.mail_label(message, steering_from=parent),
            message.body,
            self.dash.settings.mail.max_delivered_bytes,
        )
        if not self.inject(pane, line, kind="mail", reply_to=message, now=now):
            return False
        try:
            consumed = mail.consume(message, reader=pane.short)
        except OSError as exc:
            self.dash.error(f"mail {message.id}: typed into {pane.short}, not marked read: {exc}")
            consumed = False
        if consumed:
            log.info("mail %s consumed by dash:sweep:%s", message.id, pane.short)
        else:
            log.info("mail %s was not consumed after typing it into %s", message.id, pane.short)
        if message.id in self._attention_skipped:
            self._attention_skipped.discard(message.id)
            log.info("mail-attention-delivered mail %s to %s", message.id, pane.short)
        return True

    def _note_attention_skip(self, pane: Pane, message: mail.Message, now: float) -> None:
        if pane.state(now) is not PaneState.NEEDS_YOU or message.id in self._attention_skipped:
            return
        self._attention_skipped.add(message.id)
        reason = pane.reason(now) or "needs you"
        log.info("mail-attention-skip mail %s: %s (%s)", message.id, reason, pane.short)

    def _advise(self, pane: Pane, unread: list[mail.Message], now: float) -> None:
        advised = self._advised.setdefault(pane.short, set())
        advised &= {m.id for m in unread}
        if not unread or unread[-1].id in advised:
            self.waiting.discard(pane.short)
            self.draft_held.pop(pane.short, None)
            return
        if not self.injectable(pane, now):
            self.waiting.add(pane.short)
            self._note_draft(pane, now)
            return
        self.draft_held.pop(pane.short, None)
        line = mail.unread_advisory(len(unread), unread[-1])
        if self.inject(pane, line, kind="advisory", now=now):
            advised.add(unread[-1].id)
            self.waiting.discard(pane.short)

    def sweep(self, now: float | None = None) -> list[str]:
        """Everything a mailbox/registry change calls for; returns notices."""
        now = time.monotonic() if now is None else now
        notices = self.claim_markers()
        self.load_nudges()
        self.poll(now)
        self.deliver_nudges(now)
        self.sweep_mail(now)
        return notices

    def retry_pending(self, now: float | None = None) -> bool:
        """At an idle boundary: deliver to panes that were waiting and can now take
        text. Cheap when nothing waits (no file I/O). Returns whether anything ran."""
        now = time.monotonic() if now is None else now
        changed = self.poll(now)
        ready = {
            short
            for short in self.pending_panes()
            if (pane := self.dash.pane_by_short(short)) is not None
            and (not pane.alive or self.injectable(pane, now))
        }
        if not ready:
            return changed
        self.deliver_nudges(now)
        mail_ready = ready & (self.waiting | self.reports_waiting)
        if mail_ready:
            self.sweep_mail(now, only=mail_ready)
        return True
