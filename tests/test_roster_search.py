"""The sidebar's search field and group headers, in a small app (no dashboard)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from textual.pilot import Pilot

from tests.apphelpers import wait_for
from tests.roster_app import API, WEB, RosterApp
from widgets.roster_search import Outcome
from widgets.sidebar import Sidebar

pytestmark = pytest.mark.timeout(60)


def shown(sidebar: Sidebar) -> list[str]:
    """The sidebar's lines as drawn; line 1 is the search field's while it shows."""
    lines = [sidebar.render_line(y).text.rstrip() for y in range(sidebar.size.height)]
    if sidebar.search.display:
        assert lines[1] == "", "the roster leaves the field's line to it"
        lines[1] = sidebar.search.render().plain.rstrip()
    return lines


async def settle(pilot: Pilot[None]) -> Sidebar:
    sidebar = pilot.app.query_one(Sidebar)
    await wait_for(pilot, lambda: sidebar.size.height > 0 and len(sidebar.rows) == 5)
    await pilot.pause(0)
    return sidebar


async def test_typing_filters_rows_and_keeps_each_rows_digit() -> None:
    app = RosterApp(grouped=False)
    async with app.run_test(size=(60, 12)) as pilot:
        sidebar = await settle(pilot)
        sidebar.open_search()
        sidebar.search.focus()
        await pilot.press("c", "o", "d", "e", "x")
        await wait_for(pilot, lambda: sidebar.first_match() == "a1b2c3d4")
        lines = shown(sidebar)
        assert lines[1].startswith(" / codex█") and lines[1].endswith("2/5"), lines[1]
        # The codex pane is still digit 2 (its place in the roster), the ended row none.
        assert lines[2].startswith("2 ▲ a1b2c3d4 codex"), lines[2]
        assert lines[3].startswith("  ✗ 0badc0de"), lines[3]
        assert not any("orch" in line for line in lines)
        # State words and branches match too; Backspace edits.
        await pilot.press(*["backspace"] * 5, "n", "e", "e", "d", "s")
        await wait_for(pilot, lambda: sidebar.first_match() == "a1b2c3d4")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.submitted == ["a1b2c3d4"])
        assert not sidebar.searching and sidebar.search.text == "needs"
        assert shown(sidebar)[1].startswith(" / needs"), "the kept filter stays visible"


async def test_escape_clears_the_filter_and_hides_the_field() -> None:
    app = RosterApp(grouped=False)
    async with app.run_test(size=(60, 12)) as pilot:
        sidebar = await settle(pilot)
        sidebar.open_search()
        # The dashboard's router path: keys handed over, not focused.
        assert sidebar.search_key("z", "z") is Outcome.EDITED
        assert sidebar.search_paste("zz\n") is Outcome.EDITED
        assert sidebar.search.text == "zzz " and sidebar.first_match() is None
        assert sidebar.search_key("escape", None) is Outcome.CANCELLED
        await wait_for(pilot, lambda: app.cancelled == 1)
        await pilot.pause(0)
        assert not sidebar.search.display and sidebar.search.text == ""
        assert shown(sidebar)[1].startswith("1 ● orch"), shown(sidebar)[1]
        assert sidebar.search_key("x", "x") is Outcome.IGNORED  # not editing


async def test_groups_draw_headers_and_fold_on_a_click_or_a_call() -> None:
    app = RosterApp()
    async with app.run_test(size=(60, 12)) as pilot:
        sidebar = await settle(pilot)
        lines = shown(sidebar)
        assert lines[1].startswith(" ▾ web") and lines[1].endswith("2"), lines[1]
        assert lines[2].startswith("1├● orch") and lines[3].startswith("3└● e5f6a7b8")
        assert "⇶" in lines[3]
        assert lines[4].startswith(" ▾ api")
        assert lines[5].startswith("2├▲ a1b2c3d4") and lines[6].startswith("4└◆ c9d0e1f2")
        assert lines[7].startswith("  ✗ 0badc0de")
        assert sidebar.group_of("e5f6a7b8") == WEB.key and sidebar.group_of("ended:x") is None
        # A folded header shows the attention its members want.
        assert sidebar.set_collapsed(API.key, True) and not sidebar.set_collapsed(API.key, True)
        await pilot.pause(0)
        lines = shown(sidebar)
        assert lines[4].startswith(" ▸ api") and lines[4].endswith("▲1 ◆1"), lines[4]
        assert lines[5].startswith("  ✗ 0badc0de")
        # Clicking a header toggles it; clicking a row reports the row.
        await pilot.click(Sidebar, offset=(3, 4))
        await wait_for(pilot, lambda: API.key not in sidebar.collapsed)
        await pilot.click(Sidebar, offset=(3, 1))
        await wait_for(pilot, lambda: WEB.key in sidebar.collapsed)
        await pilot.pause(0)
        assert shown(sidebar)[1].startswith(" ▸ web")
        # The focused pane's folded group is the selected line.
        assert sidebar.row_at(1) is None and sidebar.row_at(3) is not None


async def test_a_search_looks_inside_folded_groups_and_matches_branches() -> None:
    app = RosterApp()
    async with app.run_test(size=(60, 12)) as pilot:
        sidebar = await settle(pilot)
        sidebar.set_collapsed(API.key, True)
        sidebar.open_search()
        for ch in "login":
            sidebar.search_key(ch, ch)
        await pilot.pause(0)
        lines = shown(sidebar)
        assert lines[2].startswith(" ▾ api"), lines
        assert lines[3].startswith("2├▲ a1b2c3d4") and lines[4].startswith("4└◆ c9d0e1f2")
        assert lines[5] == "" and sidebar.first_match() == "a1b2c3d4"


async def test_selection_moving_into_a_folded_group_unfolds_it() -> None:
    app = RosterApp()
    async with app.run_test(size=(60, 12)) as pilot:
        sidebar = await settle(pilot)
        sidebar.set_collapsed(API.key, True)
        # The same selection redrawn (a spinner tick) keeps the fold.
        sidebar.update_rows(list(sidebar.rows), 1)
        assert API.key in sidebar.collapsed
        moved = [replace(r, selected=r.key == "a1b2c3d4") for r in sidebar.rows]
        sidebar.update_rows(moved, 2)
        assert API.key not in sidebar.collapsed
        await pilot.pause(0)
        assert shown(sidebar)[5].startswith("2├▲ a1b2c3d4")
