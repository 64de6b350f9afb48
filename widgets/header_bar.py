"""The one-row header: brand and counts, a notice or sticky errors, hints or tabs."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.style import Style
from rich.text import Text
from textual.events import Click
from textual.message import Message
from textual.widget import Widget

from widgets.glyphs import glyph
from zirv_dash.pane import PaneState


@dataclass
class Tab:
    name: str
    state: PaneState
    focused: bool
    badge: str = ""


@dataclass
class HeaderFacts:
    sessions: int = 0
    working: int = 0
    needs_you: int = 0
    notice: str | None = None
    tip: str | None = None
    """Shown (dim) when there is no notice and no error: the first-run tip."""
    errors: int = 0
    latest_error: str = ""
    hints: list[tuple[str, str]] = field(default_factory=list)
    tabs: list[Tab] | None = None
    tick: int = 0


class HeaderBar(Widget):
    DEFAULT_CSS = """
    HeaderBar {
        height: 1;
        width: 1fr;
        background: $panel;
        color: $foreground;
    }
    """

    class HintClicked(Message):
        """A hint (e.g. `^A s spawn`) was clicked: run its action (id or label)."""

        def __init__(self, action: str) -> None:
            super().__init__()
            self.action = action

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.facts = HeaderFacts()
        self.hint_spans: list[tuple[int, int, str]] = []
        """(start, end, action) cell spans of the clickable hints, for mouse hits."""

    def update_facts(self, facts: HeaderFacts) -> None:
        if facts != self.facts:
            self.facts = facts
            self.refresh()

    def render(self) -> Text:
        f = self.facts
        width = self.size.width
        left = Text()
        left.append("▌", Style(color="cyan", bold=True))
        left.append("zirv", Style(bold=True))
        if f.tabs is None:
            left.append(f" · {f.sessions} sessions", Style(dim=True))
            if f.working:
                left.append(f" · {f.working} working", Style(color="cyan"))
            if f.needs_you:
                left.append(f" · {f.needs_you} needs you", Style(color="yellow", bold=True))
        else:
            for tab in f.tabs:
                char, style = glyph(tab.state, f.tick)
                label = Text()
                label.append(" ")
                label.append(char, style)
                label.append(f" {tab.name}{(' ' + tab.badge) if tab.badge else ''} ")
                if tab.focused:
                    label.stylize(Style(bgcolor="grey23", bold=True))
                if left.cell_len + label.cell_len > width - 12:
                    break
                left.append_text(label)
        middle = Text()
        if f.notice:
            middle.append(f"  {f.notice}", Style(color="green"))
        elif f.errors:
            middle.append(f"  ⚠ {f.errors} ", Style(color="red", bold=True))
            middle.append(f.latest_error, Style(color="red"))
        elif f.tip:
            middle.append(f"  {f.tip}", Style(dim=True, italic=True))
        right = Text()
        self.hint_spans = []
        for chord, label in f.hints:
            right.append("  ")
            right.append(chord, Style(bold=True))
            right.append(f" {label}", Style(dim=True))
        room = width - left.cell_len - right.cell_len
        if room < 0:
            right = Text()
            room = width - left.cell_len
        middle.truncate(max(0, room), overflow="ellipsis")
        pad = max(0, width - left.cell_len - middle.cell_len - right.cell_len)
        out = Text.assemble(left, middle, " " * pad, right)
        # Record hint positions for clicks.
        x = left.cell_len + middle.cell_len + pad
        for chord, label in f.hints if right.cell_len else []:
            start = x + 2
            end = start + len(chord) + 1 + len(label)
            self.hint_spans.append((start, end, label))
            x = end
        out.truncate(width)
        return out

    def hint_at(self, x: int) -> str | None:
        for start, end, action in self.hint_spans:
            if start <= x < end:
                return action
        return None

    def on_click(self, event: Click) -> None:
        if event.button != 1:
            return
        action = self.hint_at(event.x)
        if action is not None:
            event.stop()
            self.post_message(self.HintClicked(action))
