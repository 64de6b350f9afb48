"""The sidebar roster with groups (one folded) and with a search active."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from tests.roster_app import API, RosterApp
from widgets.sidebar import Sidebar


async def _ready(pilot: Pilot[Any]) -> Sidebar:
    sidebar = pilot.app.query_one(Sidebar)
    while sidebar.size.height == 0 or not sidebar.rows:
        await pilot.pause(0.02)
    return sidebar


def test_roster_groups(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _ready(pilot)
        await pilot.pause(0)

    assert snap_compare(RosterApp(), terminal_size=(60, 12), run_before=run_before)


def test_roster_group_folded(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        sidebar = await _ready(pilot)
        sidebar.set_collapsed(API.key, True)
        await pilot.pause(0)

    assert snap_compare(RosterApp(), terminal_size=(60, 12), run_before=run_before)


def test_roster_search_active(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        sidebar = await _ready(pilot)
        sidebar.open_search()
        for ch in "claude":
            sidebar.search_key(ch, ch)
        await pilot.pause(0)

    assert snap_compare(RosterApp(), terminal_size=(60, 12), run_before=run_before)
