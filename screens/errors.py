"""Recent errors: newest first, repeats counted; closing acknowledges them."""

from __future__ import annotations

import time
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from screens.dialog import DialogScreen
from widgets.key_hints import KeyHints
from zirv_dash.dash.dashboard import ErrorLog


def errors_text(log: ErrorLog, now: float | None = None, *, ages: bool = True) -> Text:
    """The entries; without `ages` (deterministic pictures) no "…s ago"."""
    now = time.time() if now is None else now
    if not log.entries:
        return Text("no recent errors", Style(dim=True))
    out = Text()
    for entry in log.entries:
        style = Style(dim=True) if entry.acked else Style(color="red")
        out.append("⚠ ", style)
        out.append(entry.text, style)
        if entry.count > 1:
            out.append(f" ×{entry.count}", Style(bold=True))
        if not ages:
            out.append("\n")
            continue
        age = int(now - entry.at)
        out.append(f"  {age}s ago\n" if age < 120 else f"  {age // 60}m ago\n", Style(dim=True))
    out.rstrip()  # no blank row under the last entry: the dialog fits its content
    return out


class ErrorsScreen(DialogScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter", "close", "close", show=False),
        Binding("a", "ack", "acknowledge all", show=False),
    ]

    def __init__(self, log: ErrorLog, *, ages: bool = True) -> None:
        super().__init__()
        self.error_log = log
        self.ages = ages

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = f"errors · {len(self.error_log.entries)}"
            with VerticalScroll():
                yield Static(errors_text(self.error_log, ages=self.ages), id="errors-body")
            yield KeyHints([("a", "acknowledge"), ("esc", "close")], classes="dialog-footer")

    def action_ack(self) -> None:
        self.error_log.ack_all()
        self.query_one("#errors-body", Static).update(errors_text(self.error_log, ages=self.ages))

    def action_close(self) -> None:
        self.error_log.ack_all()
        self.dismiss(None)
