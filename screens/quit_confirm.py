"""Quit confirmation, shown when any pane is still working.

The list stays live while the dialog is open: a pane that finishes leaves it,
one that starts working joins it, so what Enter shuts down is what is shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from screens.dialog import DialogScreen, KeyHints

REFRESH_SECS = 0.25


def title_of(working: list[str]) -> str:
    if not working:
        return "quit zirv dash · nothing working now"
    return f"⚠ quit zirv dash · {len(working)} working"


def body_of(working: list[str]) -> Text:
    if not working:
        return Text("every pane has finished: ⏎ quits without interrupting anything")
    return Text("\n".join(f"⠋ {title}" for title in working))


class QuitConfirmScreen(DialogScreen[bool]):
    DEFAULT_CSS = """
    QuitConfirmScreen .dialog { border: round $warning; border-title-color: $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "confirm", "quit", show=False),
        Binding("escape", "stay", "stay", show=False),
    ]

    def __init__(self, working: list[str], source: Callable[[], list[str]] | None = None) -> None:
        super().__init__()
        self.working = working
        self.source = source
        """What is working now; None: asked of the app's dashboard."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = title_of(self.working)
            yield Static(body_of(self.working), id="quit-working")
            yield KeyHints([("⏎", "quit and shut down"), ("esc", "stay")], classes="dialog-footer")

    def on_mount(self) -> None:
        self.set_interval(REFRESH_SECS, self.refresh_working, name="quit-working")

    def _current(self) -> list[str] | None:
        if self.source is not None:
            return self.source()
        dashboard = getattr(self.app, "dashboard", None)
        panes = getattr(dashboard, "working_panes", None)
        if panes is None:
            return None
        return [f"{p.title} ({p.agent})" for p in panes()]

    def refresh_working(self) -> None:
        working = self._current()
        if working is None or working == self.working:
            return
        self.working = working
        self.query_one(".dialog").border_title = title_of(working)
        self.query_one("#quit-working", Static).update(body_of(working))

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_stay(self) -> None:
        self.dismiss(False)
