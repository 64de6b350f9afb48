"""State glyphs shared by the sidebar, header tabs and grid labels.

Each state differs in both shape and colour, so it reads on monochrome
terminals and for colour-blind users alike.
"""

from __future__ import annotations

from rich.style import Style

from zirv_dash.pane import PaneState

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SPINNER_PERIOD = 0.08

GLYPHS: dict[PaneState, tuple[str, Style]] = {
    PaneState.STARTING: ("⠋", Style(color="cyan", dim=True)),
    PaneState.WORKING: ("⠋", Style(color="cyan")),
    PaneState.IDLE: ("●", Style(color="green")),
    PaneState.NEEDS_YOU: ("▲", Style(color="yellow", bold=True)),
    PaneState.DONE_UNSEEN: ("◆", Style(color="magenta", bold=True)),
    # Quiet, but not known to wait at its prompt: never drawn as idle.
    PaneState.UNKNOWN: ("?", Style(color="yellow")),
    # Ended rows: a clean exit, a failure and a stop each read differently.
    PaneState.EXITED: ("✓", Style(color="green", dim=True)),
    PaneState.FAILED: ("✗", Style(color="red", bold=True)),
    PaneState.STOPPED: ("■", Style(color="blue")),
}


def glyph(state: PaneState, tick: int) -> tuple[str, Style]:
    char, style = GLYPHS[state]
    if state in (PaneState.WORKING, PaneState.STARTING):
        char = SPINNER[tick % len(SPINNER)]
    return char, style
