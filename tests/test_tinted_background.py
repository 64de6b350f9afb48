"""The overlay's dimmed background, tinted once per style, draws exactly what
Textual's own BackgroundScreen draws."""

from __future__ import annotations

from pathlib import Path

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.renderables.background_screen import BackgroundScreen
from textual.visual import RenderOptions, RichVisual

from screens.help import HelpScreen
from screens.tinted_background import TintedBackground, TintedScreen
from tests.apphelpers import dash_screen, make_app, wait_for

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
        await wait_for(pilot, lambda: bool(dash_screen(app).dash.panes))
        await pilot.press("ctrl+a", "question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        help_screen = app.screen
        below, tint = dash_screen(app), help_screen.styles.background
        assert tint.a < 1  # a translucent overlay: Textual would use BackgroundScreen
        style = help_screen.visual_style
        theirs = RichVisual(help_screen, BackgroundScreen(below, tint))
        fresh = TintedScreen(below, tint)
        want = theirs.render_strips(100, 30, style, RenderOptions(help_screen._get_style, {}))
        got = fresh.render_strips(100, 30, style, RenderOptions(help_screen._get_style, {}))
        assert [list(s) for s in got] == [list(s) for s in want]
