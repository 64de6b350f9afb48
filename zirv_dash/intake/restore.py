"""The restore roster: entries offered at start and answered once (restore or
skip), respawned under the pane cap with every gate re-applied; the roster of
live and waiting panes written on quit."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from zirv_dash import paths, spawn
from zirv_dash.dash import roster
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.harnesses import adapters
from zirv_dash.harnesses.native_kind import NATIVE, NATIVE_ADAPTER
from zirv_dash.intake.views import RestoreIntake
from zirv_dash.mail import mailbox as mail
from zirv_dash.panes.pane import Pane
from zirv_dash.textcheck import text_problem

log = logging.getLogger("zirv.intake")

_ROSTER_TEXT = (
    "agent", "session_id", "role", "short", "title", "report_to",
    "work_group_id", "parent_session", "cwd",
)  # fmt: skip


class RosterRestore:
    """The restore offer and what became of it, for one intake."""

    def __init__(self, intake: RestoreIntake) -> None:
        self.intake = intake
        self.restored_from: dict[str, roster.RosterPane] = {}
        self.candidates: list[roster.RosterPane] = []
        """Restore entries offered and not yet answered."""
        self.deferred: list[roster.RosterPane] = []
        """Entries carried into the next roster (still live, over the cap, failed)."""

    @property
    def dash(self) -> Dashboard:
        return self.intake.dash

    def take_offer(self) -> list[roster.RosterPane]:
        """Claim the roster; notices for entries still live; the rest is offered."""
        if not self.intake.enabled:
            return []
        problems: list[str] = []
        panes = roster.take_roster(
            self.intake.state,
            self.dash.slug,
            self.dash.settings.dash.roster_max_age_secs,
            problems=problems,
        )
        for problem in problems:  # a refused or corrected entry must reach `^A e`
            self.dash.error(problem)
        offer, kept = roster.partition_live(panes, state=self.intake.state)
        for entry in kept:
            notice = roster.kept_notice(entry)
            log.info("%s", notice)
            self.dash.notify(notice)
        self.deferred += kept
        self.candidates = list(offer)
        return offer

    def skip(self) -> None:
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
        # A native pane is zirv's own session, not a harness CLI.
        adapter = NATIVE_ADAPTER if entry.agent == NATIVE else adapters.get(entry.agent)
        if adapter is None:
            self.dash.error(f"restore {entry.short}: unknown harness {spawn.show(entry.agent, 40)}")
            return None
        refusal = self.dash.gate.refusal(entry.agent)
        if refusal:
            self.dash.error(f"restore {entry.short}: adapter {entry.agent} is {refusal}")
            return None
        role = "sub-orchestrator" if entry.role == "sub-orchestrator" else "worker"
        try:
            pane = self.intake.spawner(
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
            self.intake.report_to[pane.short] = entry.report_to
        if entry.settled_mail_sent:
            self.intake.reported.add(pane.short)
        if entry.parent_session:
            self.intake.parents[pane.short] = paths.short_id(entry.parent_session) or None
        self.intake.titles[pane.short] = entry.title or f"wrk {entry.agent}"
        return pane

    def entries(self) -> list[roster.RosterPane]:
        """Every live pane, then unanswered and deferred entries (de-duplicated on write)."""
        out: list[roster.RosterPane] = []
        for pane in self.dash.live_panes:
            if pane.remote_host:
                continue  # it lives on in its host's runtime; nothing to restore here
            before = self.restored_from.get(pane.short)
            parent = self.intake.parents.get(pane.short)
            out.append(
                roster.RosterPane(
                    agent=pane.agent,
                    session_id=pane.session_id,
                    role=pane.role,
                    short=pane.short,
                    title=self.intake.titles.get(pane.short)
                    or ("orch" if pane.role == "orchestrator" else f"wrk {pane.agent}"),
                    report_to=self.intake.report_to.get(pane.short),
                    settled_mail_sent=pane.short in self.intake.reported,
                    work_group_id=before.work_group_id if before else None,
                    budget_tokens=before.budget_tokens if before else None,
                    interactive=not pane.spec.headless,
                    parent_session=parent or (before.parent_session if before else None),
                    cwd=pane.cwd,
                    model=pane.model,
                )
            )
        return out + self.candidates + self.deferred

    def write(self) -> None:
        """Write every entry to the roster (an error-log line if it cannot be)."""
        entries = self.entries()
        if entries:
            try:
                roster.write_roster(self.intake.state, self.dash.slug, entries)
            except OSError as exc:
                self.dash.error(f"restore roster could not be written: {exc}")
