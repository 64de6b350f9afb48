"""The dashboard's watch for processes that left a pane's session.

A child that calls `setsid` is no longer in its pane's session, so quitting the
pane does not stop it. The dashboard records such processes (`zirv_dash.escapes`)
and reports each once; a later dashboard shows what earlier ones left running.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from zirv_dash import escapes, guard, paths

if TYPE_CHECKING:
    from zirv_dash.pane import Pane

ESCAPE_SCAN = 5.0
"""Seconds between looks for processes that left a pane's session (a /proc walk,
several milliseconds of CPU), while any pane has written or been typed into since
the last look."""
ESCAPE_SCAN_QUIET = 60.0
"""...and while every pane has been quiet: a walk every 5 s would be most of what
an idle dashboard costs. A process that leaves its session without any pane
showing output (a silent background job) is still recorded, a minute later at
worst, and always at quit."""


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
        if not force and now - self._escapes_checked < self._escape_interval():
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

    def _escape_interval(self) -> float:
        since = self._escapes_checked
        for pane in self.panes:
            output, typed = pane.last_output_at, pane.last_input_at
            if (output is not None and output > since) or (typed is not None and typed > since):
                return ESCAPE_SCAN
        return ESCAPE_SCAN_QUIET
