"""The /proc walk for processes that left a pane's session runs every few seconds
only while panes are active, and then in a pause of their output and input (not
in the middle of typing); with every pane quiet it rests for a minute (and a
quit still forces one)."""

from __future__ import annotations

import time
from pathlib import Path

from zirv_dash.config.layers import load_settings
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.panes.escape_watch import (
    ESCAPE_SCAN,
    ESCAPE_SCAN_BUSY,
    ESCAPE_SCAN_GAP,
    ESCAPE_SCAN_QUIET,
)


def test_the_scan_rests_when_quiet_and_waits_for_a_pause(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    dash = Dashboard(load_settings(repo), repo, manage_state=True)
    pane = dash.spawn("shell")
    try:
        dash.check_escapes(force=True)
        checked = dash._escapes_checked
        assert not dash._escape_scan_due(checked + ESCAPE_SCAN_QUIET - 1)
        assert dash._escape_scan_due(checked + ESCAPE_SCAN_QUIET + 1)
        pane.send(b"\r")  # typing into a pane may start what leaves its session
        typed = time.monotonic()
        assert not dash._escape_scan_due(checked + ESCAPE_SCAN - 0.5)
        # Due, but only once the typing has paused ...
        assert not dash._escape_scan_due(typed + ESCAPE_SCAN_GAP / 2)
        assert dash._escape_scan_due(max(typed + ESCAPE_SCAN_GAP, checked + ESCAPE_SCAN) + 0.1)
        # ... or when it has gone on without a pause for long.
        dash._escapes_checked = typed - 10
        assert not dash._escape_scan_due(typed + 0.1)
        dash._escapes_checked = typed - ESCAPE_SCAN_BUSY - 1
        assert dash._escape_scan_due(typed + 0.1)
        dash.check_escapes(force=True)
        after = dash._escapes_checked
        assert not dash._escape_scan_due(after + ESCAPE_SCAN + 1)  # quiet again
    finally:
        dash.shutdown_all()
