"""Helpers for driving the real dashboard (real PTYs, real children) under Pilot."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot

from screens.app import LaunchOptions, ZirvApp
from screens.dashboard import DashboardScreen
from screens.help import HelpScreen
from zirv_dash.config.layers import AdapterGate, load_settings
from zirv_dash.keymap import load_preset
from zirv_dash.panes.pane import Pane


def make_app(
    repo: Path,
    agent: str = "shell",
    extra: list[tuple[str, str | None]] | None = None,
    flags: dict[str, Any] | None = None,
    **kwargs: Any,
) -> ZirvApp:
    settings = load_settings(repo, flags=flags)
    kwargs.setdefault("manage_state", False)
    options = LaunchOptions(
        repo=repo,
        settings=settings,
        keymap=load_preset("default"),
        gate=AdapterGate(),
        agent=agent,
        initial_panes=extra or [],
        **kwargs,
    )
    return ZirvApp(options)


def gated_demo_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: str, idle_quiet_ms: int
) -> tuple[ZirvApp, Path]:
    """A shell orchestrator and a demo worker on `task`, whose last step spins
    until the returned gate file exists (tests step through the turn)."""
    gate = tmp_path / "gate"
    monkeypatch.setenv("ZIRV_DEMO_GATE", str(gate))
    flags = {"dash": {"idle_quiet_ms": idle_quiet_ms}}
    return make_app(tmp_path, extra=[("demo", task)], flags=flags), gate


async def demo_worker(pilot: Pilot[Any], app: ZirvApp, task: str) -> Pane:
    """The demo worker of `gated_demo_app`, once it is working on its task."""
    dash = dash_screen(app).dash
    await wait_for(pilot, lambda: len(dash.panes) == 2)
    worker = dash.panes[1]
    await wait_for(pilot, lambda: f"Working on: {task}" in screen_text(worker))
    return worker


def tools_only_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PATH with git, grep and cat only (no vendor CLIs), a plain shell and a
    private HOME: what a harness list or a swap sees must not depend on the machine."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in ("git", "grep", "cat"):
        found = shutil.which(tool)
        if found and not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(found)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return bin_dir


def dash_screen(app: ZirvApp) -> DashboardScreen:
    for screen in app.screen_stack:
        if isinstance(screen, DashboardScreen):
            return screen
    raise AssertionError("no dashboard screen")


async def open_help(pilot: Pilot[Any]) -> HelpScreen:
    """`Ctrl+A ?` on the dashboard, once its first pane is up: the help overlay."""
    app = pilot.app
    assert isinstance(app, ZirvApp)
    await wait_for(pilot, lambda: bool(dash_screen(app).dash.panes))
    await pilot.press("ctrl+a", "question_mark")
    await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
    help_screen = app.screen
    assert isinstance(help_screen, HelpScreen)
    return help_screen


async def wait_for(
    pilot: Pilot[Any],
    cond: Callable[[], bool],
    timeout: float = 10.0,
    what: Callable[[], str] | None = None,
) -> None:
    """Wait for `cond`; on a timeout, `what()` says what was seen instead."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            seen = f": {what()}" if what is not None else ""
            raise AssertionError(f"condition not met in {timeout:.0f} s{seen}")
        await pilot.pause(0.02)


async def quit_app(
    pilot: Pilot[Any],
    app: ZirvApp,
    done: Callable[[], bool] | None = None,
    timeout: float = 20.0,
) -> None:
    """`Ctrl+A q`, Enter on the quit dialog whenever it shows (it asks while a
    pane is not idle), until `done` (by default: the app has stopped)."""
    from screens.quit_confirm import QuitConfirmScreen

    finished = done or (lambda: not app.is_running)
    await pilot.press("ctrl+a", "q")
    deadline = time.monotonic() + timeout
    confirmed = False
    while not finished():
        if time.monotonic() > deadline:
            raise AssertionError(f"the quit did not finish in {timeout:.0f} s")
        if not confirmed and isinstance(app.screen, QuitConfirmScreen):
            await pilot.press("enter")
            confirmed = True
            continue
        await pilot.pause(0.02)


def burst(app: ZirvApp, keys: list[str]) -> None:
    """Post every key to the App at once, the way the driver hands over one read
    (a paste, a laggy link, `tmux send-keys`): none is handled before the last
    is posted."""
    for key in keys:
        char = key if len(key) == 1 else (" " if key == "space" else None)
        app.post_message(events.Key(key, char))


def chars(text: str) -> list[str]:
    """Key names of `text` (a space is the `space` key)."""
    return ["space" if c == " " else c for c in text]


async def shell_at_prompt(pilot: Pilot[Any], app: ZirvApp) -> Pane:
    """The dashboard's one shell pane, once it shows its prompt."""
    dash = dash_screen(app).dash
    await wait_for(pilot, lambda: len(dash.panes) == 1 and "$" in screen_text(dash.panes[0]))
    return dash.panes[0]


def screen_text(pane: Pane) -> str:
    return "\n".join(pane.model_view.lines())


def native_app(tmp_path: Path) -> tuple[Path, Any]:
    """A repository and a managed dashboard whose orchestrator is a native pane."""
    repo = tmp_path / "repo"
    (repo / ".zirv").mkdir(parents=True)
    return repo, make_app(repo, agent="native", manage_state=True)


async def ready_orchestrator(pilot: Any, app: Any) -> tuple[Any, Any, Any]:
    """(screen, orchestrator pane, its native view) once its composer has the focus."""
    from widgets.native_composer import NativeComposer

    screen = dash_screen(app)
    await wait_for(pilot, lambda: bool(screen.native_views))
    orch = screen.dash.panes[0]
    view = screen.native_views[orch.short]
    await wait_for(pilot, lambda: isinstance(app.focused, NativeComposer))
    return screen, orch, view
