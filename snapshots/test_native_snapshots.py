"""How the dashboard looks with a native first pane (the offline demo route):
asking for an approval and after the turn, at 120x40 and 80x24."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from snapshots.snaphelpers import app_of, quiet_demo, snap_app
from tests.apphelpers import dash_screen, wait_for
from widgets.native_approval import NativeApproval
from widgets.native_composer import NativeComposer
from widgets.native_transcript import TranscriptView
from zirv_dash.attention.states import PaneState

__all__ = ["quiet_demo"]


def asking(done: bool = False) -> Any:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = app_of(pilot)
        screen = dash_screen(app)
        await wait_for(pilot, lambda: bool(screen.native_views))
        pane = screen.dash.panes[0]
        view = screen.native_views[pane.short]
        composer = view.query_one(NativeComposer)
        composer.cursor_blink = False  # a blinking cursor is a different picture each time
        await wait_for(pilot, lambda: app.focused is composer)
        await pilot.press(*"tidy up", "enter")
        dialog = view.query_one(NativeApproval)
        await wait_for(pilot, lambda: dialog.ready, timeout=20)
        await wait_for(pilot, lambda: screen.dash.state_of(pane) is PaneState.NEEDS_YOU)
        if done:
            await pilot.press("1")
            transcript = view.query_one(TranscriptView)
            await wait_for(pilot, lambda: "Done." in transcript.plain(), timeout=20)
            await wait_for(pilot, lambda: screen.dash.state_of(pane) is PaneState.IDLE)
            await wait_for(pilot, lambda: app.focused is composer)
        screen.chrome.refresh()
        await pilot.pause(0.3)

    return run_before


def test_native_pane_asking_120x40(snap_compare: Any) -> None:
    assert snap_compare(snap_app(agent="native"), terminal_size=(120, 40), run_before=asking())


def test_native_pane_done_120x40(snap_compare: Any) -> None:
    assert snap_compare(
        snap_app(agent="native"), terminal_size=(120, 40), run_before=asking(done=True)
    )


def test_native_pane_asking_80x24(snap_compare: Any) -> None:
    assert snap_compare(snap_app(agent="native"), terminal_size=(80, 24), run_before=asking())


def test_native_pane_done_80x24(snap_compare: Any) -> None:
    assert snap_compare(
        snap_app(agent="native"), terminal_size=(80, 24), run_before=asking(done=True)
    )
