"""A handover's successor must prove itself before the original is let go (Pilot).

Fake CLIs on PATH stand in for a vendor CLI that exits at once (grok with no API
key) and one that is not logged in (droid's login screen, as recorded in
`attention/patterns.py`)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from screens.app import ZirvApp
from tests.apphelpers import dash_screen, make_app, screen_text, tools_only_path, wait_for
from widgets.pane_header import PaneHeader
from zirv_dash.handover import swap
from zirv_dash.panes import registry
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.procinfo import pid_exists
from zirv_dash.runtime import successor_trial

pytestmark = pytest.mark.timeout(60)

ORCH = "6a7b8c9d-0000-4000-8000-000000000011"
WORKER = "7b8c9d0e-0000-4000-8000-000000000012"

NO_KEY = """\
import sys
print("grok: starting")
print("Error: GROK_API_KEY is not set. Export it or run `grok login`.")
sys.exit(1)
"""
LOGIN_SCREEN = """\
import sys, time
sys.stdout.write("\\x1b[2J\\x1b[H")
print("Please log in with your Factory account to continue")
print()
print("> Login")
print("  Quit")
sys.stdout.flush()
time.sleep(120)
"""


STUCK = """\
import time
print("connecting to the model server")
time.sleep(120)
"""


@pytest.fixture
def fake_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ZIRV_DEMO_SPINNER", "0")
    bin_dir = tools_only_path(tmp_path, monkeypatch)
    for name, body in (("grok", NO_KEY), ("droid", LOGIN_SCREEN), ("qwen", STUCK)):
        script = bin_dir / name
        script.write_text(f"#!{sys.executable}\n{body}")
        script.chmod(0o755)
    return bin_dir


def live_app(repo: Path, **kw: Any) -> ZirvApp:
    app = make_app(repo, agent="demo", flags={"dash": {"idle_quiet_ms": 300}}, **kw)
    app.options.manage_state = True
    return app


def failures(app: ZirvApp) -> list[str]:
    dash = dash_screen(app).dash
    return [e.text for e in dash.errors.entries if e.text.startswith("handover failed")]


async def cli(repo: Path, *args: str) -> tuple[int, str, str]:
    env = dict(os.environ, ZIRV_HANDOVER_WAIT_SECS="40")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "zirv_dash.cli.main", "ctx", "handover", *args,
        cwd=repo, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), timeout=45)
    return proc.returncode or 0, out.decode(), err.decode()


async def idle_demo(pilot: Any, pane: Pane) -> int:
    await wait_for(pilot, lambda: pane.is_idle() and pane.at_input_prompt(), timeout=20)
    assert pane.pty is not None
    return pane.pty.pid


async def test_an_orchestrator_handed_to_a_cli_that_exits_at_once_is_kept(
    tmp_path: Path, fake_bin: Path
) -> None:
    app = live_app(tmp_path, session_ids=[ORCH])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        orch = dash.panes[0]
        pid = await idle_demo(pilot, orch)
        before = screen_text(orch)
        ack = screen.engine.swaps.request(orch.short, "grok", None)
        assert ack.ok  # started; the verdict comes from the successor's trial
        await wait_for(pilot, lambda: bool(failures(app)), timeout=20)
        (failure,) = failures(app)
        assert "grok exited with code 1" in failure
        assert "GROK_API_KEY is not set" in failure  # the successor's last lines
        assert f"kept on demo/{orch.model}" in failure
        assert "handover of pane" in (dash.current_notice() or "")
        # The original is back in the pane, the same child, screen and record.
        assert app.is_running and orch in dash.panes and orch.alive
        assert orch.agent == "demo" and orch.pty is not None and orch.pty.pid == pid
        assert screen_text(orch) == before
        assert registry.read_record(registry.record_path(orch.short)).pid == pid
        header = screen.query_one(PaneHeader)
        await wait_for(pilot, lambda: header.facts.extra == "")
        assert not screen.engine.swaps.trials and not screen.engine.swaps.book.running
        # Still usable: it answers a task.
        await pilot.press(*"after the failed swap", "enter")
        await wait_for(pilot, lambda: "Working on: after the failed swap" in screen_text(orch))


async def test_a_worker_handed_over_from_the_cli_keeps_its_original_and_the_cli_fails(
    tmp_path: Path, fake_bin: Path
) -> None:
    app = live_app(tmp_path, extra=[("demo", "the worker's task")], session_ids=[ORCH, WORKER])
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: len(dash.panes) == 2)
        worker = dash.panes[1]
        await wait_for(pilot, lambda: "Done." in screen_text(worker), timeout=20)
        pid = await idle_demo(pilot, worker)
        # Not logged in (no GROK_API_KEY): refused before it starts...
        code, out, err = await cli(tmp_path, worker.short, "--agent", "grok")
        assert code == 1 and "grok is not logged in" in err, out + err
        # ...and, forced, it starts, fails its trial and the worker is kept.
        code, out, err = await cli(tmp_path, worker.short, "--agent", "grok", "--force")
        assert code == 1, out
        assert "warning: grok is not logged in" in err
        assert "handover failed: grok exited with code 1" in err
        assert "GROK_API_KEY is not set" in err and "handover done" not in out
        assert worker.alive and worker.agent == "demo"
        assert worker.pty is not None and worker.pty.pid == pid
        assert dash.panes[0].alive and len(dash.live_panes) == 2


async def test_a_successor_at_its_login_screen_is_not_handed_the_pane(
    tmp_path: Path, fake_bin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A session bus: droid's login may be in the keyring, so its files cannot
    # tell (`harnesses.credentials`); only its login screen says so.
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")
    app = live_app(tmp_path, session_ids=[ORCH])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        orch = dash.panes[0]
        pid = await idle_demo(pilot, orch)
        assert screen.engine.swaps.request(orch.short, "droid", None).ok
        await wait_for(pilot, lambda: bool(failures(app)), timeout=20)
        (failure,) = failures(app)
        assert "droid is not logged in" in failure and "> Login" in failure
        assert orch.alive and orch.agent == "demo" and orch.pty is not None
        assert orch.pty.pid == pid
        successors = [p for p in registry.live_sessions() if p.agent == "droid"]
        assert successors == []
        # Asked again: warned before it starts (the trial still decides).
        await wait_for(pilot, lambda: not screen.engine.swaps.book.running)
        assert screen.engine.swaps.request(orch.short, "droid", None).ok
        warned = [e.text for e in dash.errors.entries if "warning" in e.text]
        assert warned == [
            "handover: warning: droid is not logged in: droid showed its login screen at a "
            f"handover earlier; "
            f"pane {orch.short} is kept if it still is"
        ]
        await wait_for(pilot, lambda: len(failures(app)) == 2, timeout=20)
        assert orch.alive and orch.pty is not None and orch.pty.pid == pid


async def test_a_successor_that_proves_itself_retires_the_original(
    tmp_path: Path, fake_bin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shell successor at its prompt past the grace: the swap completes, and
    only then is the original asked to quit."""
    monkeypatch.setattr(successor_trial, "GRACE", 1.0)
    app = live_app(tmp_path, session_ids=[ORCH])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        orch = dash.panes[0]
        pid = await idle_demo(pilot, orch)
        assert screen.engine.swaps.request(orch.short, "shell", None).ok
        await wait_for(pilot, lambda: orch.agent == "shell")
        # On trial: the original still runs, the header says the swap is running.
        assert pid_exists(pid) and orch.short in screen.engine.swaps.trials
        assert screen.query_one(PaneHeader).facts.extra in (swap.RUNNING_NOTE, "")
        await wait_for(pilot, lambda: not screen.engine.swaps.trials, timeout=15)
        await wait_for(pilot, lambda: not pid_exists(pid))
        assert orch.alive and orch.agent == "shell" and not failures(app)
        assert "handover: pane" in (dash.current_notice() or "")


async def test_a_successor_stuck_before_its_prompt_is_stopped_at_the_limit(
    tmp_path: Path, fake_bin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(successor_trial, "LIMIT", 3.0)
    app = live_app(tmp_path, session_ids=[ORCH])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        orch = dash.panes[0]
        pid = await idle_demo(pilot, orch)
        assert screen.engine.swaps.request(orch.short, "qwen", None).ok
        await wait_for(pilot, lambda: orch.agent == "qwen")
        successor = orch.pty
        assert successor is not None
        await wait_for(pilot, lambda: bool(failures(app)), timeout=20)
        (failure,) = failures(app)
        assert "qwen did not reach its prompt within 3s" in failure
        assert "connecting to the model server" in failure
        assert orch.agent == "demo" and orch.pty is not None and orch.pty.pid == pid
        await wait_for(pilot, lambda: not pid_exists(successor.pid))  # stopped, not left
