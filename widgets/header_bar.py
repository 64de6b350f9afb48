"""The one-row header: brand and counts, a notice or sticky errors, hints or tabs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.events import Click
from textual.message import Message
from textual.widget import Widget

from widgets.glyphs import STATE_CLASSES, glyph, state_css, state_style
from zirv_dash.attention.states import PaneState
from zirv_dash.cli.opening_frame import sessions_words

NUMBERED_TABS = 9
"""`^A 1` … `^A 9` focus the first nine panes, as the sidebar's numbered rows say."""


@dataclass
class Tab:
    name: str
    state: PaneState
    focused: bool
    badge: str = ""


@dataclass
class HeaderFacts:
    sessions: int = 0
    """Live panes."""
    ended: int = 0
    """Panes that ended (failed, exited, stopped) but still have a sidebar row:
    the header then says `0 live · 1 ended`, the same total as the sidebar."""
    working: int = 0
    needs_you: int = 0
    notice: str | None = None
    tip: str | None = None
    """Shown (dim) when there is no notice and no error: the first-run tip."""
    errors: int = 0
    latest_error: str = ""
    hints: list[tuple[str, str]] = field(default_factory=list)
    usage: str = ""
    """Tokens and estimated cost today (`Σ 1.2M tok · ~$3.40 today`), "" if none."""
    tabs: list[Tab] | None = None
    tick: int = 0


USAGE_MIN_WIDTH = 110
"""Narrower headers leave the usage figure out: the notice needs the room."""


class HeaderBar(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "header-bar--brand",
        "header-bar--working",
        "header-bar--needs-you",
        "header-bar--focused-tab",
        "header-bar--notice",
        "header-bar--error-count",
        "header-bar--error",
        *STATE_CLASSES,
    }
    """The brand mark, the working / needs-you counts, the focused tab (under 100
    columns), a notice, the error count and text, and `state--*` the tab glyphs."""
    DEFAULT_CSS = """
    HeaderBar {
        height: 1;
        width: 1fr;
        background: $panel;
        color: $foreground;
    }
    HeaderBar .header-bar--brand { color: ansi_cyan; text-style: bold; }
    HeaderBar .header-bar--working { color: ansi_cyan; }
    HeaderBar .header-bar--needs-you { color: ansi_yellow; text-style: bold; }
    HeaderBar .header-bar--focused-tab { background: $panel-lighten-2; text-style: bold; }
    HeaderBar .header-bar--notice { color: ansi_green; }
    HeaderBar .header-bar--error-count { color: ansi_red; text-style: bold; }
    HeaderBar .header-bar--error { color: ansi_red; }
    """ + state_css("HeaderBar")

    class HintClicked(Message):
        """A hint (e.g. `^A s spawn`) was clicked: run its action (id or label)."""

        def __init__(self, header: HeaderBar, action: str) -> None:
            super().__init__()
            self.header = header
            self.action = action

        @property
        def control(self) -> HeaderBar:
            return self.header

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.facts = HeaderFacts()
        self.hint_spans: list[tuple[int, int, str]] = []
        """(start, end, action) cell spans of the clickable hints, for mouse hits."""
        self.tab_spans: list[tuple[int, int, int]] = []
        """(start, end, pane index) cell spans of the tabs shown under 100 columns."""

    def update_facts(self, facts: HeaderFacts) -> None:
        if facts != self.facts:
            self.facts = facts
            self.refresh()

    def render(self) -> Text:
        f = self.facts
        width = self.size.width
        left = self._left(width)
        middle = self._middle()
        # What the header says now (a notice, the errors, the tip) is read
        # before the hints: hints give way whole, leftmost first, never cut.
        hints = list(f.hints)
        while hints and left.cell_len + middle.cell_len + _hints_width(hints) > width:
            hints.pop(0)
        right = Text()
        for chord, label in hints:
            right.append("  ")
            right.append(chord, Style(bold=True))
            right.append(f" {label}", Style(dim=True))
        room = width - left.cell_len - right.cell_len
        middle.truncate(max(0, room), overflow="ellipsis")
        pad = max(0, width - left.cell_len - middle.cell_len - right.cell_len)
        out = Text.assemble(left, middle, " " * pad, right)
        self.hint_spans = []
        x = left.cell_len + middle.cell_len + pad
        for chord, label in hints:
            start = x + 2
            end = start + len(chord) + 1 + len(label)
            self.hint_spans.append((start, end, label))
            x = end
        out.truncate(width)
        return out

    def _left(self, width: int) -> Text:
        """The brand and counts, or (under 100 columns) one tab per pane."""
        f = self.facts
        left = Text()
        left.append("▌", self._part("brand"))
        left.append("zirv", Style(bold=True))
        self.tab_spans = []
        if f.tabs is None:
            left.append(f" · {sessions_words(f.sessions, f.ended)}", Style(dim=True))
            if f.working:
                left.append(f" · {f.working} working", self._part("working"))
            if f.needs_you:
                left.append(f" · {f.needs_you} needs you", self._part("needs-you"))
            if f.usage and width >= USAGE_MIN_WIDTH:
                left.append(f" · {f.usage}", Style(dim=True))
            return left
        for index, tab in enumerate(f.tabs):
            char = glyph(tab.state, f.tick)[0]
            style = state_style(self, tab.state)
            label = Text()
            label.append(" ")
            if index < NUMBERED_TABS:  # the digit of its `^A <n>` chord
                label.append(f"{index + 1} ", Style(bold=True))
            label.append(char, style)
            label.append(f" {tab.name}{(' ' + tab.badge) if tab.badge else ''} ")
            if tab.focused:
                label.stylize(self._part("focused-tab"))
            if left.cell_len + label.cell_len > width - 12:
                break
            self.tab_spans.append((left.cell_len, left.cell_len + label.cell_len, index))
            left.append_text(label)
        return left

    def _middle(self) -> Text:
        f = self.facts
        middle = Text(no_wrap=True)
        if f.notice:
            middle.append(f"  {f.notice}", self._part("notice"))
        elif f.errors:
            # One error reads `⚠ <text>`: a bare `1` before a text that starts
            # with its own number read as a doubled count.
            count = f"{f.errors} errors · " if f.errors > 1 else ""
            middle.append(f"  ⚠ {count}", self._part("error-count"))
            middle.append(f.latest_error, self._part("error"))
        elif f.tip:
            middle.append(f"  {f.tip}", Style(dim=True, italic=True))
        return middle

    def _part(self, name: str) -> Style:
        """The style of component class `header-bar--<name>` (its own rules only)."""
        return self.get_component_rich_style(f"header-bar--{name}", partial=True, default=Style())

    def tab_at(self, x: int) -> int | None:
        """The index (in the roster's order) of the tab drawn at column x."""
        for start, end, index in self.tab_spans:
            if start <= x < end:
                return index
        return None

    def hint_at(self, x: int) -> str | None:
        for start, end, action in self.hint_spans:
            if start <= x < end:
                return action
        return None

    def on_click(self, event: Click) -> None:
        if event.button != 1:
            return
        action = self.hint_at(event.x)
        if action is None:
            # A tab focuses its pane, as its `^A <digit>` chord does.
            tab = self.tab_at(event.x)
            action = None if tab is None else f"focus_{tab + 1}"
        if action is not None:
            event.stop()
            self.post_message(self.HintClicked(self, action))


def _hints_width(hints: list[tuple[str, str]]) -> int:
    return sum(2 + len(chord) + 1 + len(label) for chord, label in hints)
