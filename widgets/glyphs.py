"""State glyphs shared by the sidebar, header tabs, pane header and grid labels.

Each state differs in both shape and colour, so it reads on monochrome
terminals and for colour-blind users alike. The colours are defined once here
and reach a widget as component classes (`state--idle`, …) in its DEFAULT_CSS,
so an app stylesheet or theme can restyle them; `render()` never names a colour.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from zirv_dash.attention.states import PaneState

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SPINNER_PERIOD = 0.08

GLYPHS: dict[PaneState, tuple[str, Style]] = {
    PaneState.STARTING: ("⠋", Style(color="cyan", dim=True)),
    PaneState.WORKING: ("⠋", Style(color="cyan")),
    PaneState.IDLE: ("●", Style(color="green")),
    PaneState.NEEDS_YOU: ("▲", Style(color="yellow", bold=True)),
    PaneState.DONE_UNSEEN: ("◆", Style(color="magenta", bold=True)),
    # Quiet, but not known to wait at its prompt: never drawn as idle.
    PaneState.UNKNOWN: ("?", Style(color="yellow")),
    # A remote host's pane whose link is down (it runs on there).
    PaneState.DISCONNECTED: ("⇣", Style(color="red")),
    # Ended rows: a clean exit, a failure and a stop each read differently.
    PaneState.EXITED: ("✓", Style(color="green", dim=True)),
    PaneState.FAILED: ("✗", Style(color="red", bold=True)),
    PaneState.STOPPED: ("■", Style(color="blue")),
}
"""The palette: ANSI colours, so they follow the operator's terminal palette."""


def glyph(state: PaneState, tick: int) -> tuple[str, Style]:
    """The state's glyph (a spinner frame while it works) and its palette style,
    for text built outside a widget; a widget uses `state_class` instead."""
    char, style = GLYPHS[state]
    if state in (PaneState.WORKING, PaneState.STARTING):
        char = SPINNER[tick % len(SPINNER)]
    return char, style


def state_class(state: PaneState) -> str:
    """The component class that styles `state`'s glyph and words."""
    return f"state--{state.name.lower().replace('_', '-')}"


def state_style(widget: Widget, state: PaneState) -> Style:
    """`state`'s style as `widget`'s stylesheet says (its `state--*` component
    class); the palette's own before the widget has a stylesheet (unmounted)."""
    return widget.get_component_rich_style(
        state_class(state), partial=True, default=GLYPHS[state][1]
    )


STATE_CLASSES = frozenset(state_class(state) for state in GLYPHS)
"""Add to a widget's COMPONENT_CLASSES, with `state_css(...)` in its DEFAULT_CSS."""


def _css_rule(style: Style) -> str:
    flags = [name for name in ("bold", "dim", "italic") if getattr(style, name)]
    rules = [f"color: ansi_{style.color.name};"] if style.color is not None else []
    if flags:
        rules.append(f"text-style: {' '.join(flags)};")
    return " ".join(rules)


def state_css(widget: str) -> str:
    """DEFAULT_CSS rules giving `widget`'s state component classes the palette."""
    return "\n".join(
        f"{widget} .{state_class(state)} {{ {_css_rule(style)} }}"
        for state, (_, style) in GLYPHS.items()
    )


class SpinnerStrip:
    """A drawn line holding a spinner: drawn once with the spinner's first frame,
    each other frame swaps that one cell (same style), made once and kept.

    A spinner frame then costs two cached crops and a join instead of laying
    out and styling the whole line again, and the line drawn for a tick is the
    one a full render at that tick would give (only the glyph differs)."""

    __slots__ = ("_base", "_frames", "_x")

    def __init__(self, base: Strip, x: int | None) -> None:
        self._base = base
        self._x = x if x is not None and _glyph_at(base, x) == SPINNER[0] else None
        self._frames: dict[str, Strip] = {SPINNER[0]: base}

    def frame(self, tick: int) -> Strip:
        if self._x is None:
            return self._base
        char = SPINNER[tick % len(SPINNER)]
        strip = self._frames.get(char)
        if strip is None:
            x, base = self._x, self._base
            style = next(s.style for s in base.crop(x, x + 1) if s.text)
            glyph_cell = Strip([Segment(char, style)], 1)
            strip = Strip.join([base.crop(0, x), glyph_cell, base.crop(x + 1)])
            self._frames[char] = strip
        return strip


def _glyph_at(strip: Strip, x: int) -> str:
    return "".join(segment.text for segment in strip.crop(x, x + 1))
