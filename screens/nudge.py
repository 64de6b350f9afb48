"""Nudge overlay (`Ctrl+A n`): type a note into the selected pane.

The dialog only collects the text; the dashboard types it into the pane now if
the pane can take it, or queues it for the pane's next idle boundary.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Label, TextArea

from screens.dialog import DialogScreen, KeyHints

NEWLINE_KEYS = ("shift+enter", "alt+enter", "ctrl+j")


class DraftArea(TextArea):
    """A multi-line draft where Enter sends and Shift/Alt+Enter (or a trailing
    backslash before Enter) starts a new line."""

    DEFAULT_CSS = """
    DraftArea {
        height: 5;
        border: none;
        padding: 0 1;
        background: $boost;
    }
    DraftArea:focus {
        background: $primary 20%;
    }
    """

    class Submitted(Message):
        def __init__(self, area: DraftArea, text: str) -> None:
            super().__init__()
            self.area = area
            self.text = text

        @property
        def control(self) -> DraftArea:
            return self.area

    def __init__(self, *, placeholder: str = "", id: str | None = None) -> None:
        super().__init__(
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
            compact=True,
            placeholder=placeholder,
            id=id,
        )
        self.cursor_blink = False  # steady cursor (and stable snapshots)

    async def _on_key(self, event: events.Key) -> None:
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            row, column = self.cursor_location
            line = self.document[row]
            if column == len(line) and line.endswith("\\"):
                self.delete((row, column - 1), (row, column))
                self.insert("\n")
                return
            self.post_message(self.Submitted(self, self.text))
            return
        await super()._on_key(event)


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
