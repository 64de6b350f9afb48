"""The help overlay is built and laid out shortly after start, off the path of
the first `? help` chord, and its table is rendered once per width."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from textual.geometry import Size
from textual.pilot import Pilot

from screens.help import SCROLLBAR, HelpScreen, RenderCache, body_width, is_ready
from screens.screen_names import HELP_SCREEN
from tests.apphelpers import dash_screen, make_app, wait_for


class Counted:
    """A real renderable that counts how often Rich asks it to render."""

    def __init__(self) -> None:
        self.renders = 0

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        self.renders += 1
        yield Segment("x" * min(options.max_width, 5))
        yield Segment.line()


def test_render_cache_renders_once_per_width() -> None:
    inner = Counted()
    cache = RenderCache(inner)
    console = Console(width=80)
    first = list(console.render(cache, console.options.update_width(40)))
    again = list(console.render(cache, console.options.update_width(40)))
    assert first == again and inner.renders == 1
    list(console.render(cache, console.options.update_width(3)))
    assert inner.renders == 2


async def test_help_is_built_before_the_first_chord(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: bool(dash_screen(app).dash.panes))
        await wait_for(
            pilot,
            lambda: app.is_screen_installed(HELP_SCREEN) and app.get_screen(HELP_SCREEN).is_running,
        )
        help_screen = app.get_screen(HELP_SCREEN)
        assert isinstance(help_screen, HelpScreen)
        await pilot.press("ctrl+a", "question_mark")
        await wait_for(pilot, lambda: app.screen is help_screen)
        body = help_screen.query_one("#help-body")
        await wait_for(pilot, lambda: body.size.height > 0)
        text = ["".join(s.text for s in body.render_line(y)) for y in range(body.size.height)]
        assert any("jump to pane" in line for line in text)


def _body_text(help_screen: HelpScreen) -> list[str]:
    body = help_screen.query_one("#help-body")
    return ["".join(s.text for s in body.render_line(y)) for y in range(body.size.height)]


async def _show_help(pilot: Pilot[Any], help_screen: HelpScreen) -> None:
    app = pilot.app
    await pilot.press("ctrl+a", "question_mark")
    await wait_for(pilot, lambda: app.screen is help_screen)
    await wait_for(pilot, lambda: any("jump to pane" in line for line in _body_text(help_screen)))
    await pilot.pause()


async def test_first_showing_only_paints(tmp_path: Path) -> None:
    """Arranged off the stack while the dashboard idles, the first showing lays
    nothing out: the overlay's layout is the one made ahead of it."""
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: is_ready(app, HELP_SCREEN), timeout=20)
        help_screen = app.get_screen(HELP_SCREEN)
        assert isinstance(help_screen, HelpScreen)
        arranged = help_screen._compositor._full_map
        assert help_screen.query_one("#help-body").size.width == body_width(120) - SCROLLBAR
        await _show_help(pilot, help_screen)
        assert help_screen._compositor._full_map is arranged


async def test_arranged_again_after_a_resize(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: is_ready(app, HELP_SCREEN), timeout=20)
        help_screen = app.get_screen(HELP_SCREEN)
        assert isinstance(help_screen, HelpScreen)
        await pilot.resize_terminal(100, 30)
        await wait_for(pilot, lambda: app.size == Size(100, 30))
        await wait_for(pilot, lambda: is_ready(app, HELP_SCREEN), timeout=20)
        assert help_screen.size == Size(100, 30)
        arranged = help_screen._compositor._full_map
        await _show_help(pilot, help_screen)
        assert help_screen._compositor._full_map is arranged
        assert help_screen.query_one("#help-body").size.width == body_width(100) - SCROLLBAR


async def test_a_showing_restyles_the_help_only_when_its_theme_changed(tmp_path: Path) -> None:
    """Styled while prepared, the overlay is not restyled node by node on the key
    that opens it; a theme changed while it was off the stack restyles it."""
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: is_ready(app, HELP_SCREEN), timeout=20)
        help_screen = app.get_screen(HELP_SCREEN)
        assert isinstance(help_screen, HelpScreen)
        restyled: list[object] = []
        update = help_screen.update_node_styles

        def counted(animate: bool = True) -> None:
            restyled.append(app.theme)
            update(animate)

        help_screen.update_node_styles = counted  # type: ignore[method-assign]
        await _show_help(pilot, help_screen)
        assert restyled == []
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is not help_screen)
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        restyled.clear()
        await _show_help(pilot, help_screen)
        assert app.theme in restyled
