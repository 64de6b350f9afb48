"""The engine on its own: real panes, driven headless, with no UI toolkit loaded."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from zirv_dash.attention.states import PaneState
from zirv_dash.config.layers import AdapterGate, load_settings
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.procinfo import pid_exists
from zirv_dash.runtime import Engine
from zirv_dash.runtime import events as ev

pytestmark = pytest.mark.timeout(60)


def make_engine(repo: Path) -> tuple[Engine, list[ev.EngineEvent]]:
    settings = load_settings(repo, flags={"dash": {"idle_quiet_ms": 200}})
    engine = Engine(Dashboard(settings, repo, AdapterGate(), manage_state=True))
    seen: list[ev.EngineEvent] = []
    engine.subscribe(seen.append)
    return engine, seen


async def until(check: Callable[[], bool], timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


def screen_text(pane: Pane) -> str:
    return "\n".join(pane.model_view.lines())


async def test_a_shell_pane_runs_types_and_ends_with_events(tmp_path: Path) -> None:
    engine, seen = make_engine(tmp_path)
    engine.start()
    try:
        pane = engine.spawn("shell")
        assert pane is not None and pane.pty is not None
        assert ev.PaneAdded(pane.short, True) in seen
        assert ev.FocusChanged(pane.short) in seen
        engine.send_input(b"echo hi-$((6*7))\r")
        await until(lambda: "hi-42" in screen_text(pane))
        assert ev.PaneOutput(pane.short) in seen
        engine.resize(100, 30)
        assert (pane.model_view.columns, pane.model_view.rows) == (100, 30)
        pid = pane.pty.pid
        engine.send_input(b"exit 3\r")
        await until(lambda: any(isinstance(e, ev.PaneEnded) for e in seen))
        ended = next(e for e in seen if isinstance(e, ev.PaneEnded))
        assert ended == ev.PaneEnded(pane.short, 3)
        assert not pid_exists(pid)
        assert any(isinstance(e, ev.StateChanged) and e.new is PaneState.FAILED for e in seen)
    finally:
        engine.close()


async def test_close_releases_the_signal_handler_readers_and_tasks(tmp_path: Path) -> None:
    engine, _seen = make_engine(tmp_path)
    loop = asyncio.get_running_loop()
    engine.start()
    pane = engine.spawn("shell")
    assert pane is not None and pane.fd is not None
    engine.send_input(b"echo ready-$((1+1))\r")
    await until(lambda: "ready-2" in screen_text(pane))
    handlers = getattr(loop, "_signal_handlers", {})
    assert signal.SIGCHLD in handlers
    engine.shutdown()
    await until(lambda: pane.exit_code is not None)
    engine.close()
    assert signal.SIGCHLD not in getattr(loop, "_signal_handlers", {})
    await asyncio.wait_for(engine.wait_closed(), 10)
    pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
    assert not pending, pending
    assert engine.watcher.closed and not engine.watcher.watching


async def test_a_refused_spawn_is_an_error_event_not_an_exception(tmp_path: Path) -> None:
    engine, seen = make_engine(tmp_path)
    engine.start()
    try:
        assert engine.spawn("no-such-harness") is None
        errors = [e.text for e in seen if isinstance(e, ev.ErrorRaised)]
        assert errors and "unknown harness 'no-such-harness'" in errors[0]
    finally:
        engine.close()


def test_the_engine_runs_panes_without_any_ui_toolkit(tmp_path: Path) -> None:
    """In a fresh interpreter: a real pane end to end, and Textual never imported."""
    script = textwrap.dedent(
        """
        import asyncio, sys
        from pathlib import Path
        from zirv_dash.config.layers import AdapterGate, load_settings
        from zirv_dash.dash.dashboard import Dashboard
        from zirv_dash.runtime import Engine, events as ev

        async def main() -> None:
            repo = Path(sys.argv[1])
            engine = Engine(Dashboard(load_settings(repo), repo, AdapterGate()))
            ended = asyncio.Event()
            engine.subscribe(lambda e: ended.set() if isinstance(e, ev.PaneEnded) else None)
            engine.start()
            pane = engine.spawn("shell")
            engine.send_input(b"echo engine-$((6*7)); exit 0\\r")
            await asyncio.wait_for(ended.wait(), 20)
            text = "\\n".join(pane.model_view.lines())
            engine.close()
            assert "engine-42" in text, text
            for name in ("textual", "rich"):
                assert name not in sys.modules, name
            print("ok")

        asyncio.run(main())
        """
    )
    env = dict(os.environ, SHELL="/bin/sh")
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=45,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


async def test_a_kill_request_ends_a_native_pane_which_has_no_process(tmp_path: Path) -> None:
    engine, seen = make_engine(tmp_path)
    engine.start()
    try:
        pane = engine.spawn("native")
        assert pane is not None and pane.pty is None and pane.alive
        engine.intake.intake.kill_now(pane)
        await until(lambda: not pane.alive)
        assert any(isinstance(e, ev.PaneEnded) and e.short == pane.short for e in seen)
    finally:
        engine.close()
