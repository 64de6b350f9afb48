"""A pane's attention states and how an exit code reads as one."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class PaneState(StrEnum):
    STARTING = "starting"
    WORKING = "working"
    IDLE = "idle"
    NEEDS_YOU = "needs_you"
    DONE_UNSEEN = "done_unseen"
    EXITED = "exited"
    """Ended cleanly (exit code 0)."""
    FAILED = "failed"
    """Ended with a non-zero exit code (or could not start)."""
    STOPPED = "stopped"
    """Ended by a signal (a stop, a kill, a hang-up)."""
    DISCONNECTED = "disconnected"
    """A remote host's pane whose link is down: its agent keeps running there,
    so it is neither idle nor ended; the dashboard reconnects."""
    UNKNOWN = "unknown"
    """Quiet, but nothing establishes that it waits at its prompt: no turn
    signal, the screen is not its recognised input prompt, and the operator
    did not type last. Never shown as idle (it may be a dialog we do not know,
    or quiet work)."""


ENDED_STATES = frozenset({PaneState.EXITED, PaneState.FAILED, PaneState.STOPPED})

SIGNAL_EXIT_BASE = 128
"""PTY children killed by signal N report 128 + N, as a shell would show it."""
MAX_SIGNAL = 64


def killed_by(code: int) -> int | None:
    """The signal number an exit code stands for (-N or 128+N), else None."""
    if code < 0:
        return -code
    if SIGNAL_EXIT_BASE < code <= SIGNAL_EXIT_BASE + MAX_SIGNAL:
        return code - SIGNAL_EXIT_BASE
    return None


def ended_state(code: int) -> PaneState:
    """Clean exit, failure or stop, from an exit code."""
    if code == 0:
        return PaneState.EXITED
    return PaneState.STOPPED if killed_by(code) is not None else PaneState.FAILED


@dataclass(frozen=True)
class Transition:
    old: PaneState
    new: PaneState
    reason: str | None
    at: float
