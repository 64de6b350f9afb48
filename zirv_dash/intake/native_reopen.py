"""Restore for an ended native row: its conversation reopened from its journal.

A native pane has no spawn request to relaunch (the orchestrator never has
one): its journal is the conversation. Restore gives that journal to a new
pane, which replays it — what was said, what ran, and a call that was running
when it stopped as `outcome unknown`, never re-run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from zirv_dash import paths
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.harnesses.native_kind import NATIVE
from zirv_dash.panes.pane import Pane

if TYPE_CHECKING:
    from types import ModuleType

log = logging.getLogger("zirv.intake")

NO_JOURNAL = "no conversation in its journal"


def reopen_module() -> ModuleType:
    """`native.reopen`, loaded for an ended native row only: it opens the SQLite
    journals, which the dashboard's first frame never needs (ARCHITECTURE.md)."""
    from zirv_dash.native import reopen

    return reopen


def restorable(pane: Pane) -> bool:
    """An ended native pane whose journal holds a conversation."""
    return pane.agent == NATIVE and not pane.alive and reopen_module().reopenable(pane.short)


def reopen_ended(dash: Dashboard, spawner: Callable[..., Pane], pane: Pane) -> Pane | None:
    """A new native pane over `pane`'s journal (the same role, directory and
    posture), or None with the reason in the error log (the row stays)."""
    short = pane.short
    if not restorable(pane):
        dash.error(f"restore {short}: {NO_JOURNAL}")
        return None
    session_id = paths.new_session_id()
    new_short = paths.short_id(session_id)
    try:
        reopen_module().move(short, new_short)
    except OSError as exc:
        dash.error(f"restore {short}: its journal could not be reopened ({exc})")
        return None
    try:
        new = spawner(
            NATIVE,
            role=pane.role,
            headless=pane.spec.headless,
            session_id=session_id,
            cwd=pane.cwd,
            focus=True,
        )
    except Exception as exc:  # noqa: BLE001 - DashError and spawn failures alike
        _give_back(new_short, short)
        dash.error(f"restore {short}: {exc}")
        return None
    if new.spawn_error:
        _give_back(new_short, short)
        dash.error(f"restore {short}: {new.spawn_error}")
    return new


def _give_back(new: str, old: str) -> None:
    try:
        reopen_module().move(new, old)
    except OSError as exc:  # the conversation is still in the new name's journal
        log.warning("native journal %s could not be given back to %s: %s", new, old, exc)
