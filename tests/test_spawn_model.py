"""A tier name given to a dashboard spawn resolves like a handover's."""

from __future__ import annotations

from pathlib import Path

import pytest

from zirv_dash.config.layers import load_settings
from zirv_dash.dash.dashboard import Dashboard, DashError


def test_a_tier_resolves_and_the_pane_says_what_it_runs(tmp_path: Path) -> None:
    dash = Dashboard(load_settings(tmp_path), tmp_path, manage_state=False)
    try:
        deep = dash.spawn("demo", model="deep")
        assert deep.model == "demo-deep" and "demo-deep" in deep.spec.argv
        plain = dash.spawn("demo")
        assert plain.model == "demo-standard"
        assert "demo-standard" not in plain.spec.argv  # the harness keeps its own default
        with pytest.raises(DashError, match="shell"):
            dash.spawn("shell", model="deep")
    finally:
        dash.shutdown_all(grace=0.5)


def test_an_ended_pane_is_named_once(tmp_path: Path) -> None:
    import time

    dash = Dashboard(load_settings(tmp_path), tmp_path, manage_state=False)
    try:
        pane = dash.spawn("shell", argv=["true"])
        deadline = time.monotonic() + 10
        while not dash.reap():
            assert time.monotonic() < deadline
            pane.read_available()
            time.sleep(0.02)
        assert dash.current_notice() == f"pane {pane.short} (shell) ended (exit 0)"
    finally:
        dash.shutdown_all(grace=0.5)
