"""A pane's lines at copy mode's own position, with cursor, matches and selection.

It renders the pane's model with TerminalView's own row renderer (and cache), at
its own scroll position; the pane's live view and PTY are untouched. Output that
arrives meanwhile does not move what is shown: the position is pinned to the text.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from textual import events

from widgets.terminal_view import SELECTION_STYLE, Mark, TerminalView
from zirv_dash.dash import selection as sel
from zirv_dash.panes.pane import Pane

COPY_CURSOR_STYLE = Style(reverse=True, bold=True)


class CopyView(TerminalView):
    """A pane's lines at copy mode's own position, with cursor, matches, selection."""

    can_focus = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {"copy-view--match", "copy-view--current-match"}
    """Every search match, and the one the cursor is on."""
    DEFAULT_CSS = """
    CopyView .copy-view--match { background: ansi_yellow; color: ansi_black; }
    CopyView .copy-view--current-match {
        background: ansi_bright_yellow;
        color: ansi_black;
        text-style: bold underline;
    }
    """

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
                part = "current-match" if (c0, c1) == current else "match"
                style = self.get_component_rich_style(f"copy-view--{part}", partial=True)
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

    def select_span(self, span: sel.Span) -> None:
        """Select `span` (a command's output), the cursor at its end and in view."""
        self.move_to((span[1][0], 0))
        self.sel_anchor = span[0]
        self.cursor = (span[1][0], max(0, span[1][1] - 1))
        self.set_selection(span)

    def toggle_selection(self) -> None:
        if self.sel_anchor is None:
            self.sel_anchor = self.cursor
            self.set_selection(sel.drag_span(self.lines(), self.sel_anchor, self.cursor))
        else:
            self.sel_anchor = None
            self.clear_selection()
