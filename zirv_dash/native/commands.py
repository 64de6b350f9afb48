"""Pane-local text: the key summary `/help` shows."""

from __future__ import annotations

HELP_TEXT = "\n".join(
    [
        "enter sends · mid-turn it steers · while an approval is open it queues",
        "shift+enter / alt+enter newline · ↑/↓ at the first/last line walk history",
        "esc interrupts · ctrl+c twice quits · ctrl+q quits now · ctrl+r expands the last tool",
        "shift+tab cycles the mode label · tab moves focus to the transcript",
        "/clear drops queued input · /status session facts · /compact summarizes the history",
        "@path attaches a workdir file (tab completes) · !command runs a shell line (asks first)",
    ]
)
