"""The floor for key-to-glyph latency: the most trivial Textual app that echoes keys.

Run by bench/latency.py in the same terminal harness as the dashboard: whatever a
Textual app costs between a key and its glyph on the glass, this pays too, so the
dashboard's figure over this one is what zirv itself adds.
"""

from __future__ import annotations

import os

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Static


class EchoApp(App[None], inherit_bindings=False):
    ENABLE_COMMAND_PALETTE = False

    def compose(self) -> ComposeResult:
        yield Static("", id="echo")

    def on_mount(self) -> None:
        self._typed: list[str] = []

    def on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            self._typed.append("\n")
        elif event.character and event.character.isprintable():
            self._typed.append(event.character)
        self.query_one("#echo", Static).update("".join(self._typed[-2000:]))


if __name__ == "__main__":
    os.environ.setdefault("TEXTUAL_FPS", "240")  # as `zirv chat` runs
    EchoApp().run()
