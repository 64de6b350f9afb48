"""The native pane's transcript: one virtualised line view over all items.

A long conversation is thousands of lines; as one widget per item every
relayout (a keystroke that grows the composer, say) would arrange them all. Here
the transcript is a single ScrollView: each item is rendered to strips once per
width (and again only when it changes), and only the visible rows are drawn.

Scrolling up turns follow off; reaching the bottom turns it on again; content
arriving while not following keeps the visible window where it is.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

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


class TranscriptView(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    TranscriptView { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    TranscriptView:focus { background: $boost; }
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
        self.tail: list[list[Line]] = []  # streaming text, activity line
        self.expanded: set[str] = set()
        self.follow = True
        self._cache: dict[str, tuple[Item, bool, int, list[Strip]]] = {}
        self._starts: list[int] = []  # first line of each item
        self._lines: list[Strip] = []
        self._width = 0

    # ---- content --------------------------------------------------------------------

    def show(self, items: tuple[Item, ...], tail: list[list[Line]]) -> None:
        if items == self.items and tail == self.tail:
            return
        self.items, self.tail = items, tail
        self._rebuild()

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

    def _rebuild(self) -> None:
        width = max(10, self.scrollable_content_region.width or self.size.width or 80)
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
        for block in self.tail:
            lines.extend(self._strips(block, width))
        for gone in set(self._cache) - keys:
            del self._cache[gone]
        at_end = self.follow
        self._lines, self._starts = lines, starts
        self.virtual_size = Size(width, len(lines))
        if at_end:
            self.scroll_end(animate=False, immediate=True)
        self.refresh()

    def on_resize(self) -> None:
        self._rebuild()

    def plain(self) -> str:
        """The text as drawn (for tests and copy)."""
        return "\n".join(strip.text.rstrip() for strip in self._lines)

    # ---- drawing --------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        if 0 <= index < len(self._lines):
            return self._lines[index].crop(scroll_x, scroll_x + width)
        return Strip.blank(width)

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
