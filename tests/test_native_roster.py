"""The restore roster records a native pane's kind (upstream's `native` flag)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zirv_dash.dash import roster


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


def test_a_native_row_is_restored_as_a_native_pane(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Restoring a native entry opens zirv's own session again (the demo route
    here), not a refusal for an "unknown harness"."""
    from zirv_dash.config.layers import load_settings
    from zirv_dash.dash.dashboard import Dashboard
    from zirv_dash.intake import Intake
    from zirv_dash.runtime.native_pane import NATIVE_PANES

    repo = tmp_path / "repo"
    repo.mkdir()
    state = tmp_path / "state"
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(state))
    monkeypatch.setenv("ZIRV_HOME", str(tmp_path / "operator"))
    dash = Dashboard(load_settings(repo), repo, manage_state=True)
    dash.native_panes = NATIVE_PANES  # what the engine installs
    intake = Intake(dash)
    intake.start()
    try:
        dash.spawn("shell", role="orchestrator")
        from zirv_dash.native.journal import Journal, journal_path

        entry = roster.RosterPane(
            agent="native", session_id="abcdef12-0000-4000-8000-00000000000a", short="abcdef12"
        )
        blank = roster.RosterPane(
            agent="native", session_id="bbbbbbbb-0000-4000-8000-00000000000a", short="bbbbbbbb"
        )
        journal = Journal(journal_path("abcdef12"))  # its conversation
        journal.append("open", route="demo", model="demo")
        journal.append("input", id="in-1", text="hi", steering=False)
        journal.close()
        roster.write_roster(state, dash.slug, [entry, blank])
        offer = intake.take_restore_offer()
        # A native entry whose journal holds nothing said is not offered.
        assert [p.short for p in offer] == ["abcdef12"]
        restored = intake.restore(offer)
        assert [p.agent for p in restored] == ["native"]
        assert not [e.text for e in dash.errors.entries if "unknown harness" in e.text]
    finally:
        dash.shutdown_all(grace=1.0)
        intake.on_quit()
