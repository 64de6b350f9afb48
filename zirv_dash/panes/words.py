"""A pane's state and its end in words, for the roster, headers and status line."""

from __future__ import annotations

import signal

from zirv_dash.attention.states import PaneState, killed_by

STATE_WORDS = {
    PaneState.STARTING: "starting",
    PaneState.WORKING: "working",
    PaneState.IDLE: "idle",
    PaneState.NEEDS_YOU: "needs you",
    PaneState.DONE_UNSEEN: "done",
    PaneState.EXITED: "exited",
    PaneState.FAILED: "failed",
    PaneState.STOPPED: "stopped",
    PaneState.UNKNOWN: "unknown",
    PaneState.DISCONNECTED: "disconnected",
}


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def ended_words(exit_code: int | None, spawn_error: str | None) -> str:
    """How the child ended, in words ("" while it runs)."""
    if exit_code is None:
        return ""
    if spawn_error:
        return "could not start"
    number = killed_by(exit_code)
    if number is not None:
        return f"stopped by {signal_name(number)}"
    if exit_code == 0:
        return "exited cleanly"
    return f"failed with exit code {exit_code}"


def ended_note(exit_code: int | None, spawn_error: str | None) -> str:
    """The same, in a few cells for the roster ("exit 3", "TERM", "no start")."""
    if exit_code is None:
        return ""
    if spawn_error:
        return "no start"
    number = killed_by(exit_code)
    if number is not None:
        return signal_name(number).removeprefix("SIG")
    return f"exit {exit_code}"


def spawn_failure_screen(agent: str, reason: str) -> bytes:
    """What a pane whose child could not start shows instead (terminal bytes)."""
    message = (
        f"\x1b[1;31mzirv: could not start {agent}\x1b[0m\r\n"
        f"{reason}\r\n\r\n"
        "\x1b[2mFix the command or install the harness, then spawn a new pane "
        "(Ctrl+A s).\x1b[0m\r\n"
    )
    return message.encode()
