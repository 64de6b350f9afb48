"""The dashboard's watch for processes that left a pane's session.

A child that calls `setsid` is no longer in its pane's session, so quitting the
pane does not stop it. The dashboard records such processes (`zirv_dash.panes.escapes`)
and reports each once; a later dashboard shows what earlier ones left running.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from zirv_dash import paths
from zirv_dash.panes import escapes, guard

if TYPE_CHECKING:
    from zirv_dash.panes.pane import Pane

ESCAPE_SCAN = 5.0
"""Seconds between looks for processes that left a pane's session (a /proc walk,
several milliseconds of CPU), while any pane has written or been typed into since
the last look."""
ESCAPE_SCAN_QUIET = 60.0
"""...and while every pane has been quiet: a walk every 5 s would be most of what
an idle dashboard costs. A process that leaves its session without any pane
showing output (a silent background job) is still recorded, a minute later at
worst, and always at quit."""
ESCAPE_SCAN_GAP = 1.0
"""The walk waits for this long a pause in the panes' output and input: run in
the middle of typing, its milliseconds would be added to a keystroke's echo."""
ESCAPE_SCAN_BUSY = 30.0
"""...unless the panes have not paused for this long (an agent printing for
minutes): then it runs anyway."""


class EscapeWatch:
    """Mixed into `Dashboard` (which provides `panes` and `error`)."""

    panes: list[Pane]
    escaped_dir: Path | None
    _escapes_checked: float

    def error(self, text: str) -> None:
        raise NotImplementedError

    def _watch_escapes(self) -> None:
        """Show what earlier dashboards left running in sessions of its own."""
        try:
            self.escaped_dir = paths.state_dir() / "escaped"
        except OSError:
            return
        earlier = escapes.listed(self.escaped_dir)
        if earlier:
            self.error(escapes.outlived_summary(earlier))

    def check_escapes(self, force: bool = False) -> None:
        """Record (and report once) processes that left a pane's session."""
        now = time.monotonic()
        if self.escaped_dir is None:
            return
        if not force and not self._escape_scan_due(now):
            return
        self._escapes_checked = now
        client = guard.client()
        sessions = client.sessions | {p.pty.pid for p in self.panes if p.pty is not None}
        exclude = {client.pid} if client.pid is not None else set()
        ids = [p.session_id for p in self.panes]
        for entry in escapes.note(self.escaped_dir, escapes.find(sessions, ids, exclude)):
            self.error(
                f"{escapes.describe(entry)} (it started its own session, so quitting "
                "does not stop it; `zirv ctx status` lists it)"
            )

    def _escape_scan_due(self, now: float) -> bool:
        waited = now - self._escapes_checked
        active = self._last_activity()
        if active is None or active <= self._escapes_checked:
            return waited >= ESCAPE_SCAN_QUIET  # nothing happened since the last walk
        if waited < ESCAPE_SCAN:
            return False
        return now - active >= ESCAPE_SCAN_GAP or waited >= ESCAPE_SCAN_BUSY

    def _last_activity(self) -> float | None:
        """When any pane last wrote or was typed into (monotonic), if ever."""
        times = [t for p in self.panes for t in (p.last_output_at, p.last_input_at) if t]
        return max(times) if times else None
