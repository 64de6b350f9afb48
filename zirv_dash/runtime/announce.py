"""What a pane's new state says in the notice line."""

from __future__ import annotations

from zirv_dash.attention.done_notice import done_text, finished_together
from zirv_dash.attention.states import PaneState
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.panes.pane import Pane


def announce(dash: Dashboard, pane: Pane, new: PaneState, reason: str) -> None:
    """Needs you, failed and done are said; the other states only show."""
    note = f" ({reason})" if reason else ""
    if new is PaneState.NEEDS_YOU:
        dash.notify(f"▲ {pane.short} {reason or 'needs you'}")
    elif new is PaneState.FAILED:
        dash.notify(f"✗ {pane.short} failed{note}")
    elif new is PaneState.DONE_UNSEEN:
        shorts = [p.short for p in dash.panes]
        finished = finished_together(dash.current_done(), pane.short, shorts)
        dash.notify(done_text(finished), done=finished)
