"""An echo is drawn at once (`widgets.echo_path`), and only where it draws
exactly what the compositor would: the same cells, at the same place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.drivers.headless_driver import HeadlessDriver
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widgets._toast import Toast

from screens.app import ZirvApp
from screens.help import HelpScreen
from tests.apphelpers import dash_screen, make_app, screen_text, shell_at_prompt, wait_for
from tests.intakehelpers import plain_shell_env
from widgets.echo_path import MAX_ROWS, draw_rows_now
from widgets.terminal_view import TerminalView

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def glass(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the app writes, as if to a real terminal (the headless driver
    otherwise stops every frame before it is rendered)."""
    written: list[str] = []
    plain_shell_env(monkeypatch)
    monkeypatch.setattr(HeadlessDriver, "is_headless", property(lambda _self: False))
    monkeypatch.setattr(HeadlessDriver, "write", lambda _self, data: written.append(data))
    return written


async def shell_view(pilot: Pilot[Any], app: ZirvApp) -> TerminalView:
    """The view of the dashboard's one shell pane, once the shell is at its prompt."""
    pane = await shell_at_prompt(pilot, app)
    return dash_screen(app).views[pane.short]


def frame_rows(view: TerminalView) -> list[Strip]:
    """The whole screen as the compositor renders it now."""
    return view.screen._compositor.render_strips()


async def test_an_echo_is_drawn_at_once_as_the_compositor_draws_it(
    tmp_path: Path, glass: list[str]
) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        view = await shell_view(pilot, app)
        pane = view.pane
        before = view.direct_frames
        await pilot.press(*"echo")
        await wait_for(pilot, lambda: "$ echo" in screen_text(pane))
        await wait_for(pilot, lambda: view.direct_frames > before)
        # Drawn again by hand: the bytes are the view's row at its place on the
        # screen, and its cells are those the compositor renders for that line.
        row = pane.model_view.cursor[1]
        glass.clear()
        assert draw_rows_now(view, [row])
        region = view.region
        strip = view.render_lines(view.size.region)[row]
        written = "".join(glass)
        assert f"\x1b[{region.y + row + 1};{region.x + 1}H{strip.render(app.console)}" in written
        assert strip.text.startswith("$ echo")
        line = frame_rows(view)[region.y + row].crop(region.x, region.right)
        assert list(line.simplify()) == list(strip.simplify())


async def test_nothing_is_drawn_past_an_overlay_or_for_a_flood(
    tmp_path: Path, glass: list[str]
) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        view = await shell_view(pilot, app)
        await wait_for(pilot, lambda: draw_rows_now(view, [0]))  # the dashboard on top
        assert not draw_rows_now(view, range(MAX_ROWS + 1))  # output, not an echo
        assert not draw_rows_now(view, [view.size.height])  # not a row of the view
        await pilot.press("ctrl+a", "question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert not draw_rows_now(view, [0])  # the overlay is on top


async def test_a_row_behind_a_toast_waits_for_the_compositor(
    tmp_path: Path, glass: list[str]
) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        view = await shell_view(pilot, app)
        await wait_for(pilot, lambda: draw_rows_now(view, [0]))  # once laid out
        bottom = view.size.height - 1
        assert draw_rows_now(view, [bottom])
        app.notify("a toast over the pane's bottom rows", timeout=30)
        await wait_for(pilot, lambda: bool(view.screen.query(Toast)))
        await pilot.pause(0.1)
        assert not draw_rows_now(view, [bottom])  # the toast is in front there
        assert draw_rows_now(view, [0])  # nor anywhere else
