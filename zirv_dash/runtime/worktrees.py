"""Pane worktrees: created before a pane starts, reclaimed after it ends, off the loop."""

from __future__ import annotations

import asyncio

from zirv_dash import paths
from zirv_dash.dash.dashboard import DashError
from zirv_dash.panes.pane import Pane
from zirv_dash.repo import worktree as worktrees
from zirv_dash.runtime.host import OpeningHost


class WorktreeController:
    def __init__(self, engine: OpeningHost) -> None:
        self._engine = engine

    def spawn(self, agent: str, prompt: str | None, model: str | None) -> None:
        """Spawn a pane in its own worktree: `git worktree add` in a thread, then
        the pane on the loop (the spawn dialog's "own worktree" toggle)."""
        session_id = paths.new_session_id()
        self._engine.dash.notify(f"creating worktree zirv/{paths.short_id(session_id)}…")
        self._engine.run_task(self._spawn(agent, prompt, model, session_id), "worktree")

    async def _spawn(
        self, agent: str, prompt: str | None, model: str | None, session_id: str
    ) -> None:
        engine = self._engine
        dash = engine.dash
        try:
            await asyncio.to_thread(worktrees.create, dash.repo, paths.short_id(session_id))
        except worktrees.WorktreeError as exc:
            dash.error(f"spawn: own worktree: {exc}")
            return
        if engine.quitting:
            return
        try:
            pane = engine.open_pane(
                agent, prompt=prompt, model=model, session_id=session_id, worktree=True
            )
        except DashError as exc:
            dash.error(f"spawn: {exc}")
            return
        self._engine.operator_pane(pane, prompt, model, worktree=True)
        dash.notify(f"spawned {pane.agent} as {pane.short} in worktree zirv/{pane.short}")

    def pane_ended(self, pane: Pane) -> None:
        record = worktrees.load(self._engine.dash.repo, pane.short)
        if record is not None:
            self._engine.run_task(self._reclaim(record), "worktree reclaim")

    async def _reclaim(self, record: worktrees.Worktree) -> None:
        """Remove a finished pane's worktree when nothing would be lost; say
        why it is kept otherwise (it stays listed)."""
        try:
            result = await asyncio.to_thread(worktrees.reclaim, record)
        except worktrees.WorktreeError as exc:
            text = f"worktree {record.branch} kept: {exc}"
        else:
            verb = "removed" if result.removed else "kept"
            text = f"worktree {record.branch} {verb} ({result.reason})"
            if not result.removed:
                text += f" at {record.path}"
        self._engine.dash.notify(text)
