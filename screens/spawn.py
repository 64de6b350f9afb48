"""Spawn dialog: harness, optional model, optional first prompt, working directory,
and, when the operator has remote hosts, the host whose runtime runs it.

The harness list shows every enabled harness (as many rows as the terminal
allows, the rest reached with the arrow keys). Letters typed on the list filter
it, and the filter is shown; a name that only a disabled harness matches says
which file disabled it. A dialog opened at the pane cap says so at once.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label
from textual.widgets.option_list import Option

from screens.dialog import DialogScreen
from widgets.key_hints import KeyHints
from widgets.pane_header import shorten_home
from widgets.pick_list import PickList
from widgets.tick_box import TickBox
from zirv_dash.config.layers import AdapterGate
from zirv_dash.harnesses import adapters

if TYPE_CHECKING:
    # `config.Settings` imports pydantic, which plainly valid settings never need.
    from zirv_dash.config.layers import Settings

FIXED_ROWS = 13
"""Rows of the dialog besides the harness list: borders, labels, fields, footer."""
FOOTER = [("⏎", "spawn"), ("tab", "next field"), ("esc", "cancel")]


@dataclass
class SpawnRequestForm:
    agent: str
    model: str | None
    prompt: str | None
    cwd: str
    worktree: bool = False
    """Run it in a git worktree of its own (branch zirv/<short>)."""
    host: str = ""
    """A remote host (`zirv remote list`) whose runtime runs it; "" for this machine."""


REMOTE_LIMITS = (
    "a remote host's pane starts in its runtime's repository: no worktree of its own"
    " there (not carried by the link)"
)


def harness_choices(gate: AdapterGate) -> list[tuple[str, bool]]:
    """(name, installed) for every enabled harness, installed ones first."""
    names = [n for n in adapters.names() if gate.enabled(n)]
    rows = [(n, adapters.ADAPTERS[n].installed()) for n in names]
    return sorted(rows, key=lambda r: (not r[1], names.index(r[0])))


def matches(typed: str, name: str) -> bool:
    return typed in name


def gated_words(name: str, reason: str, repo: str) -> str:
    """`codex is disabled by .zirv/.settings.toml` (the gate says `disabled in <file>`)."""
    words = reason.removeprefix("disabled in ").removeprefix("disabled by ")
    path = Path(words)
    if path.is_absolute():
        try:
            words = str(path.relative_to(repo))
        except ValueError:
            home = Path.home()
            words = f"~/{path.relative_to(home)}" if path.is_relative_to(home) else words
    return f"{name} is disabled by {words}"


def _row(name: str, installed: bool) -> Text:
    if installed:
        return Text(name)
    return Text.assemble(name, ("  (not installed)", Style(dim=True)), style=Style(dim=True))


class SpawnScreen(DialogScreen[SpawnRequestForm | None]):
    DEFAULT_CSS = """
    SpawnScreen #harness { max-height: 100; }
    SpawnScreen #spawn-cap { color: $warning; text-style: bold; height: auto; }
    SpawnScreen #filter { color: $text-muted; height: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", show=False),
        # Enter anywhere spawns, as the footer says: the list and the fields
        # answer it themselves, the worktree box leaves it to the dialog.
        Binding("enter", "submit", "spawn", show=False),
    ]

    def __init__(
        self,
        repo: str,
        gate: AdapterGate,
        settings: Settings,
        live_panes: int | None = None,
        here: str | None = None,
        hosts: Sequence[str] = (),
        writer_refusal: Callable[[str, str], str | None] | None = None,
    ) -> None:
        super().__init__()
        self.hosts = list(hosts)
        """The operator's remote hosts; the host field shows only when there are some."""
        self.writer_refusal = writer_refusal
        """(harness, cwd) → why it may not write there (another live writer), or None."""
        self.repo = repo
        self.here = here or repo
        """The working directory offered: the focused pane's (OSC 7), else the repo."""
        self.gate = gate
        self.choices = harness_choices(gate)
        self.settings = settings
        self.live_panes = live_panes
        """Live panes now; None: asked of the app's dashboard when the dialog opens."""
        self.typed = ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "spawn a pane"
            yield Label("", id="spawn-cap", markup=False)
            yield Label("", id="filter", classes="field-label", markup=False)
            yield PickList(id="harness")
            yield Label("model (optional)", classes="field-label")
            yield Input(placeholder="default for the harness", id="model")
            yield Label("first prompt (optional)", classes="field-label")
            yield Input(placeholder="what should it work on?", id="prompt")
            yield Label("working directory", classes="field-label")
            yield Input(value=shorten_home(self.here), id="cwd")
            yield TickBox("own git worktree (branch zirv/<short>)", id="worktree", compact=True)
            if self.hosts:
                yield Label("host (optional)", classes="field-label")
                yield Input(placeholder=f"this machine, or: {', '.join(self.hosts)}", id="host")
            yield Label("", id="error", classes="dialog-error", markup=False)
            yield KeyHints(FOOTER, classes="dialog-footer")

    def on_mount(self) -> None:
        self._show_cap()
        self._fill()
        self._size_list()
        self.query_one("#harness", PickList).focus()

    def on_resize(self, event: events.Resize) -> None:
        self._size_list()

    # -- the pane cap ------------------------------------------------------------------

    def _live(self) -> int | None:
        if self.live_panes is not None:
            return self.live_panes
        dashboard = getattr(self.app, "dashboard", None)
        live = getattr(dashboard, "live_panes", None)
        return len(live) if live is not None else None

    def cap_text(self) -> str:
        live, cap = self._live(), self.settings.dash.max_panes
        if live is None or live < cap:
            return ""
        return f"pane limit reached: {live} live panes, dash.max_panes = {cap}; stop one first"

    def _show_cap(self) -> None:
        label = self.query_one("#spawn-cap", Label)
        text = self.cap_text()
        label.update(text)
        label.display = bool(text)

    # -- the list and its filter --------------------------------------------------------

    def _size_list(self) -> None:
        """As many rows as the screen has room for: the whole list when it fits."""
        harness = self.query_one("#harness", PickList)
        shown = max(1, harness.option_count)
        room = self.size.height * 9 // 10 - FIXED_ROWS if self.size.height else shown
        harness.styles.height = max(3, min(shown, room))

    def shown_choices(self) -> list[tuple[str, bool]]:
        return [(n, ok) for n, ok in self.choices if matches(self.typed, n)]

    def _fill(self) -> None:
        harness = self.query_one("#harness", PickList)
        harness.clear_options()
        rows = self.shown_choices()
        # Exact and prefix matches first: `co` puts codex before decoy names.
        rows.sort(key=lambda r: (not r[0].startswith(self.typed), not r[1]))
        # Not-installed harnesses stay reachable (the keys scroll through the
        # whole list); choosing one says what is missing.
        harness.add_options([Option(_row(n, ok), id=n) for n, ok in rows])
        first = next((i for i, (_n, ok) in enumerate(rows) if ok), 0 if rows else None)
        harness.highlighted = first
        self._show_filter(rows)

    def _show_filter(self, rows: list[tuple[str, bool]]) -> None:
        total = len(self.choices)
        if not self.typed:
            text = f"harness · {total} · type to filter"
        else:
            text = f"harness · filter: {self.typed}▏ · {len(rows)} of {total} · ⌫ edit"
        self.query_one("#filter", Label).update(text)
        self._error(self._no_match_words(rows))

    def _no_match_words(self, rows: list[tuple[str, bool]]) -> str:
        if not self.typed or any(ok for _n, ok in rows):
            return ""
        for name in adapters.names():
            reason = self.gate.refusal(name)
            if reason and name.startswith(self.typed):
                return gated_words(name, reason, self.repo)
        if rows:
            return f"{rows[0][0]} is not installed"
        return f"no harness matches '{self.typed}'"

    def on_key(self, event: events.Key) -> None:
        harness = self.query_one("#harness", PickList)
        if not harness.has_focus:
            return
        if event.key == "backspace" and self.typed:
            self.typed = self.typed[:-1]
        elif event.key == "escape" and self.typed:
            self.typed = ""  # the first Esc clears the filter, the next one cancels
        elif (
            event.character
            and len(event.character) == 1
            and (event.character.isalnum() or event.character in "-_")
        ):
            self.typed += event.character.lower()
        else:
            return
        event.stop()
        event.prevent_default()
        self._fill()
        self._size_list()

    # -- submit -------------------------------------------------------------------------

    @on(PickList.OptionSelected, "#harness")
    def _harness_chosen(self) -> None:
        # Enter (or a double click) on the list spawns at once (the footer
        # promises ⏎ spawn); Tab moves on to the optional fields instead.
        self.action_submit()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_submit()

    def action_submit(self) -> None:
        cap = self.cap_text()
        if cap:
            self._error(cap)
            return
        harness = self.query_one("#harness", PickList)
        if harness.highlighted is None:
            self._error(self._no_match_words(self.shown_choices()) or "choose a harness")
            return
        option = harness.get_option_at_index(harness.highlighted)
        agent = option.id or ""
        if self.hosts and (host := self.query_one("#host", Input).value.strip()):
            self._submit_remote(agent, host)
            return
        adapter = adapters.ADAPTERS.get(agent)
        if adapter is not None and not adapter.installed():
            self._error(adapter.missing_words())
            return
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
        worktree = self.query_one("#worktree", TickBox).value
        refusal = (
            None if worktree or self.writer_refusal is None else self.writer_refusal(agent, cwd)
        )
        if refusal:
            self._error(refusal)  # the dialog stays open: tick the worktree box, or cancel
            return
        self.dismiss(SpawnRequestForm(agent, model, prompt, cwd, worktree))

    def _submit_remote(self, agent: str, host: str) -> None:
        """A pane in `host`'s runtime: whether the harness is installed is for that
        host to say (this machine's PATH says nothing about it)."""
        if host not in self.hosts:
            self._error(f"no host named {host!r}; known: {', '.join(self.hosts)}")
            return
        prompt = self.query_one("#prompt", Input).value.strip() or None
        model = self.query_one("#model", Input).value.strip() or None
        if self.query_one("#worktree", TickBox).value:
            self._error(REMOTE_LIMITS)
            return
        if (prompt or "").startswith("-") or (model or "").startswith("-"):
            self._error("a prompt or model may not begin with '-'")
            return
        self.dismiss(SpawnRequestForm(agent, model, prompt, "", host=host))

    def _error(self, text: str) -> None:
        label = self.query_one("#error", Label)
        label.update(text)
        label.display = bool(text)  # no blank row while there is nothing to say

    def action_cancel(self) -> None:
        self.dismiss(None)
