"""The overlay's dimmed background, tinted once per style, draws exactly what
Textual's own BackgroundScreen draws."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.renderables.background_screen import BackgroundScreen

from screens.tinted_background import TintedBackground

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
