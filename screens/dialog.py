"""What every dialog shares: the look, the mouse grammar and a clickable footer.

The mouse grammar of every overlay is the one the README promises: a single
click selects (moves the highlight), a double click activates (what Enter
does), the wheel moves through a list, and a footer key hint clicked acts
exactly as pressing that key.
"""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

from widgets.hanging_text import HangingText, hang
from widgets.key_hints import HINT_GAP, KEY_NAMES, KeyHints, key_event
from widgets.pick_list import PickList

ResultType = TypeVar("ResultType")

__all__ = [
    "HINT_GAP",
    "KEY_NAMES",
    "DialogScreen",
    "HangingText",
    "KeyHints",
    "PickList",
    "hang",
    "key_event",
]


class DialogScreen(ModalScreen[ResultType]):
    """A centred modal dialog over the dimmed dashboard: the shared look and footer clicks.

    The look is DEFAULT_CSS scoped to DialogScreen, not an app-wide CSS file:
    a file's rules would reach every ModalScreen (the grid, copy mode) and
    outrank each dialog's own DEFAULT_CSS, which then had to set styles inline.
    A subclass's DEFAULT_CSS outranks this one, so a dialog adjusts its look
    (`MenuScreen .dialog { width: … }`) without `!important` or inline styles."""

    DEFAULT_CSS = """
    /* Dim, never hide, what is behind (ModalScreen's own is 60%). */
    DialogScreen {
        align: center middle;
        background: $background 40%;
    }
    DialogScreen .dialog {
        width: 80%;
        max-width: 100;
        height: auto;
        max-height: 90%;
        border: round $accent 60%;
        border-title-color: $accent;
        border-title-style: bold;
        background: $surface;
        padding: 0 1;
    }
    DialogScreen .dialog-footer {
        color: $text-muted;
        height: auto;
        margin-top: 1;
    }
    /* A dialog is as tall as its content; a long body scrolls inside it. */
    DialogScreen .dialog VerticalScroll {
        height: auto;
        max-height: 70vh;
    }
    /* Labels take the dialog's width, so a long one wraps instead of being cut. */
    DialogScreen .dialog Label {
        width: 100%;
    }
    DialogScreen .dialog-error {
        color: $error;
        height: auto;
    }
    DialogScreen .field-label {
        color: $text-muted;
        height: 1;
    }
    /* Compact fields: a dialog must fit an 80x20 terminal. */
    DialogScreen .dialog Input {
        border: none;
        height: 1;
        padding: 0 1;
        background: $boost;
    }
    DialogScreen .dialog Input:focus {
        background: $primary 30%;
    }
    DialogScreen .dialog OptionList {
        border: none;
        height: auto;
        max-height: 6;
        padding: 0;
        background: $boost;
    }
    """

    def on_key_hints_pressed(self, message: KeyHints.Pressed) -> None:
        message.stop()
        # Through the App, like a typed key: priority bindings, the focused
        # widget, then the dialog's own bindings and key handler.
        self.app.post_message(message.key)
