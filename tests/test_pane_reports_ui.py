"""What a program tells its terminal, used by the dashboard: the title and the
OSC 7 directory in the pane header, the directory for spawn-here, the diff
review and restore, and a child's own notification (OSC 9/777/99) said as
zirv's, once per episode."""

from __future__ import annotations

from pathlib import Path

import pytest

from screens.chrome_facts import pane_header_facts
from screens.spawn import SpawnScreen
from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from tests.test_review_ui import plain_shell, ready_shell, run_in_shell
from zirv_dash.attention.child_notify import ChildNoteGate
from zirv_dash.attention.states import PaneState

__all__ = ["plain_shell"]  # the fixture, used by name

pytestmark = pytest.mark.timeout(60)


def test_the_gate_says_once_per_episode_and_rate_limits() -> None:
    gate = ChildNoteGate(min_interval=30)
    assert gate.observe("a", focused=False, now=0)
    assert not gate.observe("a", focused=False, now=100)  # same episode: not focused since
    gate.focused("a")
    assert gate.observe("a", focused=False, now=100)
    gate.focused("a")
    assert not gate.observe("a", focused=False, now=110)  # within the interval
    assert gate.observe("b", focused=True, now=0)  # the notice line, for the focused pane
    assert gate.observe("b", focused=True, now=31)  # ... which opens no episode


async def test_cwd_title_and_spawn_here(tmp_path: Path, plain_shell: Path) -> None:
    sub = tmp_path / "deep dir"
    sub.mkdir()
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen, pane, _ = await ready_shell(pilot)
        url = "file://localhost" + str(sub).replace(" ", "%20")
        # (the URL as an argument: its "%20" is no printf conversion)
        await run_in_shell(pilot, f"printf '\\033]7;%s\\033\\\\\\033]2;my\\001title\\007' '{url}'")
        await wait_for(pilot, lambda: pane.model_view.cwd == str(sub))
        assert pane.current_cwd == str(sub) and pane.cwd != str(sub)
        assert pane.model_view.title == "mytitle"
        facts = pane_header_facts(screen, pane, PaneState.IDLE, "", 0)
        assert facts.cwd == str(sub) and facts.title == "mytitle"
        # The restore roster written at quit restores the pane where it now is.
        entries = screen.engine.intake.intake.roster.entries()
        assert [e.cwd for e in entries if e.short == pane.short] == [str(sub)]
        screen.panes.action_spawn()
        await wait_for(pilot, lambda: isinstance(app.screen, SpawnScreen))
        assert isinstance(app.screen, SpawnScreen) and app.screen.here == str(sub)
        await pilot.press("escape")


async def test_a_childs_notification_becomes_zirvs(tmp_path: Path, plain_shell: Path) -> None:
    app = make_app(tmp_path, extra=[("shell", None)])
    async with app.run_test(size=(120, 30)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 2)
        first, second = dash.panes
        await wait_for(pilot, lambda: all("$" in screen_text(p) for p in dash.panes))
        screen.engine.focus(0)
        await pilot.pause()
        # The unfocused pane asks for a notification, twice: said once.
        second.send(b"sleep 0.2; printf '\\033]777;notify;Build;needs your input\\033\\\\'\r")
        await wait_for(pilot, lambda: "needs your input" in (dash.current_notice() or ""))
        assert (dash.current_notice() or "").startswith(f"✉ {second.short} Build: ")
        dash.notify("something else")
        second.send(b"printf '\\033]9;again\\007'; echo sent-2\r")
        await wait_for(pilot, lambda: "sent-2" in screen_text(second))
        await pilot.pause(0.2)
        assert dash.current_notice() == "something else"  # same episode: not said again
        assert first is dash.focused_pane
