"""The context menu (`Ctrl+A c`): every action for the selected row.

Title `actions · {short} · {role}`; rows `{letter}  {label}`, disabled ones dimmed
with their reason. Enter or an entry's letter activates it; Stop asks
`confirm? y / n` inline first.

The rows stay hand-drawn (HangingText), not an OptionList: a disabled entry must
take the cursor (Enter on it shows why it is disabled) where an OptionList skips
it, j/k wrap from the last entry to the first, a letter jumps and activates at
once, any key but y/Enter cancels a pending stop, and a long reason wraps under
the reason column.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical

from screens.dialog import DialogScreen
from widgets.hanging_text import HangingText
from widgets.key_hints import KeyHints
from zirv_dash.intake import MenuEntry

CONFIRM = "confirm? y / n"
REASON_COLUMN = 19
"""Where `disabled: …` starts in a row: `x  label(14)  `."""


class MenuScreen(DialogScreen[str | None]):
    """Dismisses with the chosen entry's label, or None."""

    def __init__(self, subject: str, entries: list[MenuEntry]) -> None:
        super().__init__()
        self.subject = subject
        self.entries = entries
        self.cursor = next((i for i, e in enumerate(entries) if e.enabled), 0)
        self.confirming = False
        self.note = ""
        self.done = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = f"actions · {self.subject}"
            # Long rows wrap under their reason, not at the dialog's left edge.
            yield HangingText(self.body(), REASON_COLUMN, id="menu-body")
            yield KeyHints(
                [("⏎", "do"), ("esc", "back"), ("j", "down"), ("k", "up"), ("a-z", "jump")],
                classes="dialog-footer",
            )

    def body(self) -> Text:
        if not self.entries:
            return Text("(nothing to do here)", Style(dim=True))
        out = Text()
        for i, entry in enumerate(self.entries):
            if i:
                out.append("\n")
            style = Style(dim=True) if not entry.enabled else Style()
            if i == self.cursor:
                style += Style(reverse=True)
            out.append(f"{entry.letter}  {entry.label:<14}", style)
            if entry.disabled:
                out.append(f"  disabled: {entry.disabled}", Style(dim=True, italic=True))
            if i == self.cursor and self.confirming:
                out.append(f"  {CONFIRM}", Style(color="yellow", bold=True))
        if self.note:
            out.append(f"\n{self.note}", Style(dim=True))
        return out

    def _redraw(self) -> None:
        self.query_one("#menu-body", HangingText).update(self.body())

    def on_click(self, event: events.Click) -> None:
        """A click selects an entry; a double-click activates it."""
        if self.done or self.confirming:
            return
        body = self.query_one("#menu-body", HangingText)
        offset = event.get_content_offset(body)
        line = None if offset is None else body.source_line(offset.y)
        if line is None or not 0 <= line < len(self.entries):
            return
        self.cursor = line
        self.note = ""
        if event.chain >= 2:
            self._activate(self.cursor)
        if not self.done:
            self._redraw()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._wheel(1)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._wheel(-1)

    def _wheel(self, delta: int) -> None:
        if self.done or self.confirming or not self.entries:
            return
        self.cursor = max(0, min(len(self.entries) - 1, self.cursor + delta))
        self.note = ""
        self._redraw()

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        key, char = event.key, event.character
        if self.confirming:
            self.confirming = False
            if key in ("y", "enter"):
                self._finish(self.entries[self.cursor].label)
                return
            self.note = "stop cancelled"
            self._redraw()
            return
        self.note = ""
        count = len(self.entries)
        if key == "escape":
            self._finish(None)
            return
        if key == "enter" and count:
            self._activate(self.cursor)
        elif key in ("down", "j") and count:
            self.cursor = (self.cursor + 1) % count
        elif key in ("up", "k") and count:
            self.cursor = (self.cursor - 1) % count
        elif key == "home":
            self.cursor = 0
        elif key == "end":
            self.cursor = max(0, count - 1)
        elif char and len(char) == 1 and char.isalpha():
            for i, entry in enumerate(self.entries):
                if entry.letter == char.lower():
                    self.cursor = i
                    self._activate(i)
                    break
        if not self.done:
            self._redraw()

    def _activate(self, index: int) -> None:
        entry = self.entries[index]
        if not entry.enabled:
            self.note = f"{entry.label}: {entry.disabled}"
            return
        if entry.label == "stop":
            self.confirming = True
            return
        self._finish(entry.label)

    def _finish(self, label: str | None) -> None:
        self.done = True
        self.dismiss(label)
