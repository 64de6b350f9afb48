"""Report-back: a delegated pane's requester is mailed once, when the pane
settles or ends, with the outcome and the last screen lines (unless the worker
mailed first); the `logs/delegation-results/` record is kept either way."""

from __future__ import annotations

import time

from zirv_dash import paths, spawn
from zirv_dash.attention.states import PaneState
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.delegation import result as delegation_result
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
        """Mail the requester once: outcome and the last screen lines. True if mailed."""
        requester = self.to.get(pane.short)
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


def requester_label(label: str) -> str | None:
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
