"""A one-line dialog footer whose single-key hints are clickable."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.message import Message
from textual.widgets import Label


class HintBar(Label):
    """A dialog footer whose single-key hints are clickable (`⏎ run`, `esc close`)."""

    class Clicked(Message):
        """A single-key hint was clicked: `key` as the hint shows it."""

        def __init__(self, hint_bar: HintBar, key: str) -> None:
            super().__init__()
            self.hint_bar = hint_bar
            self.key = key

        @property
        def control(self) -> HintBar:
            return self.hint_bar

    def __init__(self, hints: list[tuple[str, str]], **kwargs: Any) -> None:
        self.hints = hints
        self.spans: list[tuple[int, int, str]] = []
        text = ""
        for key, label in hints:
            if text:
                text += "   "
            start = len(text)
            text += f"{key} {label}"
            if "/" not in key:  # "↑/↓" is not one key
                self.spans.append((start, len(text), key))
        super().__init__(text, **kwargs)

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self.spans:
            if start <= event.x < end:
                event.stop()
                self.post_message(self.Clicked(self, key))
