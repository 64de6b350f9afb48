"""Spawn-request intake, the restore roster and ended rows, wired to the engine.

The decisions live in `zirv_dash.intake`; this controller schedules them: a
watcher route sweeps the spawn channel the moment a request lands (the tick is
only a fallback), claiming, validating and refusing (files and `git`) run on a
worker thread, and only launches and kills come back to the loop.
"""

from __future__ import annotations

import asyncio
from typing import Any

from zirv_dash.dash.dashboard import DashError
from zirv_dash.dash.roster import RosterPane
from zirv_dash.intake import Intake
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime import events as ev
from zirv_dash.runtime.host import IntakeHost
from zirv_dash.runtime.native_pane import NativeSessionPane
from zirv_dash.runtime.watch import Route


def _any_change(_path: str) -> bool:
    return True


class IntakeController:
    def __init__(self, engine: IntakeHost, *, enabled: bool | None = None) -> None:
        self._engine = engine
        dash = engine.dash
        self.intake = Intake(
            dash,
            spawner=self._spawner,
            enabled=dash.manage_state if enabled is None else enabled,
        )
        self.intake.close_native = engine.close_native
        self.restore_open = False
        self._sweeping = False
        self._again = False
        self._closed = False

    @property
    def channel(self) -> Any:
        return self.intake.channel

    @property
    def titles(self) -> dict[str, str]:
        return self.intake.titles

    def start(self) -> None:
        """Before the first pane: the intake learns of every pane from its start."""
        self.intake.start()

    def begin(self) -> None:
        """The first panes exist: open the channel, offer the restore roster."""
        intake = self.intake
        channel = intake.ensure_channel()
        if channel is not None:
            route = Route("intake", channel.root, _any_change, self.sweep, safety=True)
            self._engine.watcher.add(route)
        offer = intake.take_restore_offer()
        if offer:
            self.restore_open = True
            self._engine.emit(ev.RestoreOffered(tuple(offer)))
        self.sweep()

    def _spawner(self, agent: str, **kw: Any) -> Pane:
        """Panes the intake opens get I/O and an event like any other."""
        return self._engine.open_pane(agent, **kw)

    # -- sweeping ----------------------------------------------------------------------

    def sweep(self) -> None:
        engine = self._engine
        if engine.quitting or self._closed or not engine.started:
            return
        if self._sweeping:
            self._again = True
            return
        self._sweeping = True
        engine.run_task(self._sweep(), "intake sweep")

    async def _sweep(self) -> None:
        engine = self._engine
        try:
            while not engine.quitting:
                self._again = False
                job = self.intake.prepare_sweep()
                if job is None:
                    return
                await asyncio.to_thread(job.run)
                if engine.quitting:
                    # What it accepted goes unanswered; the requester sees claimed_no_ack.
                    return
                if self.intake.finish_sweep(job):
                    engine.changed()
                if not self._again:
                    return
        finally:
            self._sweeping = False

    def tick(self) -> None:
        if self._engine.quitting:
            return
        if self.intake.tick(sweep=False):
            self._engine.changed()
        if not self._engine.watcher.settled():
            self.sweep()  # the watcher is not (yet) covering the channel

    # -- the spawn dialog ------------------------------------------------------------------

    def operator_refusal(self, agent: str, tree: str) -> str | None:
        return self.intake.delegations.operator_refusal(agent, tree)

    def operator_pane(
        self, pane: Pane, prompt: str | None, model: str | None, worktree: bool = False
    ) -> None:
        """Record a pane the operator opened (a record that cannot be written is
        said on the error log; the pane runs on)."""
        self.intake.delegations.operator_pane(pane, prompt=prompt, model=model, worktree=worktree)

    # -- rows --------------------------------------------------------------------------

    def pane_ended(self, pane: Pane) -> None:
        for old in self.intake.pane_ended(pane):
            self._engine.remove_pane(old)
        if not self._engine.dash.live_panes and not self.restore_open:
            self.intake.on_quit()

    def restore_done(self, checked: list[RosterPane] | None) -> None:
        self.restore_open = False
        if checked is None:
            self.intake.skip_restore()
        else:
            self._close_blank_orchestrators(self.intake.restore(checked))
        self._engine.changed()

    def _close_blank_orchestrators(self, restored: list[Pane]) -> None:
        """A native orchestrator brought back replaces the blank one this launch
        opened (no one has said anything to it): two orchestrators side by side
        would leave the operator to guess which one is theirs."""
        if not any(_native_orchestrator(p) for p in restored):
            return
        for pane in list(self._engine.dash.panes):
            if pane in restored or not _native_orchestrator(pane) or not pane.alive:
                continue
            assert isinstance(pane, NativeSessionPane)
            session = pane.session
            if session is None:
                continue
            if any(item.kind == "user" for item in session.snapshot().transcript.items):
                continue  # a conversation of its own: both stay
            self._engine.close_native(pane, "replaced by the restored conversation")

    def relaunch(self, pane: Pane) -> Pane | None:
        new = self.intake.relaunch(pane)
        if new is not None:
            self._engine.remove_pane(pane)
            if new in self._engine.dash.panes:
                self._engine.focus(self._engine.dash.panes.index(new))
        self._engine.changed()
        return new

    def restartable(self, pane: Pane) -> bool:
        """An ended pane with no kept request to restore (the orchestrator, a pane
        opened without a task) can be started again as it was launched."""
        return (
            not pane.alive
            and pane in self._engine.dash.panes
            and pane.short not in self.intake.kept
            and pane.spec.requested_by is None
        )

    def restart(self, pane: Pane) -> Pane | None:
        """Start a `restartable` pane again (same harness, model, directory and
        role, a new session); its ended row gives way to the new pane."""
        if not self.restartable(pane):
            return None
        dash = self._engine.dash
        try:
            new = self._engine.open_pane(pane.agent, model=pane.model, cwd=pane.cwd, role=pane.role)
        except DashError as exc:
            dash.error(f"restart {pane.short}: {exc}")  # the row stays
            return None
        self.intake.forget(pane)
        self._engine.remove_pane(pane)
        if new in dash.panes:
            self._engine.focus(dash.panes.index(new))
        dash.notify(f"restarted {pane.short} ({pane.agent}) as {new.short}")
        self._engine.changed()
        return new

    def dismiss(self, pane: Pane) -> bool:
        if not self.intake.dismiss(pane):
            return False
        self._engine.remove_pane(pane)
        self._engine.changed()
        return True

    # -- quitting ----------------------------------------------------------------------

    def before_quit(self) -> None:
        self._closed = True
        self._engine.watcher.remove("intake")
        self.intake.on_quit()

    def close(self) -> None:
        # Safety net for exits that bypass the quit path: the token dir goes.
        if not self._closed:
            self.before_quit()


def _native_orchestrator(pane: Pane) -> bool:
    return isinstance(pane, NativeSessionPane) and pane.role == "orchestrator"
