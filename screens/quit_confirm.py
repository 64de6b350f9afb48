"""Quit confirmation, shown when any pane is working, starting, needs you or is unknown.

The list stays live while the dialog is open: a pane that finishes leaves it,
one that starts working joins it, so what Enter shuts down is what is shown.
The same dialog asks before Ctrl+Q ends one native pane's conversation mid-turn
(`Subject`: what Enter ends).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from screens.dialog import DialogScreen
from widgets.glyphs import glyph
from widgets.key_hints import KeyHints
from zirv_dash.attention.states import PaneState
from zirv_dash.panes.words import STATE_WORDS

REFRESH_SECS = 0.25

Busy = tuple[str, PaneState | None]
"""A pane that keeps the dash from quitting quietly: its title and state
(None: the caller gave only a title and no dashboard says more)."""

ORDER = (PaneState.WORKING, PaneState.STARTING, PaneState.NEEDS_YOU, PaneState.UNKNOWN)
PLURAL_WORDS = {PaneState.NEEDS_YOU: "need you"}
"""A count of several panes reads `2 need you`, not `2 needs you`."""


@dataclass(frozen=True)
class Subject:
    """What the dialog ends: its title's verb and its Enter hint."""

    title: str = "quit zirv dash"
    confirm: str = "quit and shut down"
    finished: str = "every pane has finished: ⏎ quits without interrupting anything"


DASHBOARD = Subject()


def _as_busy(entries: Sequence[str | Busy]) -> list[Busy]:
    return [(e, None) if isinstance(e, str) else e for e in entries]


def _count_word(state: PaneState, count: int) -> str:
    word = PLURAL_WORDS.get(state, STATE_WORDS[state]) if count > 1 else STATE_WORDS[state]
    return f"{count} {word}"


def title_of(working: Sequence[str | Busy], subject: Subject = DASHBOARD) -> str:
    """Counts each state honestly: `3 panes not idle: 1 working · 2 need you`."""
    busy = _as_busy(working)
    what = subject.title
    if not busy:
        return f"{what} · nothing working now"
    counts = Counter(state for _, state in busy)
    parts = [_count_word(state, counts[state]) for state in ORDER if counts[state]]
    if counts[None]:
        parts.append(f"{counts[None]} busy")
    if len(parts) == 1:
        return f"⚠ {what} · {parts[0]}"
    noun = "pane" if len(busy) == 1 else "panes"
    return f"⚠ {what} · {len(busy)} {noun} not idle: {' · '.join(parts)}"


def body_of(working: Sequence[str | Busy], tick: int = 0, subject: Subject = DASHBOARD) -> Text:
    busy = _as_busy(working)
    if not busy:
        return Text(subject.finished)
    out = Text()
    for index, (title, state) in enumerate(busy):
        if index:
            out.append("\n")
        if state is None:
            out.append(f"· {title}")
            continue
        char, style = glyph(state, tick)
        out.append(char, style)
        out.append(f" {title} · ")
        out.append(STATE_WORDS[state], style)
    return out


class QuitConfirmScreen(DialogScreen[bool]):
    DEFAULT_CSS = """
    QuitConfirmScreen .dialog { border: round $warning; border-title-color: $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "confirm", "quit", show=False),
        Binding("escape", "stay", "stay", show=False),
    ]

    def __init__(
        self,
        working: Sequence[str | Busy],
        source: Callable[[], Sequence[str | Busy]] | None = None,
        subject: Subject = DASHBOARD,
    ) -> None:
        super().__init__()
        self.working = _as_busy(working)
        self.source = source
        """What is busy now; None: asked of the app's dashboard."""
        self.subject = subject

    def compose(self) -> ComposeResult:
        # The caller may pass titles only: the dashboard knows each pane's state.
        self.working = self._current() or self.working
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = title_of(self.working, self.subject)
            yield Static(body_of(self.working, subject=self.subject), id="quit-working")
            hints = [("⏎", self.subject.confirm), ("esc", "stay")]
            yield KeyHints(hints, classes="dialog-footer")

    def on_mount(self) -> None:
        self.set_interval(REFRESH_SECS, self.refresh_working, name="quit-working")

    def _current(self) -> list[Busy] | None:
        if self.source is not None:
            return _as_busy(self.source())
        dashboard = getattr(self.app, "dashboard", None)
        panes = getattr(dashboard, "working_panes", None)
        state_of = getattr(dashboard, "state_of", None)
        if panes is None or state_of is None:
            return None
        return [(f"{p.title} ({p.agent})", state_of(p)) for p in panes()]

    def refresh_working(self) -> None:
        working = self._current()
        if working is None or working == self.working:
            return
        self.working = working
        self.query_one(".dialog").border_title = title_of(working, self.subject)
        self.query_one("#quit-working", Static).update(body_of(working, subject=self.subject))

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_stay(self) -> None:
        self.dismiss(False)
