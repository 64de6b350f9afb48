"""Broadcast, roster search and group folding through the real dashboard's chords.

Real shells on real PTYs, driven by key presses as an operator types them.
These need the dashboard to construct the two controllers and the router and
chrome to call them; until then they are skipped, not failed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import screens.dashboard as dashboard_module
from screens.broadcast_actions import BroadcastActions
from screens.dashboard import DashboardScreen
from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from tests.gitrepos import make_repo, sh
from widgets.header_bar import HeaderBar
from widgets.sidebar import Sidebar
from zirv_dash.dash.broadcast import MARKER

WIRED = hasattr(dashboard_module, "BroadcastActions") and hasattr(dashboard_module, "RosterActions")
pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(not WIRED, reason="dashboard does not construct the controllers yet"),
]


def broadcast_of(screen: DashboardScreen) -> BroadcastActions:
    """The screen's broadcast controller (looked up by name: it exists once wired)."""
    name = "broadcast"
    found: BroadcastActions = getattr(screen, name)
    return found


def sidebar_text(sidebar: Sidebar) -> str:
    return "\n".join(sidebar.render_line(y).text for y in range(sidebar.size.height))


async def test_broadcast_chord_picks_panes_types_into_them_and_escape_ends(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path, agent="shell", extra=[("shell", None), ("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.views) == 3)
        first, second, third = screen.dash.panes
        await pilot.press("ctrl+a", "1")
        await wait_for(pilot, lambda: screen.dash.focused_pane is first)
        await pilot.press("ctrl+a", "B")
        await wait_for(pilot, lambda: screen.overlay_open())
        await pilot.press("down", "space", "enter")  # the focused pane starts chosen
        await wait_for(pilot, lambda: broadcast_of(screen).active)
        sidebar = screen.query_one(Sidebar)
        await wait_for(pilot, lambda: sidebar_text(sidebar).count(MARKER) == 2)
        header = screen.query_one(HeaderBar)
        assert "broadcast to 2 panes" in (header.facts.notice or "")

        await pilot.press(*"echo b-$((3*4))", "enter")
        await wait_for(pilot, lambda: "b-12" in screen_text(second))
        await wait_for(pilot, lambda: "b-12" in screen_text(first))
        assert "b-12" not in screen_text(third)

        await pilot.press("escape")
        await wait_for(pilot, lambda: not broadcast_of(screen).active)
        await pilot.press(*"echo solo", "enter")
        await wait_for(pilot, lambda: "solo" in screen_text(first))
        await pilot.pause(0.3)
        assert "solo" not in screen_text(second)
        await wait_for(pilot, lambda: MARKER not in sidebar_text(sidebar))


async def test_search_chord_filters_the_roster_and_enter_focuses_the_match(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path, agent="shell", extra=[("demo", None), ("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.views) == 3)
        await pilot.press("ctrl+a", "1")
        sidebar = screen.query_one(Sidebar)
        await pilot.press("ctrl+a", "slash", *"demo")
        await wait_for(pilot, lambda: sidebar.first_match() == screen.dash.panes[1].short)
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.dash.focused_pane is screen.dash.panes[1])
        assert "demo" not in screen_text(screen.dash.panes[0]), "the query went to no pane"
        assert sidebar.search.text == "demo" and not sidebar.searching
        await pilot.press("ctrl+a", "slash", "escape")
        await wait_for(pilot, lambda: sidebar.search.text == "" and not sidebar.search.display)
        await wait_for(pilot, lambda: all(sidebar.row_at(y) is not None for y in (1, 2, 3)))


async def test_fold_chords_fold_the_focused_panes_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path, monkeypatch)
    other = tmp_path / "other"
    other.mkdir()
    sh(other, "init", "--quiet", "--initial-branch=trunk")
    app = make_app(repo, agent="shell", extra=[("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.views) == 2)
        screen.engine.spawn("shell", cwd=str(other), focus=False)
        screen.engine.spawn("shell", cwd=str(other), focus=False)
        await wait_for(pilot, lambda: len(screen.views) == 4)
        sidebar = screen.query_one(Sidebar)
        await wait_for(pilot, lambda: "▾ repo" in sidebar_text(sidebar))
        assert "▾ other" in sidebar_text(sidebar)
        await pilot.press("ctrl+a", "1", "ctrl+a", "left")
        await wait_for(pilot, lambda: "▸ repo" in sidebar_text(sidebar))
        assert screen.dash.focused_pane is screen.dash.panes[0]  # folding moves no focus
        assert screen.dash.panes[1].title not in sidebar_text(sidebar)
        await pilot.press("ctrl+a", "right")
        await wait_for(pilot, lambda: "▾ repo" in sidebar_text(sidebar))
        # `^A 3` still focuses the third pane (the first under `other`).
        await pilot.press("ctrl+a", "3")
        await wait_for(pilot, lambda: screen.dash.focused_pane is screen.dash.panes[2])
