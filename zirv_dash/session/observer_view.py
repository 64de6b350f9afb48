"""How an observing terminal shows a session drawn for another terminal's size.

A session is drawn at its controller's size. An observer's terminal may be
larger or smaller, so its bytes cannot be written there as they are (a smaller
terminal wraps and scrolls them into garbage, a larger one shows stale rows).
As tmux does for a client whose size is not the window's, the observer keeps a
model of the session at the session's size and draws it at its own: a larger
terminal shows the session in its top-left corner with the rest blank
(letterboxed), a smaller one shows the part around the cursor (cropped). The
bottom row is a status line saying that this terminal watches, and why (`busy`:
another client holds the controller seat; `controller_changed`: this one lost
it to a takeover).
"""

from __future__ import annotations

from zirv_dash.terminal import Attr, TerminalModel
from zirv_dash.terminal.sgr_text import sgr
from zirv_dash.terminal.widths import char_width, strip_marks

STATUS_STYLE = "\x1b[0;7m"


def _crop(runs: list[tuple[str, Attr]], left: int, width: int) -> str:
    """The runs' cells [left, left + width) as styled text (a wide character
    cut by an edge is drawn as a blank)."""
    out: list[str] = []
    column = 0
    right = left + width
    last: Attr | None = None
    for text, attr in runs:
        for char in strip_marks(text):  # the model's wide-cluster marks are not text
            cells = char_width(char)
            if cells == 0:  # a combining mark rides on the character before it
                if left <= column - 1 < right and out:
                    out.append(char)
                continue
            start, column = column, column + cells
            if column <= left or start >= right:
                continue
            if attr != last:
                out.append(sgr(attr))
                last = attr
            out.append(char if start >= left and column <= right else " ")
    return "".join(out)


class ObserverView:
    def __init__(self, columns: int, rows: int) -> None:
        self.model = TerminalModel(max(2, columns), max(2, rows))
        self.status = ""

    def load(self, columns: int, rows: int, repaint: bytes) -> None:
        """Start again from the session's repaint (an attach, a lost frame, a resize)."""
        self.model = TerminalModel(max(2, columns), max(2, rows))
        self.model.feed(repaint)

    def feed(self, data: bytes) -> None:
        self.model.feed(data)
        self.model.take_replies()  # the session answers its own queries

    def frame(self, columns: int, rows: int) -> bytes:
        """The whole terminal: the session at this size, then the status line."""
        model = self.model
        view_rows = max(0, rows - 1)
        cursor_x, cursor_y = model.cursor
        # Cropped: the part around the cursor; letterboxed: the top-left corner.
        top = min(max(0, cursor_y - view_rows + 1), max(0, model.rows - view_rows))
        left = min(max(0, cursor_x - columns + 1), max(0, model.columns - columns))
        parts = ["\x1b[?25l"]
        for y in range(view_rows):
            parts.append(f"\x1b[{y + 1};1H\x1b[0m")
            source = top + y
            if source < model.rows:
                parts.append(_crop(model.row_runs(source), left, columns))
                parts.append("\x1b[0m")
            parts.append("\x1b[K")
        if rows >= 1:
            size = f"{model.columns}x{model.rows}"
            text = f" [{size}] {self.status or 'watching'} · Ctrl+A d detaches "
            text = text[:columns].ljust(columns)
            parts.append(f"\x1b[{rows};1H{STATUS_STYLE}{text}\x1b[0m")
        shown_y, shown_x = cursor_y - top, cursor_x - left
        if model.cursor_visible and 0 <= shown_y < view_rows and 0 <= shown_x < columns:
            parts.append(f"\x1b[{shown_y + 1};{shown_x + 1}H\x1b[?25h")
        return "".join(parts).encode("utf-8", "surrogateescape")
