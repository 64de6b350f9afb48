"""The native pane's transcript: settled items as one line view, the text being
streamed as live Markdown below them, then the activity line.

A long conversation is thousands of lines; as one widget per item every
relayout (a keystroke that grows the composer, say) would arrange them all.
Settled items are therefore one `TranscriptLines` widget: each item is rendered
to strips once per width (again only when it changes), and only the rows in view
are drawn. The assistant text still arriving is a Textual `Markdown` document
fed by appends (`widgets/native_stream.py`): a token re-parses the last block,
never the transcript.

Scrolling up turns follow off; reaching the bottom turns it on again; content
arriving while not following keeps the visible window where it is (the view is
anchored to its end while following).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from widgets.native_stream import StreamBlock
from zirv_dash.native.render import Line, expandable, render_item
from zirv_dash.native.transcript import Item

TONES = {
    "": "",
    "muted": "dim",
    "accent": "bold #d97757",
    "warn": "yellow",
    "err": "red",
    "ok": "green",
    "emph": "bold",
    "code": "dim cyan",
    "add": "green",
    "del": "red",
}


def to_text(lines: list[Line]) -> Text:
    text = Text(no_wrap=False, overflow="fold")
    for index, line in enumerate(lines):
        if index:
            text.append("\n")
        for part, tone in line:
            text.append(part, style=TONES.get(tone, ""))
    return text


class TranscriptLines(Widget):
    """Every settled item's strips, one after another; draws only rows in view."""

    DEFAULT_CSS = "TranscriptLines { height: 0; width: 1fr; }"

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[Strip] = []

    def set_lines(self, lines: list[Strip]) -> None:
        grew = len(lines) != len(self.lines)
        self.lines = lines
        if grew:
            self.styles.height = len(lines)  # a relayout only when the height changes
        self.refresh()

    def on_resize(self) -> None:
        # The view's scrollbar came or went: the items are rendered for the new width.
        view = self.parent
        if isinstance(view, TranscriptView):
            view.width_changed()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if 0 <= y < len(self.lines):
            return self.lines[y].crop(0, width)
        return Strip.blank(width)


class TranscriptView(VerticalScroll, can_focus=True):
    DEFAULT_CSS = """
    TranscriptView { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    TranscriptView:focus { background: $boost; }
    TranscriptView > #transcript-activity { height: 1; display: none; }
    """
    BINDINGS = [
        Binding("up", "step(-1)", show=False),
        Binding("down", "step(1)", show=False),
        Binding("pageup", "step(-10)", show=False),
        Binding("pagedown", "step(10)", show=False),
        Binding("home", "oldest", show=False),
        Binding("end", "bottom", show=False),
        Binding("e,enter", "expand", show=False),
    ]

    class ReachedBottom(Message):
        """The operator scrolled to the end: an unread result is now seen."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: tuple[Item, ...] = ()
        self.streaming = ""
        self.activity: Line | None = None
        self.expanded: set[str] = set()
        self.follow = True
        self._cache: dict[str, tuple[Item, bool, int, list[Strip]]] = {}
        self._starts: list[int] = []  # first line of each item
        self._width = 0
        self.settled = TranscriptLines()
        self.stream = StreamBlock()
        self.activity_line = Static(id="transcript-activity")

    def compose(self) -> ComposeResult:
        yield self.settled
        yield self.stream
        yield self.activity_line

    def watch_virtual_size(self, size: Size) -> None:
        """Anchored (the end kept in view as content grows, in the same layout
        pass) only while the content overflows: an anchored view bottom-aligns
        content shorter than itself, and a short transcript starts at the top."""
        overflowing = size.height > self.scrollable_content_region.height
        if overflowing and self.follow and not self.is_anchored:
            self.anchor()
        elif not overflowing and self.is_anchored:
            self.anchor(False)
            self.scroll_y = 0  # an anchored pass may have left it above the top
            self.follow = True  # everything is in view (max_scroll_y may be stale here)

    # ---- content --------------------------------------------------------------------

    def show(self, items: tuple[Item, ...], streaming: str, activity: Line | None) -> None:
        """The reduced items, the text streaming now ('' when none) and the
        activity line (None when no turn runs). Only what changed is redone."""
        if items is not self.items and items != self.items:
            self.items = items
            self._rebuild()
        if streaming != self.streaming:
            self.streaming = streaming
            self.stream.feed(streaming)
        if activity != self.activity:
            self.activity = activity
            self._show_activity(activity)

    def _show_activity(self, activity: Line | None) -> None:
        line = self.activity_line
        if activity is None:
            line.display = False
            return
        line.update(to_text([activity]))
        line.display = True

    def _strips(self, lines: list[Line], width: int) -> list[Strip]:
        console = self.app.console
        options = console.options.update_width(max(1, width))
        rendered = console.render_lines(to_text(lines), options, pad=False)
        return [Strip(row).adjust_cell_length(width) for row in rendered]

    def _item_strips(self, item: Item, width: int) -> list[Strip]:
        opened = item.key in self.expanded
        cached = self._cache.get(item.key)
        if cached is not None and cached[0] == item and cached[1] == opened and cached[2] == width:
            return cached[3]
        strips = self._strips(render_item(item, max(10, width), opened), width)
        self._cache[item.key] = (item, opened, width, strips)
        return strips

    def _content_width(self) -> int:
        inner = self.settled.size.width or self.scrollable_content_region.width
        return max(10, inner or self.size.width or 80)

    def _rebuild(self) -> None:
        width = self._content_width()
        self._width = width
        lines: list[Strip] = []
        starts: list[int] = []
        blank = Strip.blank(width)
        keys = set()
        for item in self.items:
            starts.append(len(lines))
            keys.add(item.key)
            lines.extend(self._item_strips(item, width))
            lines.append(blank)
        for gone in set(self._cache) - keys:
            del self._cache[gone]
        self._starts = starts
        self.settled.set_lines(lines)

    def on_resize(self) -> None:
        self.width_changed()

    def width_changed(self) -> None:
        if self._content_width() != self._width:
            self._rebuild()

    def plain(self) -> str:
        """The text as drawn (for tests and copy); the streaming block as its source."""
        rows = [strip.text.rstrip() for strip in self.settled.lines]
        if self.streaming:
            for line in render_item(Item("assistant", "streaming", self.streaming), self._width):
                rows.append("".join(text for text, _ in line).rstrip())
        if self.activity is not None:
            rows.append("".join(text for text, _ in self.activity).rstrip())
        return "\n".join(rows)

    # ---- scrolling ------------------------------------------------------------------

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        at_end = new >= self.max_scroll_y
        if at_end and not self.follow:
            self.post_message(self.ReachedBottom())
        self.follow = at_end

    def action_step(self, items: int) -> None:
        """Move by whole items (not lines), so a resize never shifts what a step means."""
        if not self._starts:
            return
        top = int(self.scroll_y)
        current = max((i for i, start in enumerate(self._starts) if start <= top), default=0)
        target = min(max(0, current + items), len(self._starts) - 1)
        if items > 0 and target == len(self._starts) - 1 and current == target:
            self.scroll_end(animate=False)
            return
        self.scroll_to(y=self._starts[target], animate=False)

    def action_oldest(self) -> None:
        self.scroll_to(y=0, animate=False)

    def action_bottom(self) -> None:
        self.scroll_end(animate=False)
        self.post_message(self.ReachedBottom())

    def action_expand(self) -> None:
        self.toggle_last()

    def toggle_last(self) -> bool:
        """Expand or collapse the most recent expandable tool call."""
        for item in reversed(self.items):
            if expandable(item):
                self.expanded ^= {item.key}
                self._rebuild()
                return True
        return False
