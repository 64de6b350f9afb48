"""Getting the help overlay ready before `? help` asks for it, a few steps at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING

from screens.screen_names import HELP_SCREEN

if TYPE_CHECKING:
    from textual.timer import Timer

    from screens.host import DashboardHost

HELP_WARMUP = 1.0
"""Seconds after the first frame (and after a resize) at which the help overlay
is built and laid out, so a `? help` chord only paints it (building it is ~100
ms, laying it out ~65 ms)..."""
HELP_SETTLE = 0.05
"""...in steps this far apart (each lets its widgets take the events the last
one sent them)..."""
HELP_STEPS = 10
"""...at most this many in a row (it settles in four or five; a dashboard layout
later starts over if it did not)."""


class HelpWarmup:
    def __init__(self, screen: DashboardHost) -> None:
        self._screen = screen
        self._started = False
        self._timer: Timer | None = None
        """The next step of getting the help overlay ready, if one is due."""

    def start(self) -> None:
        """On the first chrome refresh: the first step is armed, and every later
        layout of the dashboard may arm it again."""
        if self._started:
            return
        self._started = True
        self._warm_in(HELP_WARMUP)
        # A resize (any layout of the dashboard) may leave the help arranged
        # for another size: it is arranged again once the terminal is still.
        screen = self._screen.screen
        screen.screen_layout_refresh_signal.subscribe(
            screen, self._on_dashboard_layout, immediate=True
        )

    def _warm_in(self, delay: float, steps: int = HELP_STEPS) -> None:
        self._timer = self._screen.set_timer(delay, lambda: self._warm(steps), name="help-warmup")

    def _on_dashboard_layout(self, _screen: object) -> None:
        if self._timer is not None:
            return  # a step is armed already (the first one, at the first frame)
        # Imported here, not above: the first frame's layout finds the first step
        # armed and must not load the help (ARCHITECTURE.md, the import graph).
        from screens.help import is_ready

        if not is_ready(self._screen.app, HELP_SCREEN):
            self._warm_in(HELP_WARMUP)

    def _warm(self, steps: int) -> None:
        """One step of getting the help overlay ready (screens.help.prepare),
        arming the next itself: a moment later while steps are left, a while
        later while keys are on their way through an overlay (composing the
        help takes the loop for a while)."""
        from screens.help import prepare

        self._timer = None
        screen = self._screen
        if not screen.is_mounted:
            return
        gate = getattr(screen.app, "key_gate", None)
        if screen.overlay_open() or (gate is not None and gate.pending):
            self._warm_in(HELP_WARMUP)
        elif not prepare(screen.app, screen.keys.keymap, HELP_SCREEN) and steps > 1:
            self._warm_in(HELP_SETTLE, steps - 1)
