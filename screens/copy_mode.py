"""Copy mode (`Ctrl+A [`): keyboard navigation, search and copy over scrollback.

The tmux habit: a cursor over the pane's scrollback + screen; arrows (or
h/j/k/l), PgUp/PgDn, g/G (oldest line / live view), Home/End (0/$); `/` and `?`
search forward/backward incrementally with every match highlighted; `n`/`N`
repeat; `v` (or space) starts a selection at the cursor; `y` or Enter copies it
and leaves; Esc (or q) leaves.

The overlay covers exactly the pane's area and renders the pane's model with
TerminalView's own row renderer (and cache), at its own scroll position; the
pane's live view and PTY are untouched. Output that arrives meanwhile does not
move what is shown: the position is pinned to the text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.geometry import Region
from textual.screen import ModalScreen
from textual.widget import Widget

from widgets.terminal_view import SELECTION_STYLE, Mark, TerminalView
from zirv_dash import selection as sel
from zirv_dash.pane import Pane

MATCH_STYLE = Style(bgcolor="yellow", color="black")
CURRENT_MATCH_STYLE = Style(bgcolor="bright_yellow", color="black", bold=True, underline=True)
COPY_CURSOR_STYLE = Style(reverse=True, bold=True)
POLL_INTERVAL = 0.1
HINT = "copy · arrows/PgUp/PgDn/g/G move · / ? search · n/N next · v select · y/⏎ copy · esc"


class CopyView(TerminalView):
    """A pane's lines at copy mode's own position, with cursor, matches, selection."""

    can_focus = False

    def __init__(self, pane: Pane) -> None:
        super().__init__(pane)
        self.show_cursor = False
        self.offset_lines = pane.scroll_offset
        model = pane.model_view
        self._history = model.history_size
        self._seen = model.version
        top = model.history_size - self.offset_lines
        cy = model.cursor[1] if not self.offset_lines else 0
        self.cursor: sel.Point = (top + cy, model.cursor[0] if not self.offset_lines else 0)
        self.sel_anchor: sel.Point | None = None
        self.pattern = ""
        self.current: sel.Span | None = None

    # The pane's own view handles the mouse; here only the wheel moves the view.
    def on_mouse_down(self, event: events.MouseDown) -> None:
        event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        pass

    def on_mouse_up(self, event: events.MouseUp) -> None:
        event.stop()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.move_to((self.top_line() + event.y, event.x))

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.scroll_lines(3)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.scroll_lines(-3)

    # -- position -------------------------------------------------------------------------

    def view_offset(self) -> int:
        return self.offset_lines

    def corner_text(self, offset: int) -> str | None:
        return f" [{offset}/{self.pane.model_view.history_size}] "

    @property
    def view_height(self) -> int:
        return max(1, min(self.size.height or self.pane.model_view.rows, self.line_count()))

    def line_count(self) -> int:
        model = self.pane.model_view
        return model.history_size + model.rows

    def scroll_lines(self, lines: int) -> None:
        """Positive scrolls back (older)."""
        limit = self.pane.model_view.history_size
        self.offset_lines = max(0, min(limit, self.offset_lines + lines))
        top = self.top_line()
        line, col = self.cursor
        self._set_cursor((max(top, min(line, top + self.view_height - 1)), col))

    def move_to(self, point: sel.Point) -> None:
        """Put the cursor on `point`, scrolling just enough to show it."""
        model = self.pane.model_view
        line = max(0, min(point[0], self.line_count() - 1))
        col = max(0, min(point[1], model.columns - 1))
        top = self.top_line()
        if line < top:
            self.offset_lines = model.history_size - line
        elif line >= top + self.view_height:
            self.offset_lines = max(0, model.history_size - (line - self.view_height + 1))
        self._set_cursor((line, col))

    def _set_cursor(self, point: sel.Point) -> None:
        self.cursor = point
        if self.sel_anchor is not None:
            self.set_selection(sel.drag_span(self.lines(), self.sel_anchor, point))
        self.refresh()

    def poll(self) -> None:
        """Follow new output: keep showing the same text."""
        model = self.pane.model_view
        if model.version == self._seen:
            return
        self._seen = model.version
        grown = model.history_size - self._history
        self._history = model.history_size
        if grown > 0:
            self.offset_lines = min(model.history_size, self.offset_lines + grown)
        self.refresh()

    # -- marks ----------------------------------------------------------------------------

    def marks(self, line: int) -> tuple[Mark, ...]:
        out: list[Mark] = []
        columns = self.pane.model_view.columns
        if self.pattern:
            current = sel.columns_in_line(self.current, line, columns)
            for c0, c1 in sel.matches_in_line(self.lines(), line, self.pattern):
                style = CURRENT_MATCH_STYLE if (c0, c1) == current else MATCH_STYLE
                out.append((c0, c1, style))
        span = sel.columns_in_line(self.selection, line, columns)
        if span is not None:
            out.append((span[0], span[1], SELECTION_STYLE))
        if line == self.cursor[0]:
            col = self.cursor[1]
            out.append((col, col + 1, COPY_CURSOR_STYLE))
        return tuple(out)

    # -- search ---------------------------------------------------------------------------

    def find(self, query: str, origin: sel.Point, forward: bool) -> bool:
        self.pattern = query
        found = sel.search(self.lines(), query, origin, forward=forward) if query else None
        self.current = found
        if found is not None:
            self.move_to(found[0])
        else:
            self.refresh()
        return found is not None

    def toggle_selection(self) -> None:
        if self.sel_anchor is None:
            self.sel_anchor = self.cursor
            self.set_selection(sel.drag_span(self.lines(), self.sel_anchor, self.cursor))
        else:
            self.sel_anchor = None
            self.clear_selection()


def fit_pieces(text: str, width: int) -> str:
    """`mode · a · b · copy · esc` cut to `width` by whole pieces: the ones after
    the mode go first (moving is guessable), the last ones (how to copy, how to
    leave) stay; never a piece cut mid-word."""
    pieces = text.split(" · ")
    while len(pieces) > 3 and len(" · ".join(pieces)) > width:
        del pieces[1]
    return " · ".join(pieces)


class StatusLine(Widget):
    """Copy mode's one-line status, fitted to its width by whole pieces."""

    def __init__(self, text: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = text

    def set_text(self, text: str) -> None:
        if text != self.text:
            self.text = text
            self.refresh()

    def render(self) -> Text:
        return Text(fit_pieces(self.text, self.content_size.width or len(self.text)))


class CopyModeScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    CopyModeScreen {
        background: $background 0%;
        align: left top;
    }
    CopyModeScreen #copy-box {
        width: 10;
        height: 10;
    }
    CopyModeScreen CopyView {
        height: 1fr;
    }
    CopyModeScreen #copy-status {
        height: 1;
        width: 1fr;
        background: $warning 30%;
        color: $foreground;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = []

    def __init__(
        self,
        pane: Pane,
        region: Callable[[], Region],
        copy: Callable[[str], None],
        notify: Callable[[str], None],
    ) -> None:
        """`region`: where the pane is on screen now (the overlay covers it)."""
        super().__init__()
        self.pane = pane
        self.region_of = region
        self.pane_region = region()
        self.copy_fn = copy
        self.notify_text = notify
        self.copy_view = CopyView(pane)
        self.searching: str | None = None
        """"/" or "?" while a search query is being typed."""
        self.forward = True
        self._search_origin: sel.Point = (0, 0)
        self._search_text = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="copy-box"):
            yield self.copy_view
            yield StatusLine(HINT, id="copy-status")

    def on_mount(self) -> None:
        self._place()
        self.set_interval(POLL_INTERVAL, self.copy_view.poll, name="copy-poll")

    def _place(self) -> None:
        region = self.pane_region
        box = self.query_one("#copy-box")
        box.styles.offset = (region.x, region.y)
        box.styles.width = region.width
        box.styles.height = region.height

    def on_resize(self, event: events.Resize) -> None:
        # The dashboard below lays out first; follow the pane once it has.
        def follow() -> None:
            region = self.region_of()
            if region.area and region != self.pane_region:
                self.pane_region = region
                self._place()
                self.copy_view.clear_selection()

        self.call_after_refresh(follow)

    def _status(self) -> None:
        status = self.query_one("#copy-status", StatusLine)
        v = self.copy_view
        if self.searching is not None:
            miss = "" if v.current is not None or not self._search_text else "  (no match)"
            status.set_text(f"{self.searching}{self._search_text}█{miss}")
        elif v.sel_anchor is not None:
            status.set_text("selecting · move to extend · y/⏎ copy · v cancel · esc leave")
        elif v.pattern:
            state = "" if v.current is not None else " (no match)"
            status.set_text(f"search: {v.pattern}{state} · n/N next/previous · esc leave")
        else:
            status.set_text(HINT)

    # -- keys -----------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        event.prevent_default()
        event.stop()
        if self.searching is not None:
            self._search_key(event)
        else:
            self._normal_key(event.key, event.character)
        self._status()

    def _search_key(self, event: events.Key) -> None:
        v = self.copy_view
        if event.key == "escape":
            self.searching = None
            self._search_text = ""
            v.pattern = ""
            v.current = None
            v.move_to(self._search_origin)
            return
        if event.key == "enter":
            self.searching = None
            return
        if event.key == "backspace":
            self._search_text = self._search_text[:-1]
        elif event.character and event.character.isprintable():
            self._search_text += event.character
        else:
            return
        v.find(self._search_text, self._origin_point(), self.forward)

    def _origin_point(self) -> sel.Point:
        line, col = self._search_origin
        # Incremental search starts at the cursor itself (tmux), not after it.
        return (line, col - 1) if self.forward else (line, col + 1)

    def _normal_key(self, key: str, character: str | None) -> None:
        v = self.copy_view
        line, col = v.cursor
        page = max(1, v.view_height - 1)
        cols = self.pane.model_view.columns
        if key in ("escape", "q"):
            self.dismiss(None)
        elif key in ("up", "k"):
            v.move_to((line - 1, col))
        elif key in ("down", "j"):
            v.move_to((line + 1, col))
        elif key in ("left", "h"):
            v.move_to((line, col - 1))
        elif key in ("right", "l"):
            v.move_to((line, col + 1))
        elif key in ("pageup", "ctrl+b"):
            v.scroll_lines(page)
            v.move_to((line - page, col))
        elif key in ("pagedown", "ctrl+f"):
            v.scroll_lines(-page)
            v.move_to((line + page, col))
        elif key == "g":
            v.move_to((0, 0))
        elif key == "G":
            v.move_to((v.line_count() - 1, 0))
            v.offset_lines = 0
            v.refresh()
        elif key in ("home",) or character == "0":
            v.move_to((line, 0))
        elif key in ("end",) or character == "$":
            text = "".join(v.lines().cells(line)).rstrip(" ")
            v.move_to((line, max(0, min(cols - 1, len(text) - 1))))
        elif character in ("/", "?"):
            self.searching = character
            self.forward = character == "/"
            self._search_origin = v.cursor
            self._search_text = ""
        elif character in ("n", "N") and v.pattern:
            forward = self.forward if character == "n" else not self.forward
            v.find(v.pattern, v.cursor, forward)
        elif character in ("v", " "):
            v.toggle_selection()
        elif key == "enter" or character == "y":
            text = v.selected_text()
            if not text:
                self.notify_text("copy mode: nothing selected (v starts a selection)")
                return
            self.copy_fn(text)
            self.dismiss(None)
