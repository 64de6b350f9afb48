"""Every overlay at the smallest supported size that is common (80x24) and at
120x40: each fits, nothing is cut mid-word, footers and lists are whole."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from textual.pilot import Pilot

from screens.app import ZirvApp
from screens.copy_mode import CopyModeScreen
from screens.errors import ErrorsScreen
from screens.grid import GridScreen
from screens.handover import HandoverScreen
from screens.help import HelpScreen
from screens.inspector import InspectorScreen
from screens.mail import MailScreen
from screens.menu import MenuScreen
from screens.nudge import NudgeScreen
from screens.palette import PaletteScreen
from screens.quit_confirm import QuitConfirmScreen
from screens.restore import RestoreScreen
from screens.spawn import SpawnScreen
from snapshots.snaphelpers import press, quiet_demo, settled, snap_app
from tests.apphelpers import dash_screen, wait_for
from zirv_dash.dash import roster
from zirv_dash.mail import mailbox as mail

__all__ = ["quiet_demo"]

SIZES = [(80, 24), (120, 40)]
TWO: list[tuple[str, str | None]] = [("demo", "add a login form")]
SENT = 1_800_000_000
ELSEWHERE = "ffff0000-0000-4000-8000-0000000000ff"
"""A session outside this dashboard: mail to it stays in the mailbox."""

Step = Callable[[Pilot[Any]], Awaitable[None]]


def app_of(pilot: Pilot[Any]) -> ZirvApp:
    app = pilot.app
    assert isinstance(app, ZirvApp)
    return app


def opened(kind: type, *keys: str, count: int = 2, before: Step | None = None) -> Step:
    """run_before: settle `count` panes, run `before`, press `keys`, await `kind` on top."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settled(count)(pilot)
        if before is not None:
            await before(pilot)
        await press(pilot, *keys)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, kind))
        await pilot.pause(0.4)

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_spawn(snap_compare: Any, size: tuple[int, int]) -> None:
    run = opened(SpawnScreen, "ctrl+a", "s", *"de")
    assert snap_compare(snap_app(extra=TWO), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_handover(snap_compare: Any, size: tuple[int, int]) -> None:
    run = opened(HandoverScreen, "ctrl+a", "2", "ctrl+a", "o")
    assert snap_compare(snap_app(extra=TWO), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_menu(snap_compare: Any, size: tuple[int, int]) -> None:
    run = opened(MenuScreen, "ctrl+a", "2", "ctrl+a", "c")
    assert snap_compare(snap_app(extra=TWO), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_inspector(snap_compare: Any, size: tuple[int, int]) -> None:
    run = opened(InspectorScreen, "ctrl+a", "2", "ctrl+a", "i")
    assert snap_compare(snap_app(extra=TWO), terminal_size=size, run_before=run)


async def _one_error(pilot: Pilot[Any]) -> None:
    dash_screen(app_of(pilot)).engine.spawn("no-such-harness")


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_errors_one_entry(snap_compare: Any, size: tuple[int, int]) -> None:
    run = opened(ErrorsScreen, "ctrl+a", "e", count=1, before=_one_error)
    assert snap_compare(snap_app(), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_quit_confirm(
    snap_compare: Any, size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The demo holds its task until this file exists: it is working when shot.
    monkeypatch.setenv("ZIRV_DEMO_GATE", str(tmp_path / "never"))

    async def run_before(pilot: Pilot[Any]) -> None:
        dash = dash_screen(app_of(pilot)).dash
        await wait_for(pilot, lambda: len(dash.panes) == 2)
        await wait_for(pilot, lambda: "Working on" in "\n".join(dash.panes[1].model_view.lines()))
        # The orchestrator settles at its prompt; only the held worker is busy.
        await wait_for(pilot, lambda: dash.working_panes() == [dash.panes[1]])
        await pilot.press("ctrl+a", "q")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, QuitConfirmScreen))
        await pilot.pause(0.4)

    # Quiet output never reads as idle here: the held task stays "working".
    app = snap_app(extra=TWO, flags={"dash": {"idle_quiet_ms": 600_000}})
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_restore(snap_compare: Any, size: tuple[int, int]) -> None:
    entries = [
        roster.RosterPane("claude", "9a8b7c6d-0000-4000-8000-00000000000a", title="login form"),
        roster.RosterPane("codex", "8b7c6d5e-0000-4000-8000-00000000000b", title="fix the tests"),
        roster.RosterPane("demo", "7c6d5e4f-0000-4000-8000-00000000000c", title="write docs"),
    ]
    entries = [msgspec.structs.replace(e, short=e.session_id[:8]) for e in entries]

    async def run_before(pilot: Pilot[Any]) -> None:
        await settled(1)(pilot)
        pilot.app.push_screen(RestoreScreen(entries))
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, RestoreScreen))
        await pilot.press("down", "space")
        await pilot.pause(0.4)

    assert snap_compare(snap_app(), terminal_size=size, run_before=run_before)


async def _mail(pilot: Pilot[Any]) -> None:
    slug = dash_screen(app_of(pilot)).dash.slug
    bodies = [
        "the login form is ready for review; tests pass locally and the screenshots are attached",
        "short note",
        "please look at the flaky integration test in the payments module before the release",
    ]
    for n, body in enumerate(bodies):
        mail.store(
            slug,
            body,
            from_session=ELSEWHERE,
            from_agent="codex",
            to_session=ELSEWHERE,
            now=SENT + n,
        )


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_mail(snap_compare: Any, size: tuple[int, int]) -> None:
    run = opened(MailScreen, "ctrl+a", "m", before=_mail)
    assert snap_compare(snap_app(extra=TWO), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_help(snap_compare: Any, size: tuple[int, int]) -> None:
    run = opened(HelpScreen, "ctrl+a", "question_mark")
    assert snap_compare(snap_app(extra=TWO), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_grid(snap_compare: Any, size: tuple[int, int]) -> None:
    run = opened(GridScreen, "ctrl+a", "g")
    assert snap_compare(snap_app(extra=TWO), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_palette(snap_compare: Any, size: tuple[int, int]) -> None:
    run = opened(PaletteScreen, "ctrl+a", "p")
    assert snap_compare(snap_app(extra=TWO), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_nudge(snap_compare: Any, size: tuple[int, int]) -> None:
    run = opened(NudgeScreen, "ctrl+a", "2", "ctrl+a", "n", *"rebase")
    assert snap_compare(snap_app(extra=TWO), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_copy_mode(snap_compare: Any, size: tuple[int, int]) -> None:
    run = opened(CopyModeScreen, "ctrl+a", "2", "ctrl+a", "left_square_bracket")
    assert snap_compare(snap_app(extra=TWO), terminal_size=size, run_before=run)
