"""The dashboard's side of delegation records: the handle each delegated pane
runs under, its writer permit, its outcomes persisted before they are mailed,
and the redelivery at start of what a killed dashboard persisted but never sent.

Every call here is best effort for the pane (a record that cannot be written is
reported on the error log; the pane runs on) except the permit check, which
refuses the request it cannot place.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from zirv_dash import spawn
from zirv_dash.delegation import outcomes, permits, records
from zirv_dash.delegation.records import RecordProblem
from zirv_dash.delegation.transcripts import claude_transcript
from zirv_dash.panes.pane import Pane

log = logging.getLogger("zirv.intake")
ACCESS = {"writing": "write", "read-only": "read-only"}
OPERATOR = "operator"
"""The owner of a pane the operator opened in the dashboard (the spawn dialog)."""
NO_PERMIT_HARNESSES = frozenset({"shell"})
"""The operator's own shell is recorded but takes no writer permit: it is their
terminal, not a delegated writer."""
DIALOG_HINT = "tick “own git worktree” for a tree of its own"


class Delegations:
    def __init__(self, repo: Path, error: Callable[[str], None], enabled: bool = True) -> None:
        self.repo = repo
        self.error = error
        self.enabled = enabled
        self.handles: dict[str, str] = {}
        """Pane short → the handle it runs under."""
        self.by: dict[str, str] = {}
        """Pane short → who delegated it (a pane short, or `operator`)."""

    # -- validation (off the event loop: files only) -------------------------------------

    def permit_refusal(self, req: spawn.SpawnRequest, tree: Path) -> str | None:
        """The refusal of a writing request into a tree with another live writer."""
        if not self.enabled or req.mode != "writing" or req.worktree:
            return None
        holder = permits.holder(self.repo, tree)
        if holder is None or holder.handle == req.handle:
            return None
        return permits.Refusal(permits.tree_key(tree), holder).reason()

    def operator_refusal(self, agent: str, tree: str | Path) -> str | None:
        """Why a pane the operator opens from the spawn dialog may not write into
        `tree` (another live delegation holds its permit), or None."""
        if not self.enabled or agent in NO_PERMIT_HARNESSES:
            return None
        holder = permits.holder(self.repo, tree)
        if holder is None:
            return None
        return permits.Refusal(permits.tree_key(tree), holder).reason(DIALOG_HINT)

    # -- launch ----------------------------------------------------------------------------

    def operator_pane(
        self, pane: Pane, *, prompt: str | None, model: str | None, worktree: bool
    ) -> str | None:
        """A spawn-dialog pane: a handle and record like `zirv agent`'s, owned by
        the operator (`zirv ctx status --agents` lists it; its permit applies)."""
        req = spawn.SpawnRequest(
            agent=pane.agent,
            prompt=prompt or "",
            cwd=pane.cwd,
            requested_by=OPERATOR,
            model=model,
            worktree=worktree,
            mode="read-only" if pane.agent in NO_PERMIT_HARNESSES else "writing",
        )
        return self.launched(pane, req, OPERATOR)

    def launched(self, pane: Pane, req: spawn.SpawnRequest, owner: str) -> str | None:
        """Adopt the request's handle (a launch receipt of this repository no other
        run holds) or mint one; the attempt and the permit recorded. The handle."""
        if not self.enabled:
            return None
        access = ACCESS.get(req.mode, "write")
        try:
            record = self._adopt(req.handle, owner)
            if record is None:
                record = records.create(
                    self.repo,
                    harness=req.agent,
                    owner=owner,
                    workdir=pane.cwd,
                    model=req.model,
                    mode="read-only" if access == "read-only" else "write",
                    prompt=req.prompt,
                    worktree=req.worktree,
                )
            handle = record.handle
            records.update(
                self.repo,
                handle,
                lambda r: records.add_attempt(
                    records.replace(r, workdir=pane.cwd), pane.short, pane.session_id,
                    "dashboard_pane",
                ),
            )  # fmt: skip
            if access == "write":
                refusal = permits.acquire(self.repo, handle, pane.cwd)
                if refusal is not None:  # lost a race since validation: said, not fatal
                    self.error(f"pane {pane.short}: {refusal.reason()}")
        except (OSError, RecordProblem) as exc:
            self.error(f"pane {pane.short}: no delegation record ({exc})")
            return None
        self.handles[pane.short] = handle
        self.by[pane.short] = owner
        return handle

    def _adopt(self, handle: str | None, owner: str) -> records.Delegation | None:
        if not handle:
            return None
        try:
            record = records.read(self.repo, handle)
        except RecordProblem as exc:
            self.error(f"spawn request handle: {exc}; a new handle was minted")
            return None
        if record.state == "launching" or (record.terminal and record.owner == owner):
            return record
        self.error(f"spawn request handle {handle} is in use; a new handle was minted")
        return None

    def resume_refusal(self, req: spawn.SpawnRequest, parent: str | None) -> str | None:
        """Why `req.resume` may not be honoured (None: it may). Only the pane that
        delegated the handle, proven by its channel, may resume one of that
        handle's earlier claude attempts, and only one whose transcript exists."""
        if not req.resume:
            return None
        if parent is None or not req.handle:
            return "resume: only a delegating pane's own channel may resume an attempt"
        try:
            record = records.read(self.repo, req.handle)
        except RecordProblem as exc:
            return f"resume: {exc}"
        if record.owner != parent or record.harness != "claude" or req.agent != "claude":
            return f"resume: {req.handle} is not a claude delegation of pane {parent}"
        attempt = next((a for a in record.attempts if a.session == req.resume), None)
        if attempt is None:
            return f"resume: {req.resume[:40]} is not an attempt of {req.handle}"
        if not claude_transcript(attempt.session, record.workdir).is_file():
            return f"resume: no transcript of attempt {attempt.n} to resume"
        return None

    # -- outcomes --------------------------------------------------------------------------

    def persist(
        self,
        pane: Pane,
        kind: str,
        *,
        tail: str,
        result_path: str | None,
        to: str | None,
    ) -> tuple[str, str | None] | None:
        """(handle, identity to mail or None) once the outcome is on disk."""
        handle = self.handles.get(pane.short)
        if handle is None:
            return None
        code = pane.exit_code if kind != "settled" else None
        try:
            _, ident = outcomes.persist(
                self.repo, handle, kind, exit_code=code, tail=tail, result_path=result_path,
                to=to, short=pane.short, unknown_tools=pane.unknown_tool_outcomes(),
            )  # fmt: skip
        except (OSError, RecordProblem) as exc:
            self.error(f"pane {pane.short}: its outcome could not be recorded ({exc})")
            return None
        current = records.read(self.repo, handle).current
        if kind != "settled" and current is not None and current.short == pane.short:
            permits.release(self.repo, handle)
        return handle, ident

    def published(self, handle: str, ident: str) -> None:
        try:
            outcomes.mark_published(self.repo, handle, ident)
        except (OSError, RecordProblem) as exc:
            self.error(f"delegation {handle}: delivery not marked ({exc})")

    def redeliver(self, send: Callable[[records.Delegation, records.Delivery, str], None]) -> int:
        """Publish what a dashboard that is gone persisted and never sent; the count."""
        if not self.enabled:
            return 0
        problems: list[str] = []
        sent = 0
        for record, delivery in outcomes.unpublished(self.repo, problems):
            body = outcomes.redeliver_body(record, delivery)
            try:
                send(record, delivery, body)
                outcomes.mark_published(self.repo, record.handle, delivery.identity)
            except Exception as exc:  # noqa: BLE001 - mail.MailError, OSError: said, kept
                self.error(f"delegation {record.handle}: redelivery failed ({exc})")
                continue
            sent += 1
        for text in problems:
            self.error(text)
        try:
            records.prune(self.repo)
        except OSError as exc:
            log.warning("delegation records not pruned: %s", exc)
        return sent
