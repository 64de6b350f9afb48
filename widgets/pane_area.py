"""The area the focused pane's terminal fills; tells its screen when it changes size."""

from __future__ import annotations

from textual import events
from textual.containers import Container
from textual.message import Message


class PaneArea(Container):
    DEFAULT_CSS = """
    PaneArea {
        width: 1fr;
        height: 1fr;
    }
    """

    class Resized(Message):
        """The pane area has a new size (every PTY should follow it)."""

        def __init__(self, area: PaneArea, columns: int, rows: int) -> None:
            super().__init__()
            self.area = area
            self.columns = columns
            self.rows = rows

        @property
        def control(self) -> PaneArea:
            return self.area

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized(self, event.size.width, event.size.height))
