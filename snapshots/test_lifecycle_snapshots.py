"""How the lifecycle overlays look: the restore offer, the context menu, the inspector."""

from __future__ import annotations

from typing import Any

import msgspec
from textual.pilot import Pilot

from screens.inspector import InspectorScreen
from screens.menu import MenuScreen
from screens.restore import RestoreScreen
from snapshots.snaphelpers import press, quiet_demo, settled, snap_app, snap_repo
from tests.apphelpers import wait_for
from zirv_dash import paths
from zirv_dash.dash import roster

__all__ = ["quiet_demo"]

TWO: list[tuple[str, str | None]] = [("demo", "add a login form")]


def overlay(kind: type, *keys: str, count: int = 2) -> Any:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settled(count)(pilot)
        await press(pilot, *keys)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, kind))
        await pilot.pause(0.3)

    return run_before


def test_restore_overlay(snap_compare: Any) -> None:
    snap_repo().mkdir(parents=True, exist_ok=True)
    entries = [
        roster.RosterPane("claude", "9a8b7c6d-0000-4000-8000-00000000000a", title="wrk claude"),
        roster.RosterPane("codex", "8b7c6d5e-0000-4000-8000-00000000000b", title="fix the tests"),
        roster.RosterPane("demo", "7c6d5e4f-0000-4000-8000-00000000000c", title="wrk demo"),
    ]
    entries = [msgspec.structs.replace(e, short=paths.short_id(e.session_id)) for e in entries]
    roster.write_roster(paths.state_dir(), paths.repo_slug(snap_repo()), entries)
    app = snap_app()
    app.options.manage_state = True

    async def run_before(pilot: Pilot[Any]) -> None:
        await settled(1)(pilot)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, RestoreScreen))
        await pilot.press("down", "space")
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_context_menu(snap_compare: Any) -> None:
    assert snap_compare(
        snap_app(extra=TWO),
        terminal_size=(120, 40),
        run_before=overlay(MenuScreen, "ctrl+a", "2", "ctrl+a", "c"),
    )


def test_inspector(snap_compare: Any) -> None:
    assert snap_compare(
        snap_app(extra=TWO),
        terminal_size=(120, 40),
        run_before=overlay(InspectorScreen, "ctrl+a", "i"),
    )
