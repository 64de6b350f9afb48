"""The Textual App: global concerns only (services, screens, terminal setup).

Textual's own default bindings (Ctrl+Q quit, Ctrl+C, Ctrl+P palette, Tab focus)
would steal keys from agents, so the App inherits none and disables the command
palette; every key reaches the dashboard screen, which routes it.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import BindingType

from zirv_dash.config import AdapterGate, Settings
from zirv_dash.dashboard import Dashboard
from zirv_dash.keymap import Keymap


@dataclass
class LaunchOptions:
    """What the CLI decided before the dashboard opened."""

    repo: Path
    settings: Settings
    keymap: Keymap
    gate: AdapterGate
    agent: str
    agent_reason: str = ""
    model: str | None = None
    initial_panes: list[tuple[str, str | None]] = field(default_factory=list)
    """Extra panes to open at start (agent, prompt), e.g. for demos and tests."""
    spinner: bool = True
    manage_state: bool = True
    """Write registry records, spawn channels and the roster (off in unit tests)."""
    session_ids: list[str] = field(default_factory=list)
    """Session ids for the first panes, in order (tests pin them for stable output)."""
    deterministic: bool = False
    """Freeze clocks, pids and spinners in the chrome (snapshot tests)."""


class ZirvApp(App[int], inherit_bindings=False):
    TITLE = "zirv"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = []
    CSS_PATH = "app.tcss"

    def __init__(self, options: LaunchOptions) -> None:
        super().__init__()
        self.options = options
        self.exit_code = 0
        self.dashboard: Dashboard | None = None
        """Set by the dashboard screen; used to stop children if the UI dies."""

    def on_mount(self) -> None:
        from screens.dashboard import DashboardScreen

        # Parsing floods of output allocates many short-lived objects; full
        # collections of the long-lived UI graph would stall typing. Freeze what
        # exists at start and collect the young generations less often.
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)

        self.push_screen(DashboardScreen(self.options))


def run_dashboard(options: LaunchOptions) -> int:
    app = ZirvApp(options)
    try:
        result = app.run(mouse=options.settings.dash.mouse)
    finally:
        # However the app ended (quit, crash, signal), no child outlives it.
        # Textual has already restored the terminal by the time run() returns.
        if app.dashboard is not None and app.dashboard.live_panes:
            app.dashboard.shutdown_all(grace=1.0)
    return result if isinstance(result, int) else app.exit_code
