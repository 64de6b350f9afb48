"""What the CLI decided before a dashboard opens (no UI types: the CLI builds it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from zirv_dash.config.layers import AdapterGate
from zirv_dash.keymap import Keymap
from zirv_dash.outer_terminal import OuterTerminal

if TYPE_CHECKING:
    # A name for type checkers only: at run time `config.Settings` imports
    # pydantic, which plainly valid settings never need (`config.plain`).
    from zirv_dash.config.layers import Settings
    from zirv_dash.runtime import Engine


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
    outer: OuterTerminal = field(default_factory=OuterTerminal)
    """The outer terminal's colour system and default colours, probed at start-up."""
    engine: Engine | None = None
    """The runtime's engine, for a dashboard the runtime hosts (None: the dashboard
    builds and owns its own)."""
    started: Engine | None = None
    """An engine built for this dashboard (and owned by it) whose first pane was
    spawned before the UI loaded (`runtime.prespawn`); None: the dashboard builds
    its own and spawns the first pane once it is up."""
    on_takeover: Callable[[], None] | None = None
    """Called just before the UI takes the terminal: the opening frame's end
    (`zirv_dash.cli.opening_frame`), so the UI saves the terminal's own modes."""
    on_detach: Callable[[], None] | None = None
    """Releases the client, for a hosted dashboard: quitting detaches, ends nothing."""
