"""The state poll: every pane's tracker asked for transitions, at a cadence that
follows what the panes do (often while one works or just wrote, rarely when all
are quiet), each transition announced once."""

from __future__ import annotations

import time
from collections.abc import Callable

from zirv_dash.attention.states import PaneState
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime import events as ev
from zirv_dash.runtime.announce import announce
from zirv_dash.runtime.host import StatesHost

STATE_POLL_BUSY = 0.1
"""While a pane works: its spinner and quiet-period transitions are prompt."""
STATE_POLL_OUTPUT = 0.25
"""After output from an idle pane (an echo): a new prompt is seen within a second."""
STATE_POLL_IDLE = 5.0
"""With nothing working and nothing written lately, states change only on events
(output, input, a turn signal, an exit), which poll at once: this is a safety net."""
RECENT_OUTPUT = 2.0
STATE_FRESH = 0.05
TIMER = "states"


class StatePoller:
    def __init__(self, host: StatesHost, changed: Callable[[Pane], None]) -> None:
        self._host = host
        self._changed = changed
        """Told of each pane whose state changed, after its event (the controllers
        waiting for a state: deferred swaps, mail held until a prompt)."""
        self._polled_at = 0.0

    def start(self) -> None:
        self._host.call_later(TIMER, STATE_POLL_IDLE, self.poll)

    def poll_fresh(self, max_age: float = STATE_FRESH) -> None:
        """poll, unless it ran within `max_age` seconds: the chrome asks before
        each frame it draws, and a spinner frame right after the engine's own
        poll must not read every screen a second time."""
        if time.monotonic() - self._polled_at >= max_age:
            self.poll()

    def poll(self) -> None:
        """Ask every tracker for transitions; announce each once, then re-arm."""
        host = self._host
        dash = host.dash
        now = time.monotonic()
        self._polled_at = now
        focused = dash.focused_pane
        busy = soon = False
        for pane in dash.panes:
            state = dash.state_of(pane, now)  # reads a dirty screen, throttled
            change = pane.tracker.poll(now)
            # Quiet panes are looked at rarely; a pane that works, or wrote in the
            # last RECENT_OUTPUT seconds (its prompt may be about to establish
            # idle), is looked at often.
            recent = pane.last_output_at is not None and now - pane.last_output_at < RECENT_OUTPUT
            working = state in (PaneState.WORKING, PaneState.STARTING)
            busy = busy or working
            soon = soon or recent
            if change is None:
                continue
            is_focused = pane is focused
            reason = change.reason or ""
            host.emit(ev.StateChanged(pane.short, change.old, change.new, reason, is_focused))
            if not is_focused:
                announce(dash, pane, change.new, reason)
            self._changed(pane)
        delay = STATE_POLL_BUSY if busy else STATE_POLL_OUTPUT if soon else STATE_POLL_IDLE
        host.call_later(TIMER, delay, self.poll)

    def poll_soon(self) -> None:
        """Output arrived: look at states within STATE_POLL_OUTPUT, not seconds."""
        host = self._host
        when = host.timer_when(TIMER)
        due = host.loop.time() + STATE_POLL_OUTPUT
        if when is None or when > due:
            host.call_later(TIMER, STATE_POLL_OUTPUT, self.poll)

    def native_changed(self, state_changed: bool) -> None:
        """A native session changed. A new state is announced on the next loop
        turn: it is exact, not read off a screen, so nothing is gained by waiting,
        and an approval answered within STATE_POLL_OUTPUT must still be announced.
        Streamed text alone polls soon, as output does."""
        if state_changed:
            self._host.call_later(TIMER, 0.0, self.poll)
        else:
            self.poll_soon()
