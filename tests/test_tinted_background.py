"""The overlay's dimmed background, tinted once per style, draws exactly what
Textual's own BackgroundScreen draws."""

from __future__ import annotations

from pathlib import Path

from rich.segment import Segment
from rich.style import Style
from textual._compositor import LayoutUpdate
from textual.color import Color
from textual.renderables.background_screen import BackgroundScreen
from textual.strip import Strip
from textual.visual import RenderOptions, RichVisual

from screens.tinted_background import TintedBackground, TintedScreen
from tests.apphelpers import dash_screen, make_app, open_help, wait_for

SEGMENTS = [
    Segment("plain"),
    Segment("styled", Style(color="red", bgcolor="#102030", bold=True)),
    Segment("fg only", Style(color="#abcdef", italic=True)),
    Segment("bg only", Style(bgcolor="color(123)")),
    Segment("linked", Style(color="green", link="https://example.invalid", meta={"@click": "x"})),
    Segment("styled", Style(color="red", bgcolor="#102030", bold=True)),  # a repeat
    Segment("\n", None, None),
]


def test_same_segments_as_textual() -> None:
    for tint in (Color(0, 0, 0, 0.4), Color(30, 30, 30, 0.6), Color(0, 0, 0, 0)):
        ours = list(TintedBackground.process_segments(SEGMENTS, tint))
        theirs = list(BackgroundScreen.process_segments(SEGMENTS, tint))
        assert ours == theirs


async def test_overlay_background_matches_textuals(tmp_path: Path) -> None:
    """With the help open over a live dashboard, the tinted strips are the ones
    Textual's own BackgroundScreen, rendered through its RichVisual, gives."""
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(100, 30)) as pilot:
        help_screen = await open_help(pilot)
        below, tint = dash_screen(app), help_screen.styles.background
        assert tint.a < 1  # a translucent overlay: Textual would use BackgroundScreen
        style = help_screen.visual_style
        theirs = RichVisual(help_screen, BackgroundScreen(below, tint))
        fresh = TintedScreen(below, tint)
        want = theirs.render_strips(100, 30, style, RenderOptions(help_screen._get_style, {}))
        got = fresh.render_strips(100, 30, style, RenderOptions(help_screen._get_style, {}))
        assert [list(s) for s in got] == [list(s) for s in want]


async def test_reopened_overlay_tints_only_what_changed_below(tmp_path: Path) -> None:
    """Shown again after the dashboard changed, the help tints only the lines
    that changed below it, and draws what Textual's own BackgroundScreen does."""
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(100, 30)) as pilot:
        help_screen = await open_help(pilot)
        cache = help_screen._background
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is dash_screen(app))
        dash_screen(app).dash.notify("something happened")  # the header changes
        await pilot.pause(0.2)
        tinted = cache.tinted_lines
        await pilot.press("ctrl+a", "question_mark")
        await wait_for(pilot, lambda: app.screen is help_screen)
        await pilot.pause(0.2)
        assert 1 <= cache.tinted_lines - tinted < 30
        below, tint = dash_screen(app), help_screen.styles.background
        style = help_screen.visual_style
        options = RenderOptions(help_screen._get_style, {})
        theirs = RichVisual(help_screen, BackgroundScreen(below, tint))
        want = theirs.render_strips(100, 30, style, options)
        got = TintedScreen(below, tint, cache).render_strips(100, 30, style, options)
        assert [list(s) for s in got] == [list(s) for s in want]
        assert any("something happened" in "".join(s.text for s in line) for line in got)


async def test_open_overlay_repaints_only_the_lines_that_change_below(tmp_path: Path) -> None:
    """Textual repaints a whole overlay for any change below it, once it asked for
    the whole screen once (as it does when the overlay opens); the help repaints
    only the lines that look different below, and they are up to date."""
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(100, 30)) as pilot:
        help_screen = await open_help(pilot)
        await pilot.pause(0.3)
        compositor = help_screen._compositor
        full: list[int] = []
        render_full_update = compositor.render_full_update

        def counted(simplify: bool = False) -> LayoutUpdate:
            full.append(1)
            return render_full_update(simplify)

        compositor.render_full_update = counted  # type: ignore[method-assign]
        for n in range(3):
            dash_screen(app).dash.notify(f"change number {n}")  # the header changes

            def shown(n: int = n) -> bool:
                return any(
                    f"change number {n}" in _text(s)
                    for s in help_screen.render_lines(help_screen.region)
                )

            await wait_for(pilot, shown)
        assert not full
        # What the overlay drew is what it draws from scratch.
        drawn = [list(s) for s in help_screen.render_lines(help_screen.region)]
        help_screen._styles_cache.clear()
        help_screen._set_dirty()
        assert [list(s) for s in help_screen.render_lines(help_screen.region)] == drawn


def _text(strip: Strip) -> str:
    return "".join(segment.text for segment in strip)
