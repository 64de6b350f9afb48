"""Stopping one pane from the UI: the termination ladder, stepped from a timer.

The ladder is the one in `ptysession` (typed quit only at the recognised input
prompt, else the harness's clean-quit signals, then SIGKILL to every process
group of its session). It is stepped every STOP_STEP_SECS without ever
blocking the loop, and it outlives the pane's own exit: the jobs a shell left
running in its session are ended too before the ladder is done.
"""

from __future__ import annotations

import asyncio

from zirv_dash.intake.stopping import STOP_GRACE
from zirv_dash.panes.ladder import Ladder
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime.host import StopHost

STOP_STEP_SECS = 0.1


class StopController:
    def __init__(self, engine: StopHost) -> None:
        self._engine = engine
        self.ladders: dict[str, Ladder] = {}
        self._waiters: dict[str, list[asyncio.Future[None]]] = {}

    async def finished(self, short: str) -> None:
        """Until the ladder of pane `short` is done (at once if none runs): the
        pane ends with its leader, the jobs it left are ended after."""
        if short not in self.ladders:
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(short, []).append(done)
        await done

    def release(self) -> None:
        """The engine closes: nobody steps the ladders any more (the shutdown's
        own ladders end the children); whoever waits on one is let go."""
        for waiters in self._waiters.values():
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)
        self._waiters.clear()

    def stop(self, pane: Pane, grace: float = STOP_GRACE) -> bool:
        """Begin stopping `pane`; False if it has nothing to stop or already stops."""
        if pane.kind == "native":
            return self._engine.close_native(pane, "stopped by the operator")
        if pane.pty is None or not pane.alive or pane.short in self.ladders:
            return False
        self.ladders[pane.short] = pane.pty.stop_for(
            pane.agent,
            pane.adapter.quit_sequence,
            typed_ok=pane.at_input_prompt(),
            grace=grace,
            defer_submit=pane.adapter.defer_submit,
            drain=False,  # the pane's own reader keeps showing its output
        )
        self._engine.dash.notify(f"stopping {pane.short}…")
        self._step()
        return True

    def _step(self) -> None:
        for short, ladder in list(self.ladders.items()):
            if ladder.step():
                del self.ladders[short]
                self._engine.schedule_reap()
                for waiter in self._waiters.pop(short, []):
                    if not waiter.done():
                        waiter.set_result(None)
        if self.ladders:
            self._engine.call_later("stops", STOP_STEP_SECS, self._step)
