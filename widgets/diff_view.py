"""DiffView: one file's diff, side by side (wide) or unified (narrow), highlighted.

A line-API ScrollView: the file's hunks are flattened into rows once per file
and layout; `render_line` turns the visible rows into Strips, cached per row
(the cursor row is drawn fresh). Syntax colours come from Rich's Syntax
(pygments), run once over the whole file's diff text so a multi-line string or
comment keeps its colour, in a thread worker; the add/remove backgrounds are
laid over them.

A cursor row (j/k, arrows, a click) marks the line a review comment is about.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.console import Console
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual import events, work
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from zirv_dash.repo.gitdiff import DiffLine, FileDiff

SPLIT_MIN_COLUMNS = 120
"""A terminal at least this wide shows old and new side by side."""
GUTTER = 5
SYNTAX_THEME = "monokai"
HIGHLIGHT_MAX_LINES = 5000
"""A file's diff longer than this is shown without syntax colours (pygments is
pure Python; its cost grows with the text)."""

_SIGN = {"add": "+", "del": "-", "ctx": " "}


@dataclass(frozen=True)
class Row:
    """One display row: a hunk header, a note, or an old and/or new line."""

    header: str | None = None
    old: DiffLine | None = None
    new: DiffLine | None = None

    @property
    def line(self) -> DiffLine | None:
        """The line a comment on this row is about (the new side when both)."""
        return self.new or self.old


def unified_rows(f: FileDiff) -> list[Row]:
    rows: list[Row] = []
    for hunk in f.hunks:
        rows.append(Row(header=hunk.header))
        for line in hunk.lines:
            if line.kind == "del":
                rows.append(Row(old=line))
            elif line.kind == "add":
                rows.append(Row(new=line))
            else:
                rows.append(Row(old=line, new=line))
    return rows or [Row(header=f.note or "no textual changes")]


def _pair(rows: list[Row], dels: list[DiffLine], adds: list[DiffLine]) -> None:
    for i in range(max(len(dels), len(adds))):
        old = dels[i] if i < len(dels) else None
        rows.append(Row(old=old, new=adds[i] if i < len(adds) else None))
    dels.clear()
    adds.clear()


def split_rows(f: FileDiff) -> list[Row]:
    """Side by side: a run of removed lines pairs with the added run after it."""
    rows: list[Row] = []
    for hunk in f.hunks:
        rows.append(Row(header=hunk.header))
        dels: list[DiffLine] = []
        adds: list[DiffLine] = []
        for line in hunk.lines:
            if line.kind == "ctx":
                _pair(rows, dels, adds)
                rows.append(Row(old=line, new=line))
            elif line.kind == "del":
                if adds:
                    _pair(rows, dels, adds)
                dels.append(line)
            else:
                adds.append(line)
        _pair(rows, dels, adds)
    return rows or [Row(header=f.note or "no textual changes")]


def highlight(f: FileDiff) -> dict[int, Text]:
    """Syntax-coloured text per diff line (keyed by id), one lexer pass per file."""
    lines = [line for hunk in f.hunks for line in hunk.lines]
    if not lines or len(lines) > HIGHLIGHT_MAX_LINES:
        return {id(line): Text(line.text) for line in lines}
    code = "\n".join(line.text for line in lines)
    lexer = Syntax.guess_lexer(f.path, code)
    syntax = Syntax(code, lexer, theme=SYNTAX_THEME, background_color="default")
    pieces = syntax.highlight(code).split("\n", allow_blank=True)
    out: dict[int, Text] = {}
    for i, line in enumerate(lines):
        text = pieces[i] if i < len(pieces) else Text(line.text)
        text.rstrip()
        out[id(line)] = text
    return out


def _changed(row: Row) -> bool:
    return any(line is not None and line.kind != "ctx" for line in (row.old, row.new))


class DiffView(ScrollView, can_focus=True):
    """The focused file's diff; `split` picks side by side or unified."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-view--add",
        "diff-view--del",
        "diff-view--hunk",
        "diff-view--note",
        "diff-view--gutter",
        "diff-view--cursor",
    }
    """An added / deleted line's background, a `@@` hunk header, any other
    header (a note), the line-number gutter, and the cursor row."""
    DEFAULT_CSS = """
    DiffView {
        background: $surface;
        scrollbar-size-vertical: 1;
    }
    DiffView .diff-view--add { background: rgb(22,58,30); }
    DiffView .diff-view--del { background: rgb(70,24,28); }
    DiffView .diff-view--hunk { color: rgb(110,150,220); text-style: italic; }
    DiffView .diff-view--note { color: rgb(160,160,160); text-style: italic; }
    DiffView .diff-view--gutter { color: rgb(120,120,120); }
    DiffView .diff-view--cursor { background: rgb(60,60,110); text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "cursor(1)", "line down", show=False),
        Binding("k,up", "cursor(-1)", "line up", show=False),
        Binding("pagedown,space", "page(1)", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("home,g", "jump(0)", show=False),
        Binding("end,G", "jump(-1)", show=False),
    ]

    cursor: reactive[int] = reactive(0, repaint=False)
    split: reactive[bool] = reactive(False, repaint=False)

    class CursorMoved(Message):
        def __init__(self, view: DiffView, row: Row | None) -> None:
            super().__init__()
            self.view = view
            self.row = row

        @property
        def control(self) -> DiffView:
            return self.view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.file: FileDiff | None = None
        self.rows: list[Row] = []
        self._texts: dict[int, Text] = {}
        self.highlighted = True
        """The shown file's syntax colours are in (tests and snapshots wait on it)."""
        self._cache: dict[tuple[int, int], Strip] = {}

    # -- content ---------------------------------------------------------------------

    def show(self, f: FileDiff | None) -> None:
        """Show `f` at once in plain text; its syntax colours follow from a thread
        (pygments took ~75 ms for a 400-line diff, too long for the event loop)."""
        self.file = f
        self.highlighted = f is None
        self._texts = {}
        self._relayout(keep_cursor=False)
        if f is not None:
            self._highlight(f)

    @work(thread=True, exclusive=True, group="diff-highlight", exit_on_error=False)
    def _highlight(self, f: FileDiff) -> None:
        texts = highlight(f)
        self.app.call_from_thread(self._highlighted, f, texts)

    def _highlighted(self, f: FileDiff, texts: dict[int, Text]) -> None:
        if f is not self.file:
            return  # another file was picked meanwhile
        self._texts = texts
        self.highlighted = True
        self._cache.clear()
        self.refresh()

    def watch_split(self) -> None:
        self._relayout(keep_cursor=True)

    def _relayout(self, keep_cursor: bool) -> None:
        target = self.current_row.line if keep_cursor and self.current_row else None
        f = self.file
        self.rows = [] if f is None else (split_rows(f) if self.split else unified_rows(f))
        self._cache.clear()
        self.virtual_size = Size(self.size.width, len(self.rows))
        index = 0
        if target is not None:
            index = next((i for i, r in enumerate(self.rows) if target in (r.old, r.new)), 0)
        else:
            # Start on the first changed line, not the hunk header.
            index = next((i for i, r in enumerate(self.rows) if _changed(r)), 0)
        self.set_cursor(index)
        self.refresh()

    @property
    def current_row(self) -> Row | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    # -- cursor ------------------------------------------------------------------------

    def set_cursor(self, index: int) -> None:
        index = max(0, min(index, len(self.rows) - 1)) if self.rows else 0
        old = self.cursor
        self.cursor = index
        self._cache.pop((old, self.size.width), None)
        self.scroll_to_region(Region(0, index, 1, 1), animate=False, force=True)
        self.refresh()
        self.post_message(self.CursorMoved(self, self.current_row))

    def action_cursor(self, delta: int) -> None:
        self.set_cursor(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self.set_cursor(self.cursor + direction * max(1, self.size.height - 1))

    def action_jump(self, where: int) -> None:
        self.set_cursor(len(self.rows) - 1 if where < 0 else 0)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self.set_cursor(int(self.scroll_offset.y) + offset.y)

    def on_resize(self, event: events.Resize) -> None:
        self._cache.clear()
        self.virtual_size = Size(event.size.width, len(self.rows))

    # -- rendering ---------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        index = int(self.scroll_offset.y) + y
        width = self.size.width
        if not 0 <= index < len(self.rows):
            return Strip.blank(width, self.rich_style)
        key = (index, width)
        strip = None if index == self.cursor else self._cache.get(key)
        if strip is None:
            strip = self._render_row(self.rows[index], width, index == self.cursor)
            if index != self.cursor:
                self._cache[key] = strip
        return strip

    def _render_row(self, row: Row, width: int, cursor: bool) -> Strip:
        if row.header is not None:
            text = Text(row.header, self._part("hunk" if row.header.startswith("@@") else "note"))
        elif self.split:
            half = max(GUTTER + 2, (width - 1) // 2)
            text = self._side(row.old, "old", half, cursor)
            text.append("│", self._part("gutter"))
            text.append_text(self._side(row.new, "new", width - half - 1, cursor))
        else:
            text = self._unified(row, width, cursor)
        console: Console = self.app.console
        segments = list(text.render(console))
        base = self.rich_style
        strip = Strip(segments).apply_style(base).adjust_cell_length(width, base)
        if cursor and row.header is not None:
            strip = strip.apply_style(self._part("cursor"))
        return strip

    def _body(self, line: DiffLine) -> Text:
        known = self._texts.get(id(line))
        text = known.copy() if known is not None else Text(line.text)
        text.expand_tabs(4)
        return text

    def _side(self, line: DiffLine | None, side: str, width: int, cursor: bool) -> Text:
        out = Text(no_wrap=True, overflow="crop")
        if line is None:
            out.append(" " * width)
            return out
        number = line.old_no if side == "old" else line.new_no
        out.append(f"{number or '':>4} ", self._part("cursor" if cursor else "gutter"))
        out.append(_SIGN[line.kind])
        out.append_text(self._body(line))
        out.truncate(width, pad=True)
        if line.kind != "ctx":
            out.stylize(self._part("add" if line.kind == "add" else "del"), GUTTER)
        return out

    def _unified(self, row: Row, width: int, cursor: bool) -> Text:
        line = row.line
        assert line is not None
        out = Text(no_wrap=True, overflow="crop")
        old = row.old.old_no if row.old else None
        new = row.new.new_no if row.new else None
        out.append(f"{old or '':>4} {new or '':>4} ", self._part("cursor" if cursor else "gutter"))
        out.append(_SIGN[line.kind])
        out.append_text(self._body(line))
        out.truncate(width, pad=True)
        if line.kind != "ctx":
            out.stylize(self._part("add" if line.kind == "add" else "del"), GUTTER * 2)
        return out

    def _part(self, name: str) -> Style:
        """The style of component class `diff-view--<name>` (its own rules only)."""
        return self.get_component_rich_style(f"diff-view--{name}", partial=True, default=Style())

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
