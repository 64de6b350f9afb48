"""How a pane's colours look: the child's palette colours, not the theme's
(red and magenta used to be the same pink), on the terminal's own background."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from snapshots.snaphelpers import quiet_demo, snap_app
from tests.apphelpers import dash_screen, wait_for
from zirv_dash.attention.states import PaneState

__all__ = ["quiet_demo"]

# Cleared first (no PATH here, so no clear(1)): the samples start the screen.
COLOURS = (
    "printf '\\033[H\\033[2J'; printf '"
    + "".join(f"\\033[3{n}m3{n}" for n in range(8))
    + " "
    + "".join(f"\\033[9{n}m9{n}" for n in range(8))
    + "\\033[0m \\033[2mdim\\033[0m \\033[1;31mboldred\\033[0m \\033[38;5;208m208"
    + " \\033[38;2;255;128;0mrgb\\033[0m\\n'\r"
)


async def colours_printed(pilot: Pilot[Any]) -> None:
    screen = dash_screen(pilot.app)  # type: ignore[arg-type]
    pane = screen.dash.panes[0]
    model = pane.model_view
    await wait_for(pilot, lambda: any(line.startswith("$") for line in model.lines()))
    pane.send(COLOURS.encode())
    await wait_for(pilot, lambda: any(line.startswith("3031") for line in model.lines()))
    await wait_for(pilot, lambda: model.lines()[model.cursor[1]].rstrip() == "$")
    # The row's state word settles too (the quiet time has passed).
    await wait_for(pilot, lambda: screen.dash.state_of(pane) == PaneState.IDLE, timeout=20)
    screen.chrome.refresh()
    await pilot.pause(0.3)


def test_red_is_not_magenta(snap_compare: Any) -> None:
    app = snap_app(agent="shell", flags={"dash": {"idle_quiet_ms": 100}})
    assert snap_compare(app, terminal_size=(100, 24), run_before=colours_printed)
