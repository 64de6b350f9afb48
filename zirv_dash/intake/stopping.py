"""Stopping panes without blocking: kill requests, graceful stops and the
deadlines of delegated panes, each a termination ladder stepped by the tick."""

from __future__ import annotations

import time
from collections.abc import Callable

from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.panes.ladder import Ladder
from zirv_dash.panes.pane import Pane

STOP_GRACE = 5.0
"""After the quit sequence, how long a stopped child gets (upstream `QUIT_GRACE`)."""


class Stopping:
    """The panes being stopped and the deadlines still running, for one dashboard."""

    def __init__(self, dash: Dashboard) -> None:
        self.dash = dash
        self.ladders: dict[str, Ladder] = {}
        """Panes being stopped (kill requests, timeouts): the PTY layer's one
        termination ladder each, stepped by `advance`."""
        self.deadlines: dict[str, float] = {}
        """Pane short → monotonic time its request's `timeout_secs` runs out."""

    def kill_now(
        self, pane: Pane, close_native: Callable[[Pane, str], object] | None = None
    ) -> None:
        """A kill request: the harness's clean-quit signals now, then SIGKILL to
        every process group of its session (never a typed quit command).
        `close_native` ends a pane that has no process (a native pane)."""
        if pane.alive and pane.pty is None and close_native is not None:
            close_native(pane, "stopped by a kill request")  # no process to signal
            return
        if pane.pty is None or not pane.alive:
            return
        ladder = pane.pty.stop_for(pane.agent, b"", typed_ok=False, drain=False)
        self.ladders[pane.short] = ladder
        ladder.step()

    def stop_gracefully(self, pane: Pane, grace: float = STOP_GRACE) -> None:
        """A stop with time to finish: the quit command only where the screen is
        known to be the harness's input prompt (typed into a dialog it would
        answer it for the user), else its clean-quit signals; then the ladder."""
        if pane.pty is None or not pane.alive:
            return
        ladder = pane.pty.stop_for(
            pane.agent,
            pane.adapter.quit_sequence,
            typed_ok=pane.at_input_prompt(),
            grace=grace,
            defer_submit=pane.adapter.defer_submit,
            drain=False,
        )
        self.ladders[pane.short] = ladder
        ladder.step()

    def enforce_deadlines(self, now: float | None = None) -> None:
        """A delegated pane past its `timeout_secs` is stopped (quit sequence first)."""
        moment = time.monotonic() if now is None else now
        for short, deadline in list(self.deadlines.items()):
            pane = self.dash.pane_by_short(short)
            if pane is None or not pane.alive:
                del self.deadlines[short]
            elif moment >= deadline:
                del self.deadlines[short]
                self.dash.error(f"pane {short} outran its --timeout-secs; stopping it")
                self.stop_gracefully(pane)

    def advance(self, now: float | None = None) -> None:
        for short, ladder in list(self.ladders.items()):
            pane = self.dash.pane_by_short(short)
            if pane is None or pane.pty is None or ladder.step(now):
                del self.ladders[short]
