"""Panes that finish together are named together, in roster order."""

from __future__ import annotations

from pathlib import Path

import pytest

from zirv_dash.attention.done_notice import done_text, finished_together
from zirv_dash.config.layers import load_settings
from zirv_dash.dash import dashboard
from zirv_dash.dash.dashboard import Dashboard

ROSTER = ["orch", "aaaa", "bbbb", "cccc", "dddd"]


def test_one_pane_done() -> None:
    assert finished_together((), "bbbb", ROSTER) == ["bbbb"]
    assert done_text(["bbbb"]) == "◆ bbbb done"


def test_a_second_pane_done_while_the_first_shows_joins_it_in_roster_order() -> None:
    first = finished_together((), "bbbb", ROSTER)
    both = finished_together(first, "aaaa", ROSTER)
    assert both == ["aaaa", "bbbb"]
    assert done_text(both) == "◆ aaaa, bbbb done"


def test_past_three_they_are_counted() -> None:
    four = finished_together(["aaaa", "bbbb", "cccc"], "dddd", ROSTER)
    assert done_text(four) == "◆ 4 panes done"
    assert done_text(finished_together(four, "orch", ROSTER)) == "◆ 5 panes done"


def test_a_pane_named_already_is_named_once() -> None:
    assert finished_together(["aaaa", "bbbb"], "aaaa", ROSTER) == ["aaaa", "bbbb"]


def test_a_pane_gone_from_the_roster_is_named_last() -> None:
    assert finished_together(["gone"], "aaaa", ROSTER) == ["aaaa", "gone"]


def test_the_dashboard_keeps_what_the_showing_done_notice_stands_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dash = Dashboard(load_settings(tmp_path), tmp_path, manage_state=False)
    dash.notify("◆ aaaa, bbbb done", done=["aaaa", "bbbb"])
    assert dash.current_done() == ("aaaa", "bbbb")
    dash.notify("spawned shell as cccc")  # another notice stands for no finished pane
    assert dash.current_done() == ()
    dash.notify("◆ aaaa done", done=["aaaa"])
    monkeypatch.setattr(dashboard.time, "monotonic", lambda: dash.notice_until + 1)
    assert dash.current_done() == ()  # once it has gone, it names nobody
