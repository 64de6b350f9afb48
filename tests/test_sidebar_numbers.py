"""Sidebar rows carry the digit `^A 1-9` focuses them by, at 80 and 120 columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.apphelpers import dash_screen, make_app, wait_for
from widgets.roster_rows import RosterRow, row_number
from widgets.sidebar import Sidebar
from zirv_dash.attention.states import PaneState

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_rows_are_numbered_and_fit_the_sidebar(tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app(tmp_path, agent="demo", extra=[("demo", None), ("shell", None)])
    async with app.run_test(size=size) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.dash.panes) == 3)
        sidebar = screen.query_one(Sidebar)
        if not sidebar.display:  # under 100 columns it is shown on request
            await pilot.press("ctrl+a", "b")
        await wait_for(pilot, lambda: sidebar.display and len(sidebar.rows) == 3)
        await pilot.pause(0)
        width = sidebar.size.width
        lines = [sidebar.render_line(y) for y in range(1, 4)]
        assert all(strip.cell_length == width for strip in lines)
        for number, (strip, pane) in enumerate(zip(lines, screen.dash.panes, strict=True), 1):
            text = strip.text
            assert text.startswith(f"{number} "), text
            assert pane.title[:8] in text and pane.agent[:8] in text
        # The digit on the row is the one that focuses it.
        await pilot.press("ctrl+a", "3")
        await wait_for(pilot, lambda: screen.dash.focused_pane is screen.dash.panes[2])


def test_only_the_first_nine_pane_rows_are_numbered() -> None:
    row = RosterRow(key="abcd1234", name="wrk", harness="demo", state=PaneState.IDLE)
    assert [row_number(i, row) for i in (0, 8, 9, 12)] == [1, 9, None, None]
    ended = RosterRow(key="ended:abcd1234", name="wrk", harness="demo", state=PaneState.EXITED)
    assert row_number(0, ended) is None


def test_an_ended_rows_note_stays_whole_in_the_default_width() -> None:
    row = RosterRow(
        key="ended:abcd1234",
        name="wrk codex",
        harness="cursor-agent",
        state=PaneState.FAILED,
        tree=" └",
        note="exit 1",
        badge="✉2",
    )
    text = Sidebar()._render_row(row, 27, 3).plain
    assert len(text) == 27 and "exit 1" in text and "✉2" in text, text


async def test_digits_follow_the_pane_when_rows_are_grouped_or_filtered() -> None:
    """A group gathers rows away from their roster place and a search hides some:
    each row keeps the digit of its place among the panes (what `^A <n>` focuses)."""
    from tests.roster_app import ROWS, RosterApp

    app = RosterApp()
    async with app.run_test(size=(60, 12)) as pilot:
        sidebar = app.query_one(Sidebar)
        await wait_for(pilot, lambda: sidebar.size.height > 0 and len(sidebar.rows) == 5)
        await pilot.pause(0)
        grouped = [sidebar.row_at(y) for y in range(1, 9)]
        numbers = {}
        for y, row in enumerate(grouped, 1):
            if row is not None:
                numbers[row.key] = sidebar.render_line(y).text[0]
        assert numbers == {r.key: str(i) for i, r in enumerate(ROWS[:4], 1)} | {ROWS[4].key: " "}
        sidebar.open_search()
        sidebar.search_key("c", "c")
        sidebar.search_key("9", "9")
        await pilot.pause(0)
        assert sidebar.row_at(3) is not None and sidebar.row_at(3).key == "c9d0e1f2"  # type: ignore[union-attr]
        assert sidebar.render_line(3).text.startswith("4└◆ c9d0e1f2")
