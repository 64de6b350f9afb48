"""Stopping one pane from the UI: the intake's ladder, stepped from a timer.

The ladder is the one in `ptysession` (typed quit only at the recognised input
prompt, else the harness's clean-quit signals, then SIGKILL to every process
group of its session). The intake owns the running ladders (kill requests and
timeouts use them too); a user's stop steps them every STOP_STEP_SECS instead
of on the 1 s tick, without ever blocking the loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zirv_dash.pane import Pane

if TYPE_CHECKING:
    from zirv_dash.runtime.engine import Engine

STOP_STEP_SECS = 0.1


class StopController:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def stop(self, pane: Pane) -> bool:
        """Begin stopping `pane`; False if it has nothing to stop or already stops."""
        intake = self._engine.intake.intake
        if pane.pty is None or not pane.alive or pane.short in intake.stopping:
            return False
        intake.stop_gracefully(pane)
        self._engine.dash.notify(f"stopping {pane.short}…")
        self._engine.call_later("stops", STOP_STEP_SECS, self._step)
        return True

    def _step(self) -> None:
        intake = self._engine.intake.intake
        before = len(intake.stopping)
        intake.advance_stops()
        if len(intake.stopping) < before:
            self._engine.schedule_reap()
        if intake.stopping:
            self._engine.call_later("stops", STOP_STEP_SECS, self._step)
