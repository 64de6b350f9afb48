"""A child's own notifications (OSC 9 / 777 / 99: "I need you"), as zirv's.

A program in a pane may ask its terminal for a desktop notification; inside
zirv that terminal is the pane, so zirv turns it into its own notice for
that pane, sent on the way `[dash] notify` says. `ChildNoteGate` decides
whether one is said: once per episode -- an episode lasts until the pane is
focused, so a child repeating itself while nobody looks is said once -- and
never more often than `MIN_INTERVAL` seconds for one pane, however often it
is focused in between. The focused pane's notifications are not sent to the
outer terminal (its user is looking at it), only shown in the notice line.
"""

from __future__ import annotations

MIN_INTERVAL = 30.0


class ChildNoteGate:
    def __init__(self, min_interval: float = MIN_INTERVAL) -> None:
        self._min_interval = min_interval
        self._open: set[str] = set()
        """Panes whose notification was said and who were not focused since."""
        self._last: dict[str, float] = {}

    def observe(self, key: str, focused: bool, now: float) -> bool:
        """A notification from pane `key`; True if it is to be said."""
        if key in self._open:
            return False
        last = self._last.get(key)
        if last is not None and now - last < self._min_interval:
            return False
        self._last[key] = now
        if not focused:
            self._open.add(key)
        return True

    def focused(self, key: str | None) -> None:
        """Pane `key` got the focus: its episode is over."""
        if key is not None:
            self._open.discard(key)

    def forget(self, key: str) -> None:
        self._open.discard(key)
        self._last.pop(key, None)
