"""Delegation and lifecycle in the running dashboard (Pilot, real panes, real channels)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from screens.app import ZirvApp
from screens.inspector import InspectorScreen
from screens.menu import MenuScreen
from screens.restore import RestoreScreen
from tests.apphelpers import dash_screen, make_app, quit_app, screen_text, wait_for
from zirv_dash import paths, spawn
from zirv_dash.dash import roster
from zirv_dash.panes.pane import Pane

pytestmark = pytest.mark.timeout(60)

ORCH = "0a1b2c3d-0000-4000-8000-000000000001"


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path.resolve()


def managed_app(repo: Path, agent: str = "shell", **kw: Any) -> ZirvApp:
    app = make_app(repo, agent=agent, session_ids=[ORCH], **kw)
    app.options.manage_state = True
    return app


def token_dirs(state: Path) -> list[Path]:
    root = spawn.dash_root(state)
    return [p for p in root.iterdir() if spawn.TOKEN_DIR_RE.match(p.name)] if root.exists() else []


def roster_entries(repo: Path, n: int) -> list[roster.RosterPane]:
    return [
        roster.RosterPane(
            "demo",
            f"{i}{i}{i}{i}{i}{i}{i}{i}-0000-4000-8000-00000000000{i}",
            short=f"{i}" * 8,
            title=f"wrk demo {i}",
        )
        for i in range(1, n + 1)
    ]


async def test_a_dropped_request_opens_a_pane(repo: Path, isolated_state: Path) -> None:
    app = managed_app(repo, agent="demo")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(
            pilot, lambda: len(dash.panes) == 1 and screen.engine.intake.channel is not None
        )
        channel = screen.engine.intake.channel
        assert channel is not None and channel.root.name.startswith("0a1b2c3d-")
        body = {"agent": "demo", "prompt": "say hi", "cwd": str(repo), "requested_by": "x"}
        path = spawn.write_request(channel.requests, body)
        await wait_for(pilot, lambda: len(dash.panes) == 2, timeout=20)
        pane = dash.panes[1]
        assert pane.short in screen.views and pane.spec.headless
        assert dash.focused_pane is dash.panes[0]  # a delegated pane never steals focus
        ack_file = spawn.ack_path(channel.requests, spawn.request_id(path))
        await wait_for(pilot, ack_file.exists)
        ack = json.loads(ack_file.read_text())
        assert ack["ok"] and ack["short"] == pane.short
        await wait_for(pilot, lambda: "say hi" in screen_text(pane))
        # Quit: the roster lists both panes and the token dir is gone.
        await quit_app(pilot, app, lambda: not token_dirs(isolated_state), timeout=20)
    doc = json.loads(roster.roster_path(isolated_state, paths.repo_slug(repo)).read_text())
    assert [p["short"] for p in doc["panes"]] == ["0a1b2c3d", pane.short]


async def test_restore_overlay_toggles_and_restores(repo: Path, isolated_state: Path) -> None:
    roster.write_roster(isolated_state, paths.repo_slug(repo), roster_entries(repo, 3))
    app = managed_app(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen))
        overlay = app.screen
        assert isinstance(overlay, RestoreScreen)
        row = "worker · wrk demo {n} · demo · demo-standard · {n}{n}{n}{n}{n}{n}{n}{n}"
        assert "[x] " + row.format(n=1) in overlay.body().plain
        await pilot.press("space", "down", "down", "space")
        assert overlay.body().plain.splitlines() == [
            "[ ] " + row.format(n=1),
            "[x] " + row.format(n=2),
            "[ ] " + row.format(n=3),
        ]
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(dash.panes) == 2)
        restored = dash.panes[1]
        assert restored.short == "22222222"
        assert restored.session_id == roster_entries(repo, 3)[1].session_id
        assert roster.RESTART_PROMPT in restored.spec.argv
        await wait_for(pilot, lambda: "resuming after a dashboard restart" in screen_text(restored))


async def test_restore_skipped_is_kept_and_blocks_exit(repo: Path, isolated_state: Path) -> None:
    slug = paths.repo_slug(repo)
    roster.write_roster(isolated_state, slug, roster_entries(repo, 2))
    app = managed_app(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen) and bool(dash.panes))
        orch = dash.panes[0]
        await wait_for(pilot, lambda: "$" in screen_text(orch))
        orch.send(b"exit\r")
        await wait_for(pilot, lambda: not orch.alive)
        await pilot.pause(0.3)
        assert app.is_running and isinstance(app.screen, RestoreScreen)
        await pilot.press("escape")
        # Every pane ended: the dashboard stays on the ended row until a quit.
        await wait_for(pilot, lambda: "every pane has ended" in (dash.current_notice() or ""))
        assert app.is_running
        await pilot.press("ctrl+a", "q")
        await wait_for(pilot, lambda: not app.is_running, timeout=20)
    doc = json.loads(roster.roster_path(isolated_state, slug).read_text())
    assert [p["short"] for p in doc["panes"]] == ["11111111", "22222222"]
    assert not token_dirs(isolated_state)


@pytest.mark.serial  # a stop ladder stepped against the clock
async def test_context_menu_stop_needs_confirmation(repo: Path) -> None:
    app = make_app(repo, extra=[("demo", "task")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 2)
        worker = dash.panes[1]
        # Its task done and back at its prompt: the stop may type /quit there.
        await wait_for(pilot, worker.at_input_prompt, timeout=20)
        await pilot.press("ctrl+a", "2", "ctrl+a", "c")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        menu = app.screen
        assert isinstance(menu, MenuScreen)
        assert menu.subject == f"{worker.short} · worker"
        text = menu.body().plain
        assert "s  stop" in text and "t  retry" in text
        assert "disabled: still running" in text
        await pilot.press("s")
        assert "confirm? y / n" in menu.body().plain
        await pilot.press("n")  # any other key cancels
        assert "confirm?" not in menu.body().plain and app.screen is menu
        await pilot.press("s", "y")
        await wait_for(pilot, lambda: not isinstance(app.screen, MenuScreen))
        ladders = screen.engine.stops.ladders

        def seen() -> str:
            ladder = ladders.get(worker.short)
            stage = ladder.stage if ladder is not None else "none"
            child = worker.pty.poll() if worker.pty is not None else "no pty"
            return f"ladder {stage}, child exit {child}, screen {worker.last_screen_line()!r}"

        await wait_for(pilot, lambda: not worker.alive, timeout=30, what=seen)
        assert worker.exit_code == 0  # the demo agent's quit sequence (/quit)


async def test_disabled_entry_explains_and_inspector_opens(repo: Path) -> None:
    app = make_app(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        await pilot.press("ctrl+a", "c")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        menu = app.screen
        assert isinstance(menu, MenuScreen)
        assert menu.subject.endswith("· orchestrator")
        await pilot.press("d")  # dismiss: disabled for a live pane
        assert "dismiss: only a finished row can be dismissed" in menu.body().plain
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen))
        inspector = app.screen
        assert isinstance(inspector, InspectorScreen)
        titles = [title for title, _ in inspector.sections]
        assert titles[:2] == ["identity", "status"] and "errors" in titles
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, InspectorScreen))
        await pilot.press("ctrl+a", "i")
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen))
        await pilot.press("q")
        await wait_for(pilot, lambda: app.screen is dash_screen(app))


async def test_retry_an_ended_row_and_dismiss(repo: Path) -> None:
    app = make_app(repo, extra=[("demo", "first try")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 2)
        worker = dash.panes[1]
        await wait_for(pilot, lambda: "Done." in screen_text(worker))
        worker.send(b"/fail\r")
        await wait_for(pilot, lambda: not worker.alive and bool(dash.ended))
        assert app.is_running
        await pilot.press("ctrl+a", "2", "ctrl+a", "r")
        await wait_for(pilot, lambda: len(dash.panes) == 2 and dash.panes[1] is not worker)
        again: Pane = dash.panes[1]
        assert dash.current_notice() == f"restored {worker.short} as {again.short}"
        assert worker.short not in screen.views and again.short in screen.views
        assert dash.focused_pane is again
        await wait_for(pilot, lambda: "first try" in screen_text(again))
        again.send(b"/quit\r")
        await wait_for(pilot, lambda: not again.alive)
        await pilot.press("ctrl+a", "c")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await pilot.press("d")
        await wait_for(pilot, lambda: again not in dash.panes)
        assert dash.current_notice() == f"dismissed {again.short}"
        assert len(dash.panes) == 1 and dash.focused_pane is dash.panes[0]


async def test_menu_and_restore_rows_answer_the_mouse(repo: Path, isolated_state: Path) -> None:
    roster.write_roster(isolated_state, paths.repo_slug(repo), roster_entries(repo, 2))
    app = managed_app(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen))
        overlay = app.screen
        assert isinstance(overlay, RestoreScreen)
        await pilot.click("#restore-body", offset=(2, 1))
        assert overlay.cursor == 1 and overlay.checked == [True, True]
        await pilot.click("#restore-body", offset=(2, 1), times=2)
        assert overlay.checked == [True, False]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is dash_screen(app) and bool(dash.panes))
        await pilot.press("ctrl+a", "c")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await pilot.click("#menu-body", offset=(3, 7), times=2)  # open worktree
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen))
        assert dash.current_notice() == f"{dash.panes[0].short} runs in {repo}"
