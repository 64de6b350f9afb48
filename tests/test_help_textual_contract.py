"""What the help overlay and the line compositor take from Textual's internals
(laying a screen out off the stack, the compositor's dirty regions, how an
update below an overlay reaches it) still holds: each test compares with what
Textual itself does, so an upgrade that changes those internals fails here
rather than drawing a stale or misplaced frame."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from rich.segment import Segment
from textual._compositor import Compositor
from textual.geometry import Region, Size
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widget import Widget

from screens.app import ZirvApp
from screens.help import HelpScreen, _needs_layout, is_ready, prepare
from screens.line_compositor import LineCompositor, _NotedRegions
from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from zirv_dash.panes.pane import Pane

NAME = "help-under-test"


def _cells(strips: list[Strip]) -> list[list[Segment]]:
    return [list(strip) for strip in strips]


def _placed(screen: HelpScreen) -> dict[Widget, Region]:
    return {widget: widget.region for widget in screen.query("*")}


async def _prepared(pilot: Pilot[Any]) -> HelpScreen:
    """The help under NAME made ready by `prepare` alone, a step at a time."""
    app = pilot.app
    assert isinstance(app, ZirvApp)
    keymap = dash_screen(app).keys.keymap
    for _ in range(100):
        if prepare(app, keymap, NAME):
            break
        await pilot.pause(0.02)
    else:
        raise AssertionError("prepare never finished")
    screen = app.get_screen(NAME)
    assert isinstance(screen, HelpScreen)
    return screen


async def _shown_and_laid_out_again(pilot: Pilot[Any], screen: HelpScreen) -> dict[Widget, Region]:
    """Show `screen`, check that showing laid nothing out, then have Textual lay
    it out itself and return where it put every widget."""
    app = pilot.app
    arranged = screen._compositor._full_map
    await app.push_screen(NAME)
    await wait_for(pilot, lambda: app.screen is screen)
    await pilot.pause()
    assert screen._compositor._full_map is arranged  # the first showing only painted
    screen.refresh(layout=True)
    await wait_for(pilot, lambda: screen._compositor._full_map is not arranged)
    return _placed(screen)


async def test_prepare_arranges_the_help_as_textual_lays_it_out(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: bool(dash_screen(app).dash.panes))
        screen = await _prepared(pilot)
        assert is_ready(app, NAME)
        assert screen.is_running and screen.is_mounted
        assert not _needs_layout(screen, app.size)
        assert screen.size == app.size
        ahead = _placed(screen)
        assert ahead == await _shown_and_laid_out_again(pilot, screen)


async def test_after_a_resize_prepare_arranges_it_again(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: bool(dash_screen(app).dash.panes))
        screen = await _prepared(pilot)
        await pilot.resize_terminal(90, 28)
        await wait_for(pilot, lambda: app.size == Size(90, 28))
        assert not is_ready(app, NAME)  # arranged for the old size
        await _prepared(pilot)
        assert is_ready(app, NAME) and screen.size == Size(90, 28)
        ahead = _placed(screen)
        assert ahead == await _shown_and_laid_out_again(pilot, screen)


async def test_below_the_open_help_random_repaints_draw_what_textual_draws(
    tmp_path: Path,
) -> None:
    """Panes below the help change at random (real output, notices, repaints);
    each time, the whole screen below as `render_strips` gives it is Textual's
    own compositor's rendering of it, and the help drew over every changed
    line (its refresh override let each change through)."""
    app = make_app(tmp_path, agent="shell", extra=[("shell", None)], deterministic=True)
    async with app.run_test(size=(100, 30)) as pilot:
        dash = dash_screen(app)
        await wait_for(pilot, lambda: len(dash.dash.panes) == 2)
        await pilot.press("ctrl+a", "question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        below = dash._compositor
        assert isinstance(below, LineCompositor)
        widgets = [w for w in dash.query("*") if w.region]
        rng = random.Random(3)

        def textuals() -> list[Strip]:
            theirs = Compositor()
            theirs.reflow(dash, dash.size)
            return theirs.render_strips()

        for round_ in range(10):
            what = rng.choice(("output", "notice", "repaint"))
            if what == "output":
                pane = rng.choice(dash.dash.panes)
                pane.send(f"echo word{round_}x\r".encode())
                word = f"\nword{round_}x\n"  # the output, not the command line

                def echoed(pane: Pane = pane, word: str = word) -> bool:
                    return word in screen_text(pane)

                await wait_for(pilot, echoed)
            elif what == "notice":
                dash.dash.notify(f"notice {round_}")
            else:
                for widget in rng.sample(widgets, 3):
                    widget.refresh()
            await wait_for(pilot, lambda: _cells(below.render_strips()) == _cells(textuals()))
            # The help has drawn over every line that looks different below.
            await wait_for(pilot, lambda: not help_screen._background.changed_lines())
            assert isinstance(below._dirty_regions, _NotedRegions), "Textual replaced the set"
        # What the help shows is what it draws from scratch.
        drawn = _cells(help_screen.render_lines(help_screen.region))
        help_screen._styles_cache.clear()
        help_screen._set_dirty()
        assert _cells(help_screen.render_lines(help_screen.region)) == drawn
