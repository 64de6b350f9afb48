"""The Restore overlay: panes the last dashboard had, offered at startup.

Rows `[x] worker · login form · claude · 9a8b7c6d` (role, the title when it is
not the default one, harness, model when zirv knows it, short id), all checked.
Space toggles, Enter restores the checked ones (the caller applies the pane cap),
Esc skips them — they are carried into the next roster.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from screens.dialog import DialogScreen
from widgets.key_hints import KeyHints
from zirv_dash.catalogue import implicit_model
from zirv_dash.roster import RosterPane


def _default_titles(entry: RosterPane) -> set[str]:
    """Titles zirv makes up itself: shown again, they only repeat the role and harness."""
    return {"", "orch", f"wrk {entry.agent}", entry.short, entry.session_id[:8]}


def row_label(entry: RosterPane, checked: bool) -> str:
    """`[x] worker · demo · demo-standard · 11878766`: each fact once. The model
    is the one the restored pane starts with: the recorded one, else the
    harness default where zirv knows it."""
    role = "orchestrator" if entry.role == "orchestrator" else "worker"
    parts = [role]
    if entry.title not in _default_titles(entry):
        parts.append(entry.title)
    parts.append(entry.agent)
    model = entry.model or implicit_model(entry.agent)
    if model:
        parts.append(model)
    parts.append(entry.short or entry.session_id[:8])
    return f"[{'x' if checked else ' '}] {' · '.join(parts)}"


class RestoreScreen(DialogScreen[list[RosterPane] | None]):
    def __init__(self, entries: list[RosterPane]) -> None:
        super().__init__()
        self.entries = list(entries)
        self.checked = [True] * len(self.entries)
        self.cursor = 0

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = f"restore · {len(self.entries)}"
            with VerticalScroll():
                yield Static(self.body(), id="restore-body")
            yield KeyHints(
                [("space", "toggle"), ("⏎", "restore checked"), ("esc", "skip")],
                classes="dialog-footer",
            )

    def body(self) -> Text:
        if not self.entries:
            return Text("(nothing to restore)", Style(dim=True))
        out = Text()
        for i, entry in enumerate(self.entries):
            if i:
                out.append("\n")
            line = row_label(entry, self.checked[i])
            out.append(line, Style(reverse=True) if i == self.cursor else Style())
        return out

    def _redraw(self) -> None:
        self.query_one("#restore-body", Static).update(self.body())

    def on_click(self, event: events.Click) -> None:
        """A click selects a row; a double-click toggles it."""
        body = self.query_one("#restore-body", Static)
        offset = event.get_content_offset(body)
        if offset is None or not 0 <= offset.y < len(self.entries):
            return
        self.cursor = offset.y
        if event.chain >= 2:
            self.checked[self.cursor] = not self.checked[self.cursor]
        self._redraw()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._move(1)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._move(-1)

    def _move(self, delta: int) -> None:
        if self.entries:
            self.cursor = max(0, min(len(self.entries) - 1, self.cursor + delta))
            self._redraw()

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        key = event.key
        count = len(self.entries)
        if key == "escape":
            self.dismiss(None)
        elif key == "enter":
            self.dismiss([e for e, on in zip(self.entries, self.checked, strict=True) if on])
        elif key == "space" and count:
            self.checked[self.cursor] = not self.checked[self.cursor]
        elif key in ("down", "j") and count:
            self.cursor = min(count - 1, self.cursor + 1)
        elif key in ("up", "k") and count:
            self.cursor = max(0, self.cursor - 1)
        elif key in ("home", "pageup"):
            self.cursor = 0
        elif key in ("end", "pagedown"):
            self.cursor = max(0, count - 1)
        self._redraw()
