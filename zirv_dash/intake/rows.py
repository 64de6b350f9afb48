"""Ended rows: a finished pane's row in the dashboard, found or kept."""

from __future__ import annotations

import time

from zirv_dash.dash.dashboard import Dashboard, EndedRow
from zirv_dash.panes.pane import Pane


def ended_row(dash: Dashboard, pane: Pane) -> EndedRow | None:
    for row in dash.ended:
        if row.pane is pane:
            return row
    return None


def keep_ended_row(dash: Dashboard, pane: Pane, title: str) -> None:
    """Append the pane's row once (its exit frozen as it is now)."""
    if ended_row(dash, pane) is not None:
        return
    dash.ended.append(
        EndedRow(
            short=pane.short,
            title=title,
            agent=pane.agent,
            exit_code=pane.exit_code if pane.exit_code is not None else 0,
            exited_at=pane.exited_at or time.time(),
            pane=pane,
        )
    )
