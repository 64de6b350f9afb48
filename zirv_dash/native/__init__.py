"""The native conversation session: zirv conducting the conversation itself.

The core of the native pane, free of any UI toolkit. The widget
(`widgets.native_pane.NativePane`) draws a `NativeSession`; build one with
`open_session`.
"""

from __future__ import annotations

from pathlib import Path

from zirv_dash.native.engine import NativeSession, Snapshot
from zirv_dash.native.journal import Journal, journal_path
from zirv_dash.native.routes import NativeConfig, Route, RouteError, load_config

__all__ = [
    "NativeConfig",
    "NativeSession",
    "Route",
    "RouteError",
    "Snapshot",
    "open_session",
]


def open_session(
    workdir: Path,
    session: str,
    *,
    role: str = "orchestrator",
    headless: bool = False,
    config: NativeConfig | None = None,
) -> NativeSession:
    """The session `session` (its journal replayed if it exists) on the role's route
    from `~/.zirv/native.toml`, or the offline demo route when there is none.
    Raises RouteError (naming the file and field) for a bad configuration."""
    chosen = (config or load_config()).route_for(role)
    return NativeSession(chosen, Journal(journal_path(session)), workdir, headless=headless)
