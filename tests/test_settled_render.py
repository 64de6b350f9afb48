"""Widgets that hand back their last lines: skipped while nothing about them
changed, redrawn the moment anything did (content, style, theme, size)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from widgets.settled_render import SettledHorizontal, SettledStatic, SettledVertical


class Counted(SettledStatic):
    """Counts the times its line cache is asked for lines: the work the mixin
    saves (background, opacity, region and theme derived from every ancestor,
    then a filter pass over every line)."""

    drawn = 0

    def on_mount(self) -> None:
        cache = self._styles_cache
        ask = cache.render_widget

        def counted(widget: Widget, crop: Region) -> list[Strip]:
            type(self).drawn += 1
            return ask(widget, crop)

        cache.render_widget = counted  # type: ignore[method-assign]


class Board(App[None]):
    CSS = """
    #still { height: 3; }
    #still.alert { background: red; }
    #ticker { height: 1; }
    """

    def compose(self) -> ComposeResult:
        with SettledVertical():
            yield Counted("steady text", id="still")
            with SettledHorizontal():
                yield Static("0", id="ticker")


def glyphs(app: App[None], y: int) -> str:
    return "".join(seg.text for seg in app.screen._compositor.render_strips()[y])


def background_at(app: App[None], x: int, y: int) -> str | None:
    strip = app.screen._compositor.render_strips()[y]
    offset = 0
    for seg in strip:
        if offset + len(seg.text) > x:
            color = seg.style.bgcolor if seg.style else None
            return None if color is None else color.name
        offset += len(seg.text)
    return None


def ticker_shows(app: App[None], text: str) -> Callable[[], bool]:
    return lambda: glyphs(app, 3).startswith(text)


async def settle(pilot: Pilot[None], done: Callable[[], bool]) -> None:
    for _ in range(200):
        await pilot.pause(0.01)
        if done():
            return
    raise AssertionError("the screen never showed the expected lines")


async def test_a_neighbour_repainting_does_not_redraw_a_settled_widget() -> None:
    app = Board()
    async with app.run_test(size=(40, 6)) as pilot:
        ticker = app.query_one("#ticker", Static)
        await settle(pilot, lambda: "steady text" in glyphs(app, 0))
        Counted.drawn = 0
        for n in range(1, 6):
            ticker.update(str(n))
            await settle(pilot, ticker_shows(app, str(n)))
        assert Counted.drawn == 0
        assert "steady text" in glyphs(app, 0)


async def test_new_content_a_restyle_and_a_resize_are_drawn() -> None:
    app = Board()
    async with app.run_test(size=(40, 6)) as pilot:
        still = app.query_one("#still", Counted)
        await settle(pilot, lambda: "steady text" in glyphs(app, 0))
        still.update(Text("changed words"))
        await settle(pilot, lambda: "changed words" in glyphs(app, 0))
        still.add_class("alert")
        await settle(pilot, lambda: background_at(app, 30, 1) not in (None, "default"))
        await pilot.resize_terminal(60, 6)
        await settle(pilot, lambda: len(glyphs(app, 0)) == 60 and "changed" in glyphs(app, 0))
