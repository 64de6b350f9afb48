"""One line typed into a pane: its Enter, the confirmation, and the retry.

Typing is two writes: the visible line first, then a lone ``\\r`` about 50 ms
later (Codex treats text and Enter in one burst as a paste and drops the
Enter). After the Enter the pane must react (output or a turn signal) within
`CONFIRM_WINDOW`; otherwise one more Enter is sent, and if that goes unanswered
too the owner reports the line as unconfirmed (`advance` says which).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import Enum

from zirv_dash.mail import mailbox as mail
from zirv_dash.panes.pane import Pane

log = logging.getLogger("zirv.delivery")

SUBMIT_DELAY = 0.05
"""Seconds between the visible line and its Enter (`INJECTION_SUBMIT_DELAY`)."""
SUBMIT_QUIET = 0.05
"""The Enter waits until the pane's output has been quiet this long…"""
SUBMIT_MAX_DELAY = 2.0
"""…but never longer than this after the line was typed."""
CONFIRM_WINDOW = 1.0
"""Seconds after an Enter within which the pane must show it took the line."""


class Phase(Enum):
    TYPED = "typed"
    """The line is in the composer; its Enter is scheduled."""
    CONFIRMING = "confirming"
    """Enter sent; waiting for the pane to react."""
    AWAITING_TURN = "awaiting-turn"
    """Submitted; nothing more is typed until the pane's turn ends."""


class Step(Enum):
    """What one `advance` did, for the owner to act on."""

    WAITING = "waiting"
    """Nothing changed; the injection is still in flight."""
    CHANGED = "changed"
    """It moved on (a phase, an Enter sent); still in flight."""
    FINISHED = "finished"
    """The pane's turn is over: the injection is done."""
    UNCONFIRMED = "unconfirmed"
    """The pane never showed it took the line (or ended first)."""


@dataclass
class Injection:
    short: str
    agent: str
    kind: str
    """``mail``, ``nudge`` or ``advisory``."""
    typed_at: float
    submit_at: float
    typed_wall: float = 0.0
    reply_to: mail.Message | None = None
    phase: Phase = Phase.TYPED
    submitted_at: float = 0.0
    confirm_by: float = 0.0
    retried: bool = False
    input_mark: float | None = None
    """`pane.last_input_at` right after our last write: a different value later
    means the operator typed in between."""


def operator_typed(pane: Pane, now: float) -> bool:
    """Whether the operator typed into `pane` since its last turn boundary.

    A turn signal clears the latch (`Pane.turn_signal`). Without one, a line
    the operator *submitted* followed by output quiet (the pane went idle after
    it) is a boundary too; an unsubmitted draft never is, so nothing is ever
    appended to what the operator is still typing.
    """
    if not pane.user_typed_since_turn:
        return False
    if pane.last_input_at is None or not _last_input_submitted(pane):
        return True
    idle_since = pane.tracker.idle_since(now)
    return idle_since is None or idle_since <= pane.last_input_at


def _last_input_submitted(pane: Pane) -> bool:
    """Whether the latest input to the pane contained Enter (it started a turn).

    `Pane.send` stamps the tracker's turn start and `last_input_at` with the same
    clock reading when the data holds a CR, so equal stamps mean a submit.
    """
    turn_since = pane.tracker.turn_since
    return turn_since is not None and turn_since == pane.last_input_at


def advance(pane: Pane, item: Injection, now: float) -> Step:
    """Do what is due for `item` in `pane` at `now` (send its Enter, retry it)."""
    if item.phase is Phase.TYPED:
        return _typed(pane, item, now)
    if item.phase is Phase.CONFIRMING:
        return _confirming(pane, item, now)
    # AWAITING_TURN: a turn signal, or the pane going quiet after our Enter.
    if not pane.alive or (pane.turn_signal_at or 0.0) > item.submitted_at:
        return Step.FINISHED
    idle_since = pane.tracker.idle_since(now)
    # A line left to the operator (they typed into it) waits for their Enter:
    # nothing more will happen on our account, so our turn is over.
    if idle_since is not None and (idle_since > item.submitted_at or pane.tracker.drafting):
        return Step.FINISHED
    return Step.WAITING


def _typed(pane: Pane, item: Injection, now: float) -> Step:
    if not pane.alive:
        return Step.UNCONFIRMED
    if now < item.submit_at:
        return Step.WAITING
    if pane.last_input_at != item.input_mark:
        # The operator typed into the line before its Enter: an Enter now
        # would submit their keystrokes too, so leave the line to them.
        log.info("pane %s: operator typed before the Enter; not submitting", pane.short)
        item.phase = Phase.AWAITING_TURN
        item.submitted_at = now
        return Step.CHANGED
    quiet_at = (pane.last_output_at or 0.0) + SUBMIT_QUIET
    cap = item.typed_at + SUBMIT_MAX_DELAY
    if now < quiet_at and now < cap:
        item.submit_at = min(quiet_at, cap)
        return Step.WAITING
    submit(pane, item, now)
    return Step.CHANGED


def _confirming(pane: Pane, item: Injection, now: float) -> Step:
    if confirmed(pane, item):
        item.phase = Phase.AWAITING_TURN
        return Step.CHANGED
    if not pane.alive:
        return Step.UNCONFIRMED
    if now < item.confirm_by:
        return Step.WAITING
    if pane.last_input_at != item.input_mark:
        # The operator has taken over the pane: leave the Enter to them.
        item.phase = Phase.AWAITING_TURN
        return Step.CHANGED
    if not item.retried:
        item.retried = True
        submit(pane, item, now)
        return Step.CHANGED
    return Step.UNCONFIRMED


def submit(pane: Pane, item: Injection, now: float) -> None:
    """Send the Enter for `item` and start waiting for the pane to take it."""
    pane.send(b"\r", typed=False)
    item.phase = Phase.CONFIRMING
    item.submitted_at = now
    item.confirm_by = now + CONFIRM_WINDOW
    item.input_mark = pane.last_input_at


def confirmed(pane: Pane, item: Injection) -> bool:
    """The pane reacted (output or a turn signal) after our Enter."""
    return (pane.last_output_at or 0.0) > item.submitted_at or (
        pane.turn_signal_at or 0.0
    ) > item.submitted_at


def unconfirmed_text(pane: Pane, item: Injection) -> str:
    """The error (and the mail back to the sender) for a line never confirmed."""
    text = (
        f"text was typed into pane {pane.short} ({pane.agent}) but submission is "
        "unconfirmed: it may not have been submitted and may need Enter or a resend"
    )
    if pane.exit_code is not None and pane.exited_at is not None:
        after = max(0, round(pane.exited_at - item.typed_wall))
        text += (
            f"; the pane exited {after}s after the message was injected "
            f"(exit code {pane.exit_code})"
        )
    return text
