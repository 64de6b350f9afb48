"""The Restore overlay: panes the last dashboard had, offered at startup.

Rows `[x] worker · login form · claude · 9a8b7c6d` (role, the title when it is
not the default one, harness, model when zirv knows it, short id), all checked.
Space (or a double click) toggles, Enter restores the checked ones (the caller
applies the pane cap), Esc skips them — they are carried into the next roster.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from screens.dialog import DialogScreen
from widgets.key_hints import KeyHints
from widgets.nav_pick_list import NavPickList
from zirv_dash.dash.roster import RosterPane
from zirv_dash.harnesses.catalogue import implicit_model


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
    """The rows are an OptionList (j/k, arrows, Home/End, the wheel and a click
    move the highlight); Space or a double click toggles the row, Enter
    restores the checked ones, Esc skips them all."""

    DEFAULT_CSS = """
    RestoreScreen #restore-body { max-height: 70vh; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the list's own Enter would select (here: toggle) the row.
        Binding("enter", "restore", show=False, priority=True),
        Binding("escape", "skip", show=False),
        Binding("space", "toggle_row", show=False),
        Binding("pageup", "jump(0)", show=False, priority=True),
        Binding("pagedown", "jump(-1)", show=False, priority=True),
    ]

    def __init__(self, entries: list[RosterPane]) -> None:
        super().__init__()
        self.entries = list(entries)
        self.checked = [True] * len(self.entries)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = f"restore · {len(self.entries)}"
            rows = [Option(self._prompt(i)) for i in range(len(self.entries))]
            if not rows:
                rows = [Option(Text("(nothing to restore)", Style(dim=True)), disabled=True)]
            yield NavPickList(*rows, id="restore-body")
            yield KeyHints(
                [("space", "toggle"), ("⏎", "restore checked"), ("esc", "skip")],
                classes="dialog-footer",
            )

    def on_mount(self) -> None:
        self.query_one("#restore-body", NavPickList).focus()

    @property
    def cursor(self) -> int:
        """The highlighted row."""
        if not self.is_mounted:
            return 0
        return self.query_one("#restore-body", NavPickList).highlighted or 0

    def _row(self, index: int) -> str:
        return row_label(self.entries[index], self.checked[index])

    def _prompt(self, index: int) -> Text:
        # Text, not a str: a str prompt is markup, and `[x]` would be a tag.
        return Text(self._row(index))

    def body(self) -> Text:
        """The rows as shown, one a line."""
        if not self.entries:
            return Text("(nothing to restore)", Style(dim=True))
        return Text("\n".join(self._row(i) for i in range(len(self.entries))))

    def _toggle(self, index: int) -> None:
        self.checked[index] = not self.checked[index]
        rows = self.query_one("#restore-body", NavPickList)
        rows.replace_option_prompt_at_index(index, self._prompt(index))

    @on(OptionList.OptionSelected, "#restore-body")
    def _double_clicked(self, event: OptionList.OptionSelected) -> None:
        # Enter is the screen's (priority): only a double click selects here.
        event.stop()
        self._toggle(event.option_index)

    def action_toggle_row(self) -> None:
        if self.entries:
            self._toggle(self.cursor)

    def action_jump(self, index: int) -> None:
        if self.entries:
            rows = self.query_one("#restore-body", NavPickList)
            rows.highlighted = index % len(self.entries)

    def action_restore(self) -> None:
        self.dismiss([e for e, on in zip(self.entries, self.checked, strict=True) if on])

    def action_skip(self) -> None:
        self.dismiss(None)
