"""Why a pane-menu entry is disabled: the words, and the restore check that the
menu and the intake's own relaunch share."""

from __future__ import annotations

from zirv_dash.harnesses.native_kind import NATIVE
from zirv_dash.intake import native_reopen
from zirv_dash.intake.sweep import Kept
from zirv_dash.panes.pane import Pane

NOT_OURS = "not a pane this dashboard owns"
ENDED = "this pane has ended"
STILL_RUNNING = "still running"
NO_REQUEST = "no spawn request kept"
NO_CWD = "no cwd known"
CLEAN_EXIT = "exited cleanly"
NOT_FINISHED = "only a finished row can be dismissed"
THE_DASHBOARD = "the dashboard, not a session"


def disabled_reason_restore(pane: Pane, kept: Kept | None) -> str:
    if pane.alive:
        return STILL_RUNNING
    if kept is None and pane.agent == NATIVE:
        # A native pane's conversation is its journal (`native_reopen`).
        return "" if native_reopen.restorable(pane) else native_reopen.NO_JOURNAL
    return NO_REQUEST if kept is None else ""
