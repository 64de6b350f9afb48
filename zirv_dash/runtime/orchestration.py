"""What a native pane of this engine orchestrates with: its `DelegationService`
(spawn and kill requests on the pane's own channel, mail, delegation records)
and the one thing only the engine can do, interrupting a worker's turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zirv_dash.harnesses.native_kind import NATIVE

if TYPE_CHECKING:
    from zirv_dash.dash.dashboard import Dashboard
    from zirv_dash.native.orchestration_tools import Fleet
    from zirv_dash.runtime.native_pane import NativeSessionPane

ESC = b"\x1b"
CTRL_C = b"\x03"
INTERRUPT_KEYS = {"claude": ESC, "codex": ESC, "gemini": ESC, "opencode": ESC}
"""Harnesses whose turn Esc interrupts (their own key hints: "esc to interrupt");
every other harness gets Ctrl+C, the terminal's own interrupt."""


def fleet_for(dash: Dashboard, pane: NativeSessionPane) -> Fleet | None:
    """None when the dashboard keeps no state: no channel, no records to keep."""
    if not dash.manage_state:
        return None
    # Imported on first use: the spawn protocol and mail are not needed to open a pane.
    from zirv_dash.delegation.service import DelegationService, Me

    me = Me(pane.short, pane.session_id, lambda: dash.channels.get(pane.short))
    return DelegationService(dash.repo, me, dash.slug, lambda short: interrupt_pane(dash, short))


def interrupt_pane(dash: Dashboard, short: str) -> str | None:
    """Interrupt `short`'s turn: a native worker's session is interrupted, a
    harness gets its interrupt key. Why it could not, or None."""
    target = dash.pane_by_short(short)
    if target is None or not target.alive:
        return f"pane {short} is not live"
    if target.kind == NATIVE:
        session = getattr(target, "session", None)
        if session is None or not session.interrupt():
            return "its turn is not running"
        return None
    target.send(INTERRUPT_KEYS.get(target.agent, CTRL_C), typed=False)
    return None
