"""Handover picker: swap a pane's harness or model (Ctrl+A o, the context menu).

One row per (enabled, ready harness × resolvable tier) from the catalogue, the
current one marked and highlighted when it opens; every other installed harness
has a row too, dimmed with the reason it cannot be chosen. Enter swaps — at once
when the pane is idle, otherwise at its next idle boundary; `f` forces the swap
now after a y/n confirmation. A row whose harness is clearly not logged in says
so: its first Enter warns, a second one goes ahead. Esc cancels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label
from textual.widgets.option_list import Option

from screens.dialog import DialogScreen
from widgets.key_hints import KeyHints
from widgets.pick_list import PickList
from zirv_dash.harnesses.catalogue import NO_MODEL, PickerRow

EMPTY_TEXT = "no enabled, ready harness available to swap to"


@dataclass(frozen=True)
class HandoverChoice:
    agent: str
    tier: str
    model: str | None
    """None: the harness's own default model (`–`)."""
    force: bool = False
    fresh: bool = False
    """The current row: a new conversation on the same harness and model, carried
    by the handoff packet (what a rot restart offers), never a resume."""


def row_text(row: PickerRow) -> Text:
    """Plain text (a str prompt is read as Rich markup: a `[...]` in a model id
    would vanish). A row that cannot be chosen says why, dimmed."""
    if row.reason:
        return Text.assemble(row.agent, (f"  cannot be chosen: {row.reason}", Style(dim=True)))
    text = f"{row.agent} / {row.tier} ({row.model})"
    if row.note:
        text += f"  {row.note}"
    if row.current:
        text += "  ● current · ⏎ fresh"
    if row.login:
        return Text.assemble(text, (f"  not logged in: {row.login}", Style(bold=True)))
    return Text(text)


def login_warning(row: PickerRow) -> str:
    return (
        f"{row.agent} is not logged in: {row.login}. It will likely stop at its login "
        "screen and the pane stay as it is. ⏎ again to hand over anyway, esc to back out"
    )


class HandoverScreen(DialogScreen[HandoverChoice | None]):
    DEFAULT_CSS = """
    HandoverScreen #handover-rows { max-height: 16; }
    HandoverScreen #handover-note { color: $warning; height: auto; }
    HandoverScreen #handover-confirm { color: $warning; text-style: bold; height: auto; }
    HandoverScreen .-empty { display: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", show=False),
    ]

    def __init__(self, short: str, rows: list[PickerRow], idle: bool, busy_note: str = "") -> None:
        super().__init__()
        self.short = short
        self.rows = rows
        self.idle = idle
        self.busy_note = busy_note
        self.confirming: HandoverChoice | None = None
        self.login_warned: int | None = None
        """The not-logged-in row whose warning is shown: Enter on it again goes ahead."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = f"handover → pane {self.short}"
            if not any(not r.reason for r in self.rows):
                # Nothing to choose; the installed harnesses still say why.
                yield Label(EMPTY_TEXT, id="handover-empty")
                if self.rows:
                    reasons = "\n".join(row_text(r).plain for r in self.rows)
                    yield Label(reasons, id="handover-reasons", markup=False)
                yield KeyHints([("esc", "close")], classes="dialog-footer")
                return
            options = [
                Option(row_text(r), id=str(i), disabled=bool(r.reason))
                for i, r in enumerate(self.rows)
            ]
            yield PickList(*options, id="handover-rows")
            if self.busy_note:
                yield Label(self.busy_note, id="handover-note", markup=False)
            elif not self.idle:
                yield Label(
                    "the pane is busy: ⏎ switches at its next idle boundary, f forces it now",
                    id="handover-note",
                )
            yield Label("", id="handover-error", classes="dialog-error -empty", markup=False)
            yield Label("", id="handover-confirm", classes="-empty", markup=False)
            keys = [("↑↓", "choose"), ("⏎", "swap"), ("esc", "cancel")]
            if not self.idle:
                keys[1:2] = [("⏎", "swap when idle"), ("f", "force now")]
            yield KeyHints(keys, classes="dialog-footer")

    def on_mount(self) -> None:
        if not self.query("#handover-rows"):
            return
        options = self.query_one("#handover-rows", PickList)
        # It opens where the pane is now (its current row), as a list of
        # choices does; else on the first row that can be chosen.
        choosable = [i for i, r in enumerate(self.rows) if not r.reason]
        current = next((i for i in choosable if self.rows[i].current), None)
        start = current if current is not None else next(iter(choosable), None)
        options.highlighted = start
        options.focus()

    def _row(self) -> PickerRow | None:
        at = self.query_one("#handover-rows", PickList).highlighted
        return None if at is None else self.rows[at]

    def _choice(self, force: bool) -> HandoverChoice | None:
        row = self._row()
        if row is None or row.reason:
            return None
        model = None if row.model == NO_MODEL else row.model
        return HandoverChoice(row.agent, row.tier, model, force, fresh=row.current)

    @on(PickList.OptionSelected, "#handover-rows")
    def _selected(self) -> None:
        if self.confirming is not None:
            return
        choice = self._choice(force=False)
        if choice is None:
            return
        at = self.query_one("#handover-rows", PickList).highlighted
        row = self.rows[at] if at is not None else None
        if row is not None and row.login and self.login_warned != at:
            self.login_warned = at
            self._say("#handover-confirm", login_warning(row))
            return
        self.dismiss(choice)

    @on(PickList.OptionHighlighted, "#handover-rows")
    def _moved(self, event: PickList.OptionHighlighted) -> None:
        if self.login_warned is not None and event.option_index != self.login_warned:
            self.login_warned = None  # the warning was for another row
            if self.confirming is None:
                self._say("#handover-confirm", "")

    def on_key(self, event: events.Key) -> None:
        if not self.query("#handover-rows"):
            return
        if self.confirming is not None:
            event.stop()
            event.prevent_default()
            if event.key in ("y", "Y"):
                self.dismiss(self.confirming)
            elif event.key in ("n", "N", "escape"):
                self.confirming = None
                self._say("#handover-confirm", "")
            return
        if event.key == "f" and not self.idle:
            event.stop()
            event.prevent_default()
            choice = self._choice(force=True)
            if choice is not None:
                self.confirming = choice
                model = choice.model or NO_MODEL
                row = self._row()
                login = row.login if row is not None else ""
                warning = f"{choice.agent} is not logged in: {login}. " if login else ""
                self._say(
                    "#handover-confirm",
                    f"{warning}force the switch to {choice.agent} ({model}) now, interrupting "
                    "the pane's current turn? y/n",
                )

    def action_cancel(self) -> None:
        if self.confirming is not None or self.login_warned is not None:
            # esc backs out of the confirmation (or the login warning) first
            self.confirming = None
            self.login_warned = None
            self._say("#handover-confirm", "")
            return
        self.dismiss(None)

    def _say(self, selector: str, text: str) -> None:
        label = self.query_one(selector, Label)
        label.update(text)
        label.set_class(not text, "-empty")
