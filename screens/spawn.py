"""Spawn dialog: harness, optional model, optional first prompt, working directory."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from zirv_dash import adapters
from zirv_dash.config import AdapterGate, Settings


@dataclass
class SpawnRequestForm:
    agent: str
    model: str | None
    prompt: str | None
    cwd: str


def harness_choices(gate: AdapterGate) -> list[tuple[str, bool]]:
    """(name, installed) for every enabled harness, installed ones first."""
    names = [n for n in adapters.names() if gate.enabled(n)]
    rows = [(n, adapters.ADAPTERS[n].installed()) for n in names]
    return sorted(rows, key=lambda r: (not r[1], names.index(r[0])))


class SpawnScreen(ModalScreen[SpawnRequestForm | None]):
    CSS_PATH = "overlay.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", show=False),
    ]

    def __init__(self, repo: str, gate: AdapterGate, settings: Settings) -> None:
        super().__init__()
        self.repo = repo
        self.choices = harness_choices(gate)
        self.settings = settings
        self._typed = ""
        self._typed_at = 0.0

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "spawn a pane"
            yield Label("harness", classes="field-label")
            options = [
                Option(f"{name}{'' if ok else '  (not installed)'}", id=name, disabled=not ok)
                for name, ok in self.choices
            ]
            yield OptionList(*options, id="harness")
            yield Label("model (optional)", classes="field-label")
            yield Input(placeholder="default for the harness", id="model")
            yield Label("first prompt (optional)", classes="field-label")
            yield Input(placeholder="what should it work on?", id="prompt")
            yield Label("working directory", classes="field-label")
            yield Input(value=self.repo, id="cwd")
            yield Label("", id="error", classes="dialog-error", markup=False)
            yield Label(
                "type to pick · ⏎ spawn · tab next field · esc cancel",
                classes="dialog-footer",
            )

    def on_mount(self) -> None:
        harness = self.query_one("#harness", OptionList)
        harness.styles.height = min(8, max(1, len(self.choices)))
        for index, (_name, ok) in enumerate(self.choices):
            if ok:
                harness.highlighted = index
                break
        harness.focus()

    def on_key(self, event: events.Key) -> None:
        """Type-ahead in the harness list: letters jump to the first match."""
        harness = self.query_one("#harness", OptionList)
        if not harness.has_focus or not event.character or not event.character.isalnum():
            return
        event.stop()
        now = time.monotonic()
        if now - self._typed_at > 1.0:
            self._typed = ""
        self._typed += event.character.lower()
        self._typed_at = now
        for index, (name, ok) in enumerate(self.choices):
            if ok and name.startswith(self._typed):
                harness.highlighted = index
                return

    @on(OptionList.OptionSelected, "#harness")
    def _harness_chosen(self) -> None:
        # Enter on the list spawns at once (the footer promises ⏎ spawn); Tab
        # moves on to the optional fields instead.
        self.action_submit()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_submit()

    def action_submit(self) -> None:
        harness = self.query_one("#harness", OptionList)
        if harness.highlighted is None:
            self._error("choose a harness")
            return
        option = harness.get_option_at_index(harness.highlighted)
        agent = option.id or ""
        model = self.query_one("#model", Input).value.strip() or None
        prompt = self.query_one("#prompt", Input).value.strip() or None
        cwd = os.path.expanduser(self.query_one("#cwd", Input).value.strip() or self.repo)
        if not os.path.isdir(cwd):
            self._error(f"working directory {cwd} does not exist")
            return
        if prompt and prompt.startswith("-"):
            self._error("a prompt may not begin with '-'")
            return
        if model and (model.startswith("-") or len(model) > 128):
            self._error("that model name is not valid")
            return
        self.dismiss(SpawnRequestForm(agent, model, prompt, cwd))

    def _error(self, text: str) -> None:
        self.query_one("#error", Label).update(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
