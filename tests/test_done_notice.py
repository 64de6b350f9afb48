"""Panes that finish together are named together, in roster order."""

from __future__ import annotations

from zirv_dash.done_notice import done_notice

ROSTER = ["orch", "aaaa", "bbbb", "cccc", "dddd"]


def test_one_pane_done() -> None:
    assert done_notice(None, "bbbb", ROSTER) == "◆ bbbb done"
    assert done_notice("spawned shell as x", "bbbb", ROSTER) == "◆ bbbb done"


def test_a_second_pane_done_while_the_first_shows_joins_it_in_roster_order() -> None:
    first = done_notice(None, "bbbb", ROSTER)
    assert done_notice(first, "aaaa", ROSTER) == "◆ aaaa, bbbb done"
    assert done_notice("◆ aaaa done", "bbbb", ROSTER) == "◆ aaaa, bbbb done"


def test_past_three_they_are_counted() -> None:
    three = "◆ aaaa, bbbb, cccc done"
    assert done_notice(three, "dddd", ROSTER) == "◆ 4 panes done"
    assert done_notice("◆ 4 panes done", "orch", ROSTER) == "◆ 5 panes done"


def test_a_pane_named_already_is_named_once() -> None:
    assert done_notice("◆ aaaa, bbbb done", "aaaa", ROSTER) == "◆ aaaa, bbbb done"
