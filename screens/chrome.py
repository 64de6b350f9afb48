"""When the dashboard's chrome (header, sidebar, pane header, footer) is redrawn.

The chrome is redrawn from events: any engine event but output asks for one
debounced refresh (coalesced to the next turn of the loop). Between events, a
timer runs only while it has something to show: the spinner while a pane works,
the age of the focused pane's state when its text changes, and a notice's
expiry. The age counts seconds only while the spinner redraws anyway; otherwise
it shows minutes (`<1m`, `3m`), so a dashboard with nothing working wakes at
most once a minute. What each widget shows is read in `screens.chrome_facts`.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from textual.timer import Timer

from screens import chrome_facts as facts
from screens.help_warmup import HelpWarmup
from screens.outer_notify import announce as announce_outer
from screens.outer_notify import announce_child, child_gate
from widgets.footer_bar import FooterBar
from widgets.glyphs import SPINNER_PERIOD
from widgets.header_bar import HeaderBar
from widgets.pane_header import PaneHeader
from widgets.sidebar import Sidebar
from zirv_dash.attention.states import PaneState, Transition
from zirv_dash.dash.dashboard import NOTICE_TTL
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime import events as ev
from zirv_dash.textfmt import (
    age_text,
    coarse_age_text,
    next_age_change,
    next_coarse_age_change,
)

if TYPE_CHECKING:
    from screens.host import DashboardHost

AGE_SLACK = 0.02
"""Redraw just after the age text changes, never just before it."""
ECHO_WAIT = 0.03
"""After a key is typed into the focused pane, a chrome redraw (a spinner frame)
waits up to this long for the key's echo, so the echo's frame is not held up
by drawing the sidebar and headers first, nor made larger by them..."""
ECHO_FRAME = 0.006
"""...or until this long after the echo was parsed (its frame is drawn by then)..."""
DEFER_MAX = 0.1
"""...but never longer than this in a row (keys typed faster than echoes return)."""
TYPING_SPIN = 0.5
"""While keys are typed into the focused pane (the last this recently), a spinner
frame is drawn just after a key's echo, not on the spinner's timer: a frame of its
own, landing as a key arrived, made that key wait for it (idle typing p99 15.1 ->
9.8 ms without a spinner, measured in bench/latency.py's harness)..."""
SPIN_STARVE = 0.25
"""...and a spinner never stands still longer than this (keys that echo nothing)."""


class Chrome:
    def __init__(self, screen: DashboardHost) -> None:
        self._screen = screen
        self._pending = False
        self._spinner: Timer | None = None
        self._ages: Timer | None = None
        self._awaiting_frame: set[str] = set()
        self._fine_age = False
        """Seconds in the age text: only while the spinner redraws anyway."""
        self._help = HelpWarmup(screen)
        self._deferred: Timer | None = None
        """The redraw put off until the typed key's echo is drawn."""
        self._deferred_since = 0.0
        self._echo_at = 0.0
        """When the focused pane's output was last parsed (monotonic)."""
        self._spun_at = 0.0
        """When a spinner frame was last drawn (monotonic)."""
        self._spun_tick = -1
        self._spin_queued = False
        self._full_due: float | None = None
        """While spinning: when the age text changes (a full redraw is due)."""

    # -- scheduling ----------------------------------------------------------------------

    def pane_output(self, short: str) -> None:
        """A pane's output was parsed: the focused pane's may be a key's echo."""
        self._child_notes(short)
        focused = self._screen.dash.focused_pane
        if focused is None or focused.short != short:
            return
        self._echo_at = now = time.monotonic()
        if (
            self._spinner is not None
            and not self._spin_queued
            and self._typing(now)
            and self._spin_due(now)
        ):
            # The spinner's frame right after this output's (a key's echo) is
            # drawn, not on its own timer (see TYPING_SPIN).
            self._spin_queued = True
            self._screen.call_after_refresh(self._spin_after_echo)

    def on_event(self, event: ev.EngineEvent) -> None:
        if isinstance(event, ev.PaneOutput):
            self.pane_output(event.short)
            return
        if isinstance(event, ev.FocusChanged):
            child_gate(self._screen.screen).focused(event.short)
        if isinstance(event, ev.StateChanged):
            screen = self._screen
            pane = screen.engine.pane(event.short)
            if pane is not None:
                mode = screen.options.settings.dash.notify
                change = Transition(event.old, event.new, event.reason, time.monotonic())
                announce_outer(screen.screen, mode, pane, change, event.focused)
        if isinstance(event, ev.Notice | ev.ErrorRaised):
            # The notice disappears on time without anything else changing.
            self._screen.set_timer(NOTICE_TTL + 0.05, self.schedule, name="notice-expiry")
        self.schedule()

    def _child_notes(self, short: str) -> None:
        """A child's own notifications (OSC 9/777/99) become zirv's for its pane."""
        screen = self._screen
        pane = screen.engine.pane(short)
        if pane is None or not pane.model_view.has_notifications:
            return
        mode = screen.options.settings.dash.notify
        focused = screen.dash.focused_pane is pane
        for note in pane.model_view.take_notifications():
            announce_child(screen.screen, mode, pane, note, focused, screen.dash.notify)

    def schedule(self) -> None:
        """One refresh on the next turn of the loop, however many asked."""
        if self._pending:
            return
        self._pending = True
        self._screen.call_later(self._refresh_due)

    def _refresh_due(self) -> None:
        self._pending = False
        self._refresh_after_echo()

    def _set_timers(self, animating: bool, age_due: float | None) -> None:
        """The spinner while something works; otherwise one timer for the moment
        the focused pane's age text next changes (`12s` each second, `3m` each
        minute): an idle dashboard wakes for nothing else."""
        screen = self._screen
        if animating and self._spinner is None:
            self._spinner = screen.set_interval(SPINNER_PERIOD, self._spin, name="spinner")
        elif not animating and self._spinner is not None:
            self._spinner.stop()
            self._spinner = None
        if self._ages is not None:
            self._ages.stop()
            self._ages = None
        if age_due is not None and not animating:
            self._ages = screen.set_timer(age_due + AGE_SLACK, self.refresh, name="ages")
        self._full_due = None
        if age_due is not None and animating:
            self._full_due = time.monotonic() + age_due + AGE_SLACK

    def _spin(self) -> None:
        """A spinner frame: only the glyphs of what works move. Everything else is
        redrawn on the events that change it (a state change, a notice), and in
        full when the focused pane's age text next changes."""
        screen = self._screen
        if not screen.is_mounted:
            return
        now = time.monotonic()
        if self._typing(now) and now - self._spun_at < SPIN_STARVE:
            return  # drawn just after the next key's echo (`on_event`)
        if self._full_due is not None and now >= self._full_due:
            self.refresh()
            return
        if self._echo_wait(now) > 0:
            return  # a typed key's echo is on its way: this frame is skipped
        self._draw_spin()

    def _spin_after_echo(self) -> None:
        self._spin_queued = False
        if self._spinner is None or not self._screen.is_mounted:
            return
        if self._full_due is not None and time.monotonic() >= self._full_due:
            self._spun_at = time.monotonic()
            self.refresh()  # the age text changed: the whole chrome
        else:
            self._draw_spin()

    def _spin_due(self, now: float) -> bool:
        """A spinner frame (or the age's full redraw) is due."""
        return self.tick() != self._spun_tick or (
            self._full_due is not None and now >= self._full_due
        )

    def _typing(self, now: float) -> bool:
        focused = self._screen.dash.focused_pane
        typed = focused.last_input_at if focused is not None else None
        return typed is not None and now - typed < TYPING_SPIN

    def _draw_spin(self) -> None:
        screen = self._screen
        self._spun_at = time.monotonic()
        tick = self._spun_tick = self.tick()
        if screen.sidebar_visible():
            screen.query_one(Sidebar).spin(tick)
        header = screen.query_one(HeaderBar)
        if header.facts.tabs:
            header.update_facts(replace(header.facts, tick=tick))
        pane_header = screen.query_one(PaneHeader)
        pane_header.update_facts(replace(pane_header.facts, tick=tick))

    # -- visibility ----------------------------------------------------------------------

    def _shown_live(self, pane: Pane) -> bool:
        screen = self._screen
        view = screen.pane_widget(pane.short)
        return (
            pane is screen.dash.focused_pane
            and pane.scroll_offset == 0
            and screen.app.screen is screen.screen
            and view is not None
            and view.display
        )

    def _observe(self) -> None:
        """A pane counts as seen only once a completed frame has shown it at the
        live view with no dialog over it: the check runs again after the next
        refresh, and only then is the pane marked visible. A hidden, scrolled
        back or covered pane is unseen at once, so one that finishes there turns
        `◆`."""
        screen = self._screen
        for pane in screen.dash.panes:
            if not self._shown_live(pane):
                screen.engine.set_visible(pane.short, False)
            elif not pane.tracker.visible and pane.short not in self._awaiting_frame:
                self._awaiting_frame.add(pane.short)
                screen.call_after_refresh(self._confirm_seen, pane)

    def _confirm_seen(self, pane: Pane) -> None:
        self._awaiting_frame.discard(pane.short)
        if self._shown_live(pane):
            self._screen.engine.set_visible(pane.short, True)

    # -- drawing -------------------------------------------------------------------------

    def tick(self) -> int:
        options = self._screen.options
        if not options.spinner or options.deterministic:
            return 0
        return int(time.monotonic() / SPINNER_PERIOD)

    def _echo_wait(self, now: float) -> float:
        """Seconds to put a redraw off for the echo of a key just typed (0: none)."""
        focused = self._screen.dash.focused_pane
        typed = focused.last_input_at if focused is not None else None
        if typed is None or now - typed >= ECHO_WAIT:
            return 0.0
        if self._deferred_since and now - self._deferred_since >= DEFER_MAX:
            return 0.0
        if self._echo_at >= typed:
            return self._echo_at + ECHO_FRAME - now
        return typed + ECHO_WAIT - now

    def _after_echo(self) -> None:
        self._deferred = None
        self._refresh_after_echo()

    def _refresh_after_echo(self) -> None:
        """`refresh`, put off while a key just typed is on its way to the glass."""
        now = time.monotonic()
        wait = self._echo_wait(now)
        if wait > 0:
            self._deferred_since = self._deferred_since or now
            if self._deferred is None:
                self._deferred = self._screen.set_timer(wait, self._after_echo, name="after-echo")
            return
        self._deferred_since = 0.0
        self.refresh()

    def refresh(self) -> None:
        screen = self._screen
        if not screen.is_mounted:
            return
        self._help.start()
        dash = screen.dash
        self._observe()
        # What is drawn and what is announced agree: transitions due by now are
        # taken (and their notices raised) before the states are drawn.
        screen.engine.poll_fresh()
        now = time.monotonic()
        focused = dash.focused_pane
        states = {p.short: dash.state_of(p, now) for p in dash.panes}
        animating = any(s in (PaneState.WORKING, PaneState.STARTING) for s in states.values())
        spinning = animating and screen.options.spinner and not screen.options.deterministic
        self._fine_age = spinning
        age_due = None
        if focused is not None and not screen.options.deterministic:
            age = max(0.0, now - focused.state_since(now))
            age_due = next_age_change(age) if spinning else next_coarse_age_change(age)
        self._set_timers(spinning, age_due)
        self._draw(states, focused, now, self.tick())

    def _draw(
        self, states: dict[str, PaneState], focused: Pane | None, now: float, tick: int
    ) -> None:
        """Every chrome widget from the states just read (`screens.chrome_facts`)."""
        screen = self._screen
        sidebar_visible = screen.sidebar_visible()
        if sidebar_visible:
            rows = facts.roster_rows(screen, states, focused)
            groups = screen.roster.groups(screen.dash.panes)
            screen.query_one(Sidebar).update_rows(rows, tick, groups)
        header = facts.header_facts(screen, states, focused, sidebar_visible, tick)
        screen.query_one(HeaderBar).update_facts(header)
        if focused is None:
            return
        state = states[focused.short]
        # Time in the state shown, not the session's age.
        age = ""
        if not screen.options.deterministic:
            age = self._age_text(max(0.0, now - focused.state_since(now)))
        screen.query_one(PaneHeader).update_facts(
            facts.pane_header_facts(screen, focused, state, age, tick)
        )
        screen.query_one(FooterBar).update_footer(*facts.footer(screen, focused, state))

    def _age_text(self, seconds: float) -> str:
        return age_text(seconds) if self._fine_age else coarse_age_text(seconds)
