"""What the engine tells its subscribers: plain, typed, immutable facts.

Subscribers get these synchronously on the engine's loop, in order. Hot events
(`PaneOutput`) carry only the pane's short id: the subscriber reads the model.
"""

from __future__ import annotations

from dataclasses import dataclass

from zirv_dash.attention.states import PaneState
from zirv_dash.dash.roster import RosterPane


@dataclass(frozen=True)
class PaneAdded:
    short: str
    focus: bool


@dataclass(frozen=True)
class PaneOutput:
    """New rows were parsed into this pane's model (its rows are dirty)."""

    short: str


@dataclass(frozen=True)
class PaneReplaced:
    """The pane's child (and model) was replaced in place: redraw it whole."""

    short: str


@dataclass(frozen=True)
class PaneEnded:
    short: str
    exit_code: int | None


@dataclass(frozen=True)
class PaneRemoved:
    """The row is gone from the roster (dismissed, relaunched, capped)."""

    short: str


@dataclass(frozen=True)
class FocusChanged:
    short: str | None


@dataclass(frozen=True)
class StateChanged:
    short: str
    old: PaneState
    new: PaneState
    reason: str
    focused: bool


@dataclass(frozen=True)
class Notice:
    text: str


@dataclass(frozen=True)
class ErrorRaised:
    text: str


@dataclass(frozen=True)
class ChromeChanged:
    """Something the chrome shows changed (a badge, a note, a count)."""


@dataclass(frozen=True)
class RestoreOffered:
    panes: tuple[RosterPane, ...]


@dataclass(frozen=True)
class AllEnded:
    """Every pane ended (the dashboard stays on them; `exit_code`: 1 if one failed)."""

    exit_code: int


@dataclass(frozen=True)
class Closed:
    """Shutdown finished: every pane's session was ended and verified."""


EngineEvent = (
    PaneAdded
    | PaneOutput
    | PaneReplaced
    | PaneEnded
    | PaneRemoved
    | FocusChanged
    | StateChanged
    | Notice
    | ErrorRaised
    | ChromeChanged
    | RestoreOffered
    | AllEnded
    | Closed
)
