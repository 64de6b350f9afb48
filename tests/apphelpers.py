"""Helpers for driving the real dashboard (real PTYs, real children) under Pilot."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from screens.app import LaunchOptions, ZirvApp
from screens.dashboard import DashboardScreen
from zirv_dash.config import AdapterGate, load_settings
from zirv_dash.keymap import load_preset
from zirv_dash.pane import Pane


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


def dash_screen(app: ZirvApp) -> DashboardScreen:
    for screen in app.screen_stack:
        if isinstance(screen, DashboardScreen):
            return screen
    raise AssertionError("no dashboard screen")


async def wait_for(pilot: Pilot[Any], cond: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.02)


def screen_text(pane: Pane) -> str:
    return "\n".join(pane.model_view.lines())
