"""The focused pane's header: harness ▸ role · model · cwd, then state and title."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.strip import Strip
from textual.widget import Widget

from widgets.glyphs import STATE_CLASSES, SpinnerStrip, glyph, state_css, state_style
from zirv_dash.attention.states import PaneState
from zirv_dash.panes.words import STATE_WORDS


@dataclass(frozen=True)
class PaneHeaderFacts:
    harness: str = ""
    role: str = ""
    model: str | None = None
    cwd: str = ""
    state: PaneState = PaneState.STARTING
    title: str = ""
    age: str = ""
    tick: int = 0
    extra: str = ""


def shorten_home(path: str) -> str:
    home = os.path.expanduser("~")
    if home and home != "/" and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


class PaneHeader(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "pane-header--harness",
        "pane-header--extra",
        *STATE_CLASSES,
    }
    """The harness name, the extra flag before the state, and `state--*` the
    state's glyph and word."""
    DEFAULT_CSS = """
    PaneHeader {
        height: 1;
        width: 1fr;
        background: $boost;
    }
    PaneHeader .pane-header--harness { color: ansi_cyan; text-style: bold; }
    PaneHeader .pane-header--extra { color: ansi_yellow; text-style: bold; }
    """ + state_css("PaneHeader")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.facts = PaneHeaderFacts()
        self._drawn: tuple[tuple[object, ...], SpinnerStrip] | None = None
        """The line drawn for the facts but the spinner's frame, and the size."""

    def update_facts(self, facts: PaneHeaderFacts) -> None:
        if facts != self.facts:
            self.facts = facts
            self.refresh()

    def render(self) -> Text:
        return self._layout(self.facts)[0]

    def render_line(self, y: int) -> Strip:
        # A spinner frame changes one cell: the line is laid out (by Textual,
        # from `render`) once per change of everything else, then the frame's
        # glyph is swapped in.
        facts = self.facts
        still = replace(facts, tick=0)
        key = (still, self.size)
        if self._drawn is None or self._drawn[0] != key:
            self.facts = still
            try:
                self._render_content()
                base = super().render_line(y)
            finally:
                self.facts = facts
            self._drawn = (key, SpinnerStrip(base, self._layout(still)[1]))
        return self._drawn[1].frame(facts.tick)

    def notify_style_update(self) -> None:
        self._drawn = None  # drawn with the old theme's colours
        super().notify_style_update()

    def _layout(self, f: PaneHeaderFacts) -> tuple[Text, int]:
        """The line, and the cell of the state's glyph in it."""
        width = self.size.width
        right = Text(no_wrap=True)
        if f.extra:
            right.append(
                f"{f.extra}  ",
                self.get_component_rich_style("pane-header--extra", partial=True, default=Style()),
            )
        glyph_at = right.cell_len
        char = glyph(f.state, f.tick)[0]
        style = state_style(self, f.state)
        right.append(char, style)
        right.append(f" {STATE_WORDS[f.state].capitalize()}", style)
        if f.age:
            right.append(f" {f.age}", Style(dim=True))
        right.append(" ")
        left = self._left(max(0, width - right.cell_len - 1))
        pad = max(0, width - left.cell_len - right.cell_len)
        return Text.assemble(left, " " * pad, right), left.cell_len + pad + glyph_at

    def _left(self, room: int) -> Text:
        """Harness, role, model, cwd and title, losing the least useful first
        (title, then the cwd's parents, then the cwd) so the state stays whole."""
        f = self.facts
        cwd = shorten_home(f.cwd)
        harness = self.get_component_rich_style(
            "pane-header--harness", partial=True, default=Style()
        )
        for title, path in (
            (f.title, cwd),
            ("", cwd),
            ("", os.path.basename(cwd) or cwd),
            ("", ""),
        ):
            text = Text(no_wrap=True, overflow="ellipsis")
            text.append(f" {f.harness}", harness)
            text.append(" ▸ ")
            text.append(f.role)
            text.append(f" · {f.model or '–'}", Style(dim=True))
            if path:
                text.append(f" · {path}", Style(dim=True))
            if title:
                text.append(f" · {title}", Style(italic=True))
            if text.cell_len <= room:
                return text
        text.truncate(room, overflow="ellipsis")
        return text
