"""The runtime's topology on disk at every change, so `kill -9` loses none of it.

A dashboard writes its restore roster on the way out; a runtime is the thing
expected to survive, and when it is killed (`kill -9`, the OOM killer, a lost
machine) it has no way out to write on. So the runtime writes the roster each
time a pane is added, ends, is replaced or removed, at once (an answer the
change allowed, such as `session.stop`'s, must not reach a client before the
write is on disk) and atomically (temp file, fsync, rename), and removes it
when nothing is left. The next runtime claims exactly the last topology: what it can verify
is resumed, the rest is reported as not resumed, once (`session.runtime`).

Nothing is written while the engine quits: its quit path writes the roster of
the panes it is about to end, and their ends must not empty it.
"""

from __future__ import annotations

import logging

from zirv_dash.runtime import Engine
from zirv_dash.runtime import events as ev

log = logging.getLogger("zirv.session.topology")

_CHANGES = (ev.PaneAdded, ev.PaneEnded, ev.PaneReplaced, ev.PaneRemoved)
REFRESH_SECS = 6 * 3600.0
"""Written again this often with no change: a roster older than
`[dash] roster_max_age_secs` is ignored, and a runtime may run for weeks."""
_TIMER = "topology"


class TopologyWriter:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self.writes = 0
        self._unsubscribe = engine.subscribe(self._on_event)

    def _on_event(self, event: ev.EngineEvent) -> None:
        if isinstance(event, _CHANGES):
            self.write_now()

    def write_now(self) -> None:
        engine = self._engine
        if engine.quitting or engine.closed:
            return
        engine.intake.intake.roster.write(live=True)
        self.writes += 1
        engine.call_later(_TIMER, REFRESH_SECS, self.write_now)

    def close(self) -> None:
        self._unsubscribe()
        self._engine.cancel_timer(_TIMER)
