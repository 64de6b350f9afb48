"""A launch spawns its first pane before the UI loads: the dashboard adopts that
pane (one orchestrator, watched, typed into) at the size it laid out for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from zirv_dash.cli.opening_frame import Outline, footer_hint
from zirv_dash.config.layers import AdapterGate, load_settings
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.keymap import load_preset
from zirv_dash.runtime import Engine
from zirv_dash.runtime.prespawn import prespawn


def prestarted(repo: Path, columns: int, rows: int) -> Engine:
    settings = load_settings(repo)
    outline = Outline(
        columns=columns,
        rows=rows,
        sessions=1,
        sidebar_cols=settings.dash.sidebar_cols,
        footer_hint=footer_hint(load_preset("default")),
    )
    engine = Engine(Dashboard(settings, repo, AdapterGate(), manage_state=False))
    engine.dash.resize_panes(*outline.pane_size())
    assert prespawn(engine, "shell", role="orchestrator") is not None
    return engine


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_first_pane_is_adopted_at_its_size(tmp_path: Path, size: tuple[int, int]) -> None:
    engine = prestarted(tmp_path, *size)
    (pane,) = engine.dash.panes
    before = (pane.model_view.columns, pane.model_view.rows)
    pid = pane.pty.pid if pane.pty is not None else None
    app = make_app(tmp_path, agent="shell", started=engine)
    try:
        async with app.run_test(size=size) as pilot:
            screen = dash_screen(app)
            await wait_for(pilot, lambda: pane.short in screen.views)
            await pilot.pause()
            laid_out = screen.query_one("#panes").size
            # The layout gave the pane exactly the size it was spawned at: no
            # resize (and no SIGWINCH redraw) once the UI is up.
            assert (laid_out.width, laid_out.height) == before
            assert (pane.model_view.columns, pane.model_view.rows) == before
            assert screen.dash.panes == [pane]  # adopted, not a second orchestrator
            assert screen.dash.focused_pane is pane
            assert pane.pty is not None and pane.pty.pid == pid
            # It answers OSC 10/11 as every pane does: here the outer terminal
            # gave no colours, so with none.
            assert screen.pane_views.default_colors() is None
            assert (pane.model_view.default_fg_rgb, pane.model_view.default_bg_rgb) == (None, None)
            await wait_for(pilot, lambda: "$" in screen_text(pane) or "#" in screen_text(pane))
            await pilot.press(*"echo adopted-$((6*7))", "enter")
            await wait_for(pilot, lambda: "adopted-42" in screen_text(pane))
    finally:
        engine.dash.shutdown_all(grace=1.0)
    assert not engine.dash.live_panes
