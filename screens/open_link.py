"""The one-line confirmation before a pane's hyperlink is opened (`Ctrl+click`,
or `Enter` on a link in copy mode): the URI exactly as it will be opened."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from screens.dialog import DialogScreen

SHOWN_URI_MAX = 400
"""Characters of the URI shown (the whole URI is opened; a longer one ends in "…")."""


def prompt(uri: str) -> Text:
    shown = uri if len(uri) <= SHOWN_URI_MAX else uri[: SHOWN_URI_MAX - 1] + "…"
    text = Text("open ")
    text.append(shown, style="bold underline")
    text.append(" ?  ⏎ open · esc cancel")
    return text


class OpenLinkScreen(DialogScreen[bool]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "answer(True)", "open", show=False),
        Binding("y", "answer(True)", "open", show=False),
        Binding("escape", "answer(False)", "cancel", show=False),
        Binding("n", "answer(False)", "cancel", show=False),
    ]

    def __init__(self, uri: str) -> None:
        super().__init__()
        self.uri = uri

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as box:
            box.border_title = "open link"
            yield Static(prompt(self.uri), id="open-link-uri", markup=False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
