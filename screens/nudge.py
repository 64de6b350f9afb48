"""Nudge overlay (`Ctrl+A n`): type a note into the selected pane.

The dialog only collects the text; the dashboard types it into the pane now if
the pane can take it, or queues it for the pane's next idle boundary.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label

from screens.dialog import DialogScreen
from widgets.draft_area import NEWLINE_KEYS, DraftArea
from widgets.key_hints import KeyHints

__all__ = ["NEWLINE_KEYS", "DraftArea", "NudgeScreen"]


class NudgeScreen(DialogScreen[str | None]):
    """Returns the trimmed text to send, or None (blank, Esc, or no target)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", show=False),
    ]

    def __init__(self, target_short: str | None) -> None:
        super().__init__()
        self.target_short = target_short

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="nudge-dialog") as dialog:
            dialog.border_title = "nudge"
            target = (
                f"to: pane {self.target_short}" if self.target_short else "to: (no target selected)"
            )
            yield Label(Text(target), id="nudge-target")
            yield DraftArea(placeholder="what should the pane know?", id="nudge-draft")
            yield KeyHints(
                [("⏎", "send"), ("shift/alt+⏎", "newline"), ("esc", "cancel")],
                classes="dialog-footer",
            )

    def on_mount(self) -> None:
        self.query_one(DraftArea).focus()

    @on(DraftArea.Submitted)
    def _send(self, event: DraftArea.Submitted) -> None:
        event.stop()
        text = event.text.strip()
        self.dismiss(text if text and self.target_short else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
