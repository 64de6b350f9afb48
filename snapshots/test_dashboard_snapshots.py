"""How the dashboard looks: three demo panes, narrow tabs, zoom and the overlays."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from snapshots.snaphelpers import press, quiet_demo, settled, snap_app

__all__ = ["quiet_demo"]

THREE = [("demo", "add a login form"), ("demo", "fix the flaky test")]


def then(*keys: str, count: int = 3) -> Any:
    base = settled(count)

    async def run_before(pilot: Pilot[Any]) -> None:
        await base(pilot)
        await press(pilot, *keys)
        await pilot.pause(0.4)

    return run_before


def test_three_demo_panes_120x40(snap_compare: Any) -> None:
    assert snap_compare(snap_app(extra=THREE), terminal_size=(120, 40), run_before=settled(3))


def test_tabs_at_90x30(snap_compare: Any) -> None:
    assert snap_compare(snap_app(extra=THREE), terminal_size=(90, 30), run_before=settled(3))


def test_zoom(snap_compare: Any) -> None:
    assert snap_compare(
        snap_app(extra=THREE), terminal_size=(120, 40), run_before=then("ctrl+a", "z")
    )


def test_spawn_dialog(snap_compare: Any) -> None:
    assert snap_compare(
        snap_app(extra=THREE), terminal_size=(120, 40), run_before=then("ctrl+a", "s")
    )


def test_help(snap_compare: Any) -> None:
    assert snap_compare(
        snap_app(extra=THREE),
        terminal_size=(120, 40),
        run_before=then("ctrl+a", "question_mark"),
    )


def test_errors(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settled(1)(pilot)
        from tests.apphelpers import dash_screen

        screen = dash_screen(pilot.app)  # type: ignore[arg-type]
        screen.engine.spawn("no-such-harness")
        screen.engine.spawn("no-such-harness")
        await pilot.press("ctrl+a", "e")
        await pilot.pause(0.4)

    assert snap_compare(snap_app(), terminal_size=(100, 30), run_before=run_before)
