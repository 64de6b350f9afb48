"""Report-back: a delegated pane's requester is mailed once, when the pane
settles or ends, with the outcome and the last screen lines (unless the worker
mailed first); the `logs/delegation-results/` record is kept either way."""

from __future__ import annotations

import time

from zirv_dash import paths, spawn
from zirv_dash.attention.states import PaneState
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.delegation import outcomes, records
from zirv_dash.delegation import result as delegation_result
from zirv_dash.intake.delegations import Delegations
from zirv_dash.mail import mailbox as mail
from zirv_dash.panes.pane import Pane

REPORT_TAIL_LINES = 20
REPORT_TAIL_BYTES = 2048


class ReportBack:
    """Who each delegated pane reports to, and which reports went out."""

    def __init__(self, dash: Dashboard) -> None:
        self.dash = dash
        self.to: dict[str, str] = {}
        """Pane short → the requester's short, or `mail.OPERATOR`."""
        self.reported: set[str] = set()
        self.delegations: Delegations | None = None
        """The delegation records outcomes are persisted into (set by the intake)."""

    def settled(self) -> None:
        now = time.monotonic()
        for pane in self.dash.live_panes:
            if pane.short not in self.to or pane.short in self.reported:
                continue
            if pane.last_output_at is None:
                continue
            if pane.state(now) in (PaneState.IDLE, PaneState.DONE_UNSEEN):
                self.report(pane, ended=False)

    def report(self, pane: Pane, ended: bool) -> bool:
        """Mail the requester once: outcome and the last screen lines. True if mailed.

        The outcome goes into the pane's delegation record first (with the
        delivery identity the mail will carry), the mail second: a dashboard
        killed in between leaves it for the next one to publish."""
        requester = self.to.get(pane.short)
        if requester is None:
            if ended and self.delegations is not None:  # a spawn-dialog pane: no mail,
                # but its record ends and its permit is given back
                self.delegations.persist(
                    pane, "ended", tail=screen_tail(pane), result_path=None, to=None
                )
            return False
        if pane.short in self.reported:
            if ended and self.delegations is not None:  # on record, no second mail
                self.delegations.persist(
                    pane, "ended", tail=screen_tail(pane), result_path=None, to=None
                )
            return False
        self.reported.add(pane.short)
        body = report_body(pane, ended)
        result_path = self._store_result(pane, requester, body, ended)
        mail_on = self.dash.settings.mail.enabled
        try:
            will_mail = mail_on and not mail.sent_since(self.dash.slug, pane.short, pane.created_at)
        except (mail.MailError, OSError) as exc:
            self.dash.error(f"report for {pane.short}: could not read the mailbox: {exc}")
            will_mail = False
        persisted = None
        if self.delegations is not None:
            persisted = self.delegations.persist(
                pane,
                "ended" if ended else "settled",
                tail=screen_tail(pane),
                result_path=result_path,
                to=requester if will_mail else None,
            )
        if not will_mail or (persisted is not None and persisted[1] is None):
            return False
        ident = persisted[1] if persisted is not None else None
        try:
            delegation_result.mail_report(
                self.dash.slug,
                outcomes.with_identity(body, ident) if ident else body,
                from_session=pane.session_id,
                to_session=None if requester == mail.OPERATOR else requester,
                keep=self.dash.settings.mail.keep,
                max_message_bytes=self.dash.settings.mail.max_message_bytes,
            )
        except (mail.MailError, OSError) as exc:
            self.dash.error(f"report for {pane.short}: could not mail {requester}: {exc}")
            return False
        if persisted is not None and ident is not None:
            self.delegations.published(persisted[0], ident)  # type: ignore[union-attr]
        return True

    def redeliver(self) -> int:
        """At start: publish the outcomes a dashboard killed between persisting and
        mailing left behind (each once; the reader drops a repeat)."""
        if self.delegations is None or not self.dash.settings.mail.enabled:
            return 0

        def send(record: records.Delegation, delivery: records.Delivery, body: str) -> None:
            attempt = record.current
            delegation_result.mail_report(
                self.dash.slug,
                body,
                from_session=attempt.session if attempt is not None else record.handle,
                to_session=None if delivery.to == mail.OPERATOR else delivery.to,
                keep=self.dash.settings.mail.keep,
                max_message_bytes=self.dash.settings.mail.max_message_bytes,
            )

        return self.delegations.redeliver(send)

    def _store_result(self, pane: Pane, requester: str, body: str, ended: bool) -> str | None:
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
            return str(delegation_result.write(result))
        except OSError as exc:
            self.dash.error(f"report for {pane.short}: could not store its result: {exc}")
            return None


def requester_label(label: str) -> str | None:
    """An advisory `requested_by` worth mailing (a short id, not `unknown`)."""
    if label and label != "unknown" and spawn.SHORT_RE.match(label):
        return label
    return None


def screen_tail(pane: Pane, lines: int = REPORT_TAIL_LINES, cap: int = REPORT_TAIL_BYTES) -> str:
    """The last non-blank screen lines, at most `cap` bytes (the newest kept)."""
    rows = pane.report_lines()
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
