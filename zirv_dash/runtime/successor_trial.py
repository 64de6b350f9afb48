"""A handover's successor on trial: the original child is kept until it proves itself.

A successor that exits at once (a CLI with no API key), sits at its login screen or
never reaches its prompt must not cost the pane its original. So the old child is
not retired when the successor is installed: it is kept (`Pane.kept`), unread and
untouched, until the successor has

* sent its first turn signal, or
* stayed alive past `GRACE` seconds and is at its harness's recognised input prompt
  (a harness with no recognised prompt: alive past `GRACE`, on no needs-you screen).

Until then the pane header says the swap is running. A successor that exits, shows
a login screen, or after `LIMIT` seconds is neither at its prompt nor working (on the
handed-over task) is stopped and the original is put back, with the successor's last
lines in the error log.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from zirv_dash.attention.input_prompts import INPUT_PROMPTS
from zirv_dash.attention.patterns import NEEDS_LOGIN
from zirv_dash.attention.states import PaneState
from zirv_dash.handover.plan import SwapPlan
from zirv_dash.handover.swap import SwapRequest
from zirv_dash.panes.kept import Kept
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.ptysession import PtySession

GRACE = 2.0
"""How long a successor must stay alive before its prompt counts as proof: a CLI
that draws its prompt and then exits on a missing key must not pass."""
LIMIT = 25.0
"""How long a successor has to prove itself (a slow CLI's first draw included);
below `zirv ctx handover`'s wait for the answer."""
LOGIN_WORDS = "is not logged in (it showed its login screen; log in to it in a pane of its own)"
LAST_LINES = 6
"""How many of the successor's last non-blank lines the failure names."""


@dataclass
class Trial:
    pane: Pane
    successor: PtySession
    kept: Kept
    request: SwapRequest
    plan: SwapPlan
    typed_quit_ok: bool
    """The original was at its input prompt: its quit command may be typed."""
    outgoing: str
    started: float = field(default_factory=time.monotonic)

    @property
    def original(self) -> PtySession | None:
        return self.kept.pty

    def current(self) -> bool:
        """The pane still runs this trial's successor."""
        return self.pane.pty is self.successor


def verdict(trial: Trial, now: float | None = None) -> str | None:
    """ "proven", a failure's words, or None while the trial goes on."""
    now = time.monotonic() if now is None else now
    pane = trial.pane
    code = trial.successor.poll()
    age = now - trial.started
    if code is not None:
        return f"{trial.plan.agent} exited with code {code} {age:.1f}s after it started"
    if pane.turn_signal_at is not None:
        return "proven"
    state = pane.state()
    if state is PaneState.NEEDS_YOU and pane.reason() == NEEDS_LOGIN:
        return f"{trial.plan.agent} {LOGIN_WORDS}"
    if age >= GRACE:
        if pane.agent in INPUT_PROMPTS:
            if pane.at_input_prompt():
                return "proven"
        elif state is not PaneState.NEEDS_YOU:
            return "proven"
    if age >= LIMIT:
        if state is PaneState.WORKING:
            return "proven"  # busy with the handed-over task since: a working CLI
        return f"{trial.plan.agent} did not reach its prompt within {LIMIT:.0f}s"
    return None


def last_lines(pane: Pane, count: int = LAST_LINES) -> list[str]:
    """The successor's last non-blank lines (screen, then scrollback if it cleared)."""
    model = pane.model_view
    rows = [line.rstrip() for line in model.lines()]
    if not any(rows):
        size = model.history_size
        rows = [model.history_text(i).rstrip() for i in range(max(0, size - 50), size)]
    return [row for row in rows if row.strip()][-count:]
