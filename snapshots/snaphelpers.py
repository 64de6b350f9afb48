"""Deterministic dashboards for snapshot tests: fixed ids, paths, no clocks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from screens.app import ZirvApp
from tests.apphelpers import dash_screen, make_app, wait_for
from zirv_dash.attention.states import PaneState
from zirv_dash.dash import dashboard

SNAP_REPO_HOME_PATH = "projects/zirv-samples"
"""The repo every snapshot dashboard opens, under a per-test HOME: the chrome
shows it as `~/projects/zirv-samples` (the `~/…` it shows for any repo under
HOME), the same on every machine and run, never a temp dir's path."""
IDS = [
    "0a1b2c3d-0000-4000-8000-000000000001",
    "1b2c3d4e-0000-4000-8000-000000000002",
    "2c3d4e5f-0000-4000-8000-000000000003",
    "3d4e5f60-0000-4000-8000-000000000004",
    "4e5f6071-0000-4000-8000-000000000005",
    "5f607182-0000-4000-8000-000000000006",
]


def snap_repo() -> Path:
    """The snapshot repo under the current HOME (the `snap_home` fixture's)."""
    return Path.home() / SNAP_REPO_HOME_PATH


@pytest.fixture(autouse=True)
def quiet_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZIRV_DEMO_SPINNER", "0")
    monkeypatch.setenv("ZIRV_DEMO_WORK_SECS", "0")
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")
    # A notice shows for a few seconds; in a picture it shows when the events
    # that raised it happened, however long a loaded machine took to get there.
    monkeypatch.setattr(dashboard, "NOTICE_TTL", 3600.0)


def snap_app(
    agent: str = "demo", extra: Sequence[tuple[str, str | None]] | None = None, **kw: Any
) -> ZirvApp:
    repo = snap_repo()
    repo.mkdir(parents=True, exist_ok=True)
    return make_app(
        repo,
        agent=agent,
        extra=list(extra) if extra is not None else None,
        deterministic=True,
        spinner=False,
        session_ids=list(IDS),
        **kw,
    )


def app_of(pilot: Pilot[Any]) -> ZirvApp:
    """The pilot's app, typed (every snapshot drives a ZirvApp)."""
    app = pilot.app
    assert isinstance(app, ZirvApp)
    return app


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """Press `keys`; after a `ctrl+a N` switch, wait until pane N has been on
    screen at the live view. Whether a `◆` pane reads as seen otherwise depends
    on whether a frame drew it before the next key opened a dialog over it."""
    for previous, key in zip(("", *keys), keys, strict=False):
        await pilot.press(key)
        if previous == "ctrl+a" and key.isdigit():
            await seen_at_live_view(pilot, int(key) - 1)


async def seen_at_live_view(pilot: Pilot[Any], index: int) -> None:
    """Wait until the pane at `index` is focused and a frame has shown it live."""
    dash = dash_screen(app_of(pilot)).dash

    def seen() -> bool:
        pane = dash.focused_pane
        if pane is None or index >= len(dash.panes):
            return False
        return pane is dash.panes[index] and pane.tracker.visible

    await wait_for(pilot, seen, what=lambda: f"focused {dash.focused_pane}")


TRANSIENT = (PaneState.STARTING, PaneState.WORKING, PaneState.UNKNOWN)


def settled(count: int, needle: str = ">") -> Callable[[Pilot[Any]], Awaitable[None]]:
    """run_before: wait until `count` panes exist, each shows `needle` at the end,
    and no pane is starting, working or unknown: the picture shows where the
    states settle, never a moment on the way there that a loaded machine
    stretches or a quick one skips."""

    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, ZirvApp)
        dash = dash_screen(app).dash

        def ready() -> bool:
            if len(dash.panes) != count:
                return False
            shown = all(
                any(line.startswith(needle) for line in p.model_view.lines()) and not p.inbox
                for p in dash.panes
            )
            return shown and not any(dash.state_of(p) in TRANSIENT for p in dash.panes)

        await wait_for(pilot, ready)
        # Chrome refreshes on a timer; draw it now so the states shown are the
        # settled ones, whatever the timer's phase.
        dash_screen(app).chrome.refresh()
        await pilot.pause(0.3)

    return run_before
