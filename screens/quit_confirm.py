"""Quit confirmation, shown when any pane is still working."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label


class QuitConfirmScreen(ModalScreen[bool]):
    CSS_PATH = "overlay.tcss"
    DEFAULT_CSS = """
    QuitConfirmScreen .dialog { border: round $warning; border-title-color: $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "confirm", "quit", show=False),
        Binding("escape", "stay", "stay", show=False),
    ]

    def __init__(self, working: list[str]) -> None:
        super().__init__()
        self.working = working

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = f"⚠ quit zirv dash · {len(self.working)} working"
            for title in self.working:
                yield Label(f"⠋ {title}", markup=False)
            yield Label("⏎ quit and shut down   esc stay", classes="dialog-footer")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_stay(self) -> None:
        self.dismiss(False)
