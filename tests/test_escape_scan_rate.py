"""The /proc walk for processes that left a pane's session runs every few seconds
only while panes are active; with every pane quiet it rests for a minute (and a
quit still forces one)."""

from __future__ import annotations

from pathlib import Path

from zirv_dash.config import load_settings
from zirv_dash.dash_escapes import ESCAPE_SCAN, ESCAPE_SCAN_QUIET
from zirv_dash.dashboard import Dashboard


def test_quiet_panes_make_the_scan_rest(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    dash = Dashboard(load_settings(repo), repo, manage_state=True)
    pane = dash.spawn("shell")
    try:
        dash.check_escapes(force=True)
        assert dash._escape_interval() == ESCAPE_SCAN_QUIET
        pane.send(b"\r")  # typing into a pane may start what leaves its session
        assert dash._escape_interval() == ESCAPE_SCAN
        dash.check_escapes(force=True)
        assert dash._escape_interval() == ESCAPE_SCAN_QUIET
    finally:
        dash.shutdown_all()
