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
from zirv_dash.intake.native_reopen import reopen_module
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
        self.claimed: list[roster.RosterPane] = []
        """Every entry of the roster this launch claimed (its orchestrator too),
        read once: the consumed file is never read again by a later launch."""

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
        self.claimed = list(panes)
        for problem in problems:  # a refused or corrected entry must reach `^A e`
            self.dash.error(problem)
        # A native conversation with nothing said is not worth offering (the
        # fresh orchestrator the last launch made and nobody used).
        panes = [p for p in panes if p.agent != NATIVE or reopen_module().reopenable(p.short)]
        offer, kept = roster.partition_live(panes, state=self.intake.state)
        offer += self._unfinished_native(panes)
        for entry in kept:
            notice = roster.kept_notice(entry)
            log.info("%s", notice)
            self.dash.notify(notice)
        self.deferred += kept
        self.candidates = list(offer)
        return offer

    def _unfinished_native(self, listed: list[roster.RosterPane]) -> list[roster.RosterPane]:
        """Native conversations in this repository that stopped without ending
        and that no roster names: their dashboard was killed before it could
        write one. Offered like roster entries; a call that was running reads
        as `outcome unknown` when the journal is replayed, never re-run."""
        skip = {p.short for p in listed} | {p.short for p in self.dash.panes}
        out: list[roster.RosterPane] = []
        max_age = self.dash.settings.dash.roster_max_age_secs
        for convo in reopen_module().unfinished(self.dash.repo, skip, max_age):
            entry = roster.RosterPane(
                agent=NATIVE,
                session_id=convo.session_id,
                role=convo.role,
                short=convo.name,
                title="orch" if convo.role == "orchestrator" else f"wrk {NATIVE}",
                cwd=convo.workdir or None,
                native=True,
            )
            if paths.short_id(entry.session_id) != convo.name:
                continue  # a journal not named after its session: not ours to reopen
            if not roster.session_is_live(self.intake.state, entry):
                out.append(entry)
        return out

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
        if entry.agent == NATIVE and entry.role == "orchestrator":
            role = "orchestrator"  # its conversation reopens from its journal
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
                # The conversation reopened in place of the blank one a launch
                # makes is what the operator came back for: it gets the focus.
                focus=role == "orchestrator",
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
                    cwd=pane.current_cwd,  # where an OSC 7 shell `cd`-ed to
                    model=pane.model,
                )
            )
        return out + self._ended_native() + self.candidates + self.deferred

    def _ended_native(self) -> list[roster.RosterPane]:
        """Native rows ended in this launch (Ctrl+Q) whose journal holds a
        conversation: restorable at the next launch too (the orchestrator's, when
        ending it closed the dashboard, could not be brought back otherwise)."""
        out: list[roster.RosterPane] = []
        for row in self.dash.ended:
            pane = row.pane
            if pane.agent != NATIVE or pane.alive or not reopen_module().reopenable(pane.short):
                continue
            out.append(
                roster.RosterPane(
                    agent=NATIVE,
                    session_id=pane.session_id,
                    role=pane.role,
                    short=pane.short,
                    title=self.intake.titles.get(pane.short)
                    or ("orch" if pane.role == "orchestrator" else f"wrk {NATIVE}"),
                    interactive=not pane.spec.headless,
                    cwd=pane.cwd,
                    native=True,
                )
            )
        return out

    def write(self, *, live: bool = False) -> None:
        """Write every entry to the roster (an error-log line if it cannot be).
        `live`: the topology as it is now, written at each change so a process
        killed without its quit path leaves the latest one; with no entry left
        the roster is removed (an older one must not come back)."""
        entries = self.entries()
        try:
            if entries:
                roster.write_roster(self.intake.state, self.dash.slug, entries)
            elif live:
                roster.clear_roster(self.intake.state, self.dash.slug)
        except OSError as exc:
            self.dash.error(f"restore roster could not be written: {exc}")
