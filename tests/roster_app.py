"""A small app holding only a Sidebar, fed fixed rows: the roster's search and
groups tested (and pictured) without a dashboard or a pane."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from widgets.sidebar import RosterRow, Sidebar
from zirv_dash.attention.states import PaneState
from zirv_dash.dash.roster_view import RowGroup

WEB = RowGroup("/src/web/.git", "web", "main")
API = RowGroup("/src/api/.git", "api", "feature/login")

ROWS = [
    RosterRow("orch0001", "orch", "claude", PaneState.IDLE, focused=True, selected=True),
    RosterRow("a1b2c3d4", "a1b2c3d4", "codex", PaneState.NEEDS_YOU, badge="✉2"),
    RosterRow("e5f6a7b8", "e5f6a7b8", "shell", PaneState.IDLE, marker="⇶"),
    RosterRow("c9d0e1f2", "c9d0e1f2", "claude", PaneState.DONE_UNSEEN),
    RosterRow("ended:0badc0de", "0badc0de", "codex", PaneState.FAILED, dim=True, note="exit 1"),
]
GROUPS = {"orch0001": WEB, "a1b2c3d4": API, "e5f6a7b8": WEB, "c9d0e1f2": API}


class RosterApp(App[None]):
    CSS = "#rest { width: 1fr; }"

    def __init__(self, grouped: bool = True) -> None:
        super().__init__()
        self.grouped = grouped
        self.submitted: list[str] = []
        self.cancelled = 0

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Sidebar(id="sidebar")
            yield Static("pane", id="rest")

    def on_mount(self) -> None:
        self.query_one(Sidebar).update_rows(ROWS, 0, GROUPS if self.grouped else None)

    def on_roster_search_submitted(self) -> None:
        self.submitted.append(self.query_one(Sidebar).first_match() or "")

    def on_roster_search_cancelled(self) -> None:
        self.cancelled += 1
