"""Quitting, stopping and killing panes, through the real dashboard.

Real PTYs and real shells under Pilot: quit never types into a dialog (a fake CLI
whose pre-selected answer is "Yes, I trust this folder"), no process of any
pane's session survives quit, the menu's stop and `zirv ctx kill` end a shell
pane as stopped (not an error), and a first pane that fails at once keeps the
dashboard open with its ended row and the error.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from screens.menu import MenuScreen
from tests.apphelpers import dash_screen, make_app, quit_app, screen_text, wait_for
from zirv_dash.attention.states import PaneState
from zirv_dash.config.layers import load_settings
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.panes import procinfo, wrap
from zirv_dash.panes.pane import Pane

FAKE_TRUST_CLI = Path(__file__).parent / "data" / "fake_trust_cli.py"
STUBBORN = (
    "bash -c 'trap \"\" TERM HUP INT; sleep 1000' & echo J1=$!",
    "sleep 1000 & echo J2=$!",
)


def job_pids(pane: Pane) -> list[int]:
    text = screen_text(pane)
    return [int(m.group(1)) for m in re.finditer(r"J[12]=(\d+)", text)]


def session_of(pane: Pane) -> list[int]:
    assert pane.pty is not None
    return [pid for pid, _ in procinfo.session_members(pane.pty.pid)]


def await_gone(pids: list[int], timeout: float = 5.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while True:
        alive = [pid for pid in pids if procinfo.pid_exists(pid)]
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.05)


@pytest.fixture
def bash_shell(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bash = subprocess.run(["sh", "-c", "command -v bash"], capture_output=True, text=True)
    monkeypatch.setenv("SHELL", bash.stdout.strip() or "/bin/bash")
    monkeypatch.setenv("PS1", "$ ")
    # The machine's own ~/.bashrc is not part of the test (a stale pyenv lock
    # there once stalled every interactive bash for a minute).
    home = tmp_path / "bash-home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))


async def start_stubborn_jobs(pilot: object, pane: Pane) -> list[int]:
    for command in STUBBORN:
        pane.send(command.encode() + b"\r")  # typing it key by key adds nothing here
    await wait_for(pilot, lambda: len(job_pids(pane)) == 2)  # type: ignore[arg-type]
    return job_pids(pane)


# -- quit never answers for the user ----------------------------------------------


async def test_quitting_at_a_trust_prompt_leaves_the_folder_untrusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "claude"
    fake.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_TRUST_CLI} "$@"\n')
    fake.chmod(0o755)
    trust = tmp_path / "trusted.json"
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_TRUST_FILE", str(trust))
    app = make_app(tmp_path, agent="claude")
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes) and dash.panes[0].pty is not None)
        pane = dash.panes[0]
        await wait_for(pilot, lambda: "Yes, I trust this folder" in screen_text(pane))
        assert not pane.at_input_prompt()
        await quit_app(pilot, app, timeout=20)
    assert not trust.exists(), "quitting answered the trust dialog"
    assert pane.pty is not None and await_gone([pane.pty.pid]) == []


# -- no orphans -----------------------------------------------------------------------


async def test_quit_leaves_no_process_of_a_shell_panes_session(
    tmp_path: Path, bash_shell: None
) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes) and bool(screen_text(dash.panes[0]).strip()))
        pane = dash.panes[0]
        jobs = await start_stubborn_jobs(pilot, pane)
        members = session_of(pane)
        assert set(jobs) <= set(members)
        await quit_app(pilot, app, timeout=20)
    assert await_gone(members, 10.0) == []
    assert pane.pty is not None and procinfo.session_members(pane.pty.pid) == []


async def test_menu_stop_ends_a_shell_pane_and_its_jobs_as_stopped(
    tmp_path: Path, bash_shell: None
) -> None:
    app = make_app(tmp_path, agent="shell", extra=[("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(
            pilot, lambda: len(dash.panes) == 2 and bool(screen_text(dash.panes[1]).strip())
        )
        pane = dash.panes[1]
        await pilot.press("ctrl+a", "2")
        jobs = await start_stubborn_jobs(pilot, pane)
        members = session_of(pane)
        await pilot.press("ctrl+a", "c")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await pilot.press("s", "y")
        await wait_for(pilot, lambda: not pane.alive, timeout=20)
        # Said as it ended (before the notice's time is up however slow the rest).
        await wait_for(pilot, lambda: (dash.current_notice() or "").endswith("stopped"))
        everything = [*jobs, *members]
        # (awaited on the app's loop: the ladder is stepped by a timer there)
        await wait_for(pilot, lambda: not any(map(procinfo.pid_exists, everything)), 20)
        assert pane.state() is PaneState.STOPPED
        assert not dash.errors.unacked, [e.text for e in dash.errors.entries]
        assert dash.panes[0].alive  # the other pane is untouched
        await quit_app(pilot, app, timeout=20)


def test_ctx_kill_of_a_shell_pane_ends_it_and_its_jobs_as_stopped(
    tmp_path: Path, bash_shell: None
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    dash = Dashboard(load_settings(repo), repo, manage_state=True)
    try:
        pane = dash.spawn("shell")
        assert pane.pty is not None
        for command in STUBBORN:
            pane.send(command.encode() + b"\r")
        deadline = time.monotonic() + 10
        while len(job_pids(pane)) < 2 and time.monotonic() < deadline:
            pane.read_available()
            pane.pump(1 << 20)
            time.sleep(0.02)
        members = session_of(pane)
        assert len(members) >= 3
        result = subprocess.run(
            [sys.executable, "-m", "zirv_dash.cli.main", "ctx", "kill", pane.short, "--grace", "1"],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert result.returncode == 0, result.stderr
        assert "every process group" in result.stdout
        deadline = time.monotonic() + 10
        while not dash.reap() and time.monotonic() < deadline:
            pane.read_available()
            pane.pump(1 << 20)
            time.sleep(0.02)
        assert not pane.alive
        assert await_gone(members, 10.0) == []
        assert pane.state() is PaneState.STOPPED
        assert not dash.errors.entries, [e.text for e in dash.errors.entries]
        assert (dash.current_notice() or "").endswith("stopped")
    finally:
        dash.shutdown_all(grace=0.2)


# -- a first pane that fails at once ----------------------------------------------------


async def test_a_first_pane_that_fails_at_once_keeps_the_dashboard_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHELL", "/bin/false")
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: bool(dash.panes) and not dash.panes[0].alive)
        pane = dash.panes[0]
        await wait_for(pilot, lambda: bool(dash.errors.entries))
        await pilot.pause(0.5)
        assert app.is_running, "the dashboard vanished"
        assert pane.exit_code == 1
        assert any("exited with code 1" in e.text for e in dash.errors.entries)
        await pilot.press("ctrl+a", "e")
        await pilot.pause(0.2)
        assert app.screen is not screen  # the errors overlay opened
        await pilot.press("escape")
        await pilot.pause(0.1)
        await quit_app(pilot, app, timeout=20)


def test_wrap_says_why_when_the_program_fails_at_once(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    devnull = os.open(os.devnull, os.O_RDONLY)
    out = os.open(tmp_path / "out", os.O_WRONLY | os.O_CREAT)
    try:
        code = wrap.run_wrapped(
            ["/bin/false"], dict(os.environ), str(tmp_path), stdin_fd=devnull, output_fd=out
        )
    finally:
        os.close(devnull)
        os.close(out)
    assert code == 1
    err = capfd.readouterr().err
    assert "/bin/false exited with code 1" in err


def test_wrap_leaves_no_job_of_the_session_behind(tmp_path: Path) -> None:
    devnull = os.open(os.devnull, os.O_RDONLY)
    out_path = tmp_path / "out"
    out = os.open(out_path, os.O_WRONLY | os.O_CREAT)
    script = "bash -c 'trap \"\" TERM HUP INT; sleep 1000' & echo JOB=$!"
    try:
        code = wrap.run_wrapped(
            ["bash", "-c", script],
            dict(os.environ),
            str(tmp_path),
            stdin_fd=devnull,
            output_fd=out,
        )
    finally:
        os.close(devnull)
        os.close(out)
    assert code == 0
    job = int(re.search(r"JOB=(\d+)", out_path.read_text()).group(1))  # type: ignore[union-attr]
    assert await_gone([job], 1.0) == []
