"""The restore roster records a native pane's kind (upstream's `native` flag)."""

from __future__ import annotations

import json
from pathlib import Path

from zirv_dash import roster


def test_a_native_pane_is_written_with_its_kind(tmp_path: Path) -> None:
    panes = [
        roster.RosterPane(agent="native", session_id="s-native", short="aaaa1111"),
        roster.RosterPane(agent="demo", session_id="s-demo", short="bbbb2222"),
    ]
    path = roster.write_roster(tmp_path, "slug", panes, now=100.0)
    written = {e["agent"]: e for e in json.loads(path.read_text())["panes"]}
    assert written["native"]["native"] is True
    assert written["demo"].get("native", False) is False
    back = roster.take_roster(tmp_path, "slug", max_age_secs=10**9, now=101.0)
    assert [(p.agent, p.native) for p in back] == [("native", True), ("demo", False)]
