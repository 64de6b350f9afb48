"""Broadcast: what the operator types into the focused pane also goes to chosen panes.

Like tmux's `synchronize-panes`, but per pane: the operator picks the panes, and
while broadcast is on every key and paste typed is sent to each of them as well
as to the focused pane. It is explicit typing, so nothing is held back for a
pane that is busy; a pane that ended is dropped from the set (the caller tells
the operator), and when none is left broadcast ends by itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

MARKER = "⇶"
"""Drawn on each chosen pane's row and tab while broadcast is on."""


@dataclass(frozen=True)
class Targets:
    """Where one typed key goes besides the focused pane."""

    send: tuple[str, ...]
    ended: tuple[str, ...]
    """Chosen panes found ended now: dropped from the set, to be told about once."""


@dataclass
class Broadcast:
    chosen: list[str] = field(default_factory=list)
    """Short ids, in the order picked."""
    active: bool = False

    def start(self, shorts: Iterable[str]) -> bool:
        """Begin broadcasting to `shorts` (duplicates ignored); False for none."""
        self.chosen = list(dict.fromkeys(shorts))
        self.active = bool(self.chosen)
        return self.active

    def stop(self) -> None:
        self.active = False
        self.chosen = []

    def add(self, short: str) -> None:
        if short not in self.chosen:
            self.chosen.append(short)

    def remove(self, short: str) -> None:
        if short in self.chosen:
            self.chosen.remove(short)
        if not self.chosen:
            self.active = False

    def includes(self, short: str) -> bool:
        return self.active and short in self.chosen

    def marker(self, short: str) -> str:
        return MARKER if self.includes(short) else ""

    def targets(self, focused: str | None, alive: Callable[[str], bool]) -> Targets:
        """The chosen panes one typed key goes to besides `focused` (which has it
        already); panes no longer alive are dropped and listed in `ended`. When
        the drop leaves no pane to copy to, broadcast ends."""
        if not self.active:
            return Targets((), ())
        ended = tuple(s for s in self.chosen if not alive(s))
        for short in ended:
            self.remove(short)
        send = tuple(s for s in self.chosen if s != focused)
        if ended and not send:
            self.stop()
        return Targets(send, ended)

    def describe(self) -> str:
        """`⇶ broadcast to 3 panes` for the header; empty when off."""
        if not self.active:
            return ""
        count = len(self.chosen)
        return f"{MARKER} broadcast to {count} pane{'s' if count != 1 else ''}"
