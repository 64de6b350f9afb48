"""The native conversation session: zirv conducting the conversation itself.

The core of the native pane, free of any UI toolkit. The widget
(`widgets.native_pane.NativePane`) draws a `NativeSession`; build one with
`open_session`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from zirv_dash.native.routes import NativeConfig, Route, RouteError, load_config

if TYPE_CHECKING:
    from zirv_dash.native.engine import NativeSession
    from zirv_dash.native.snapshot import Snapshot

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
    session_id: str = "",
    require_sandbox: bool = False,
) -> NativeSession:
    """The session `session` (its journal replayed if it exists) on the role's route
    from `~/.zirv/native.toml`, or the offline demo route when there is none.
    Raises RouteError (naming the file and field) for a bad configuration.
    `require_sandbox` is the operator's `[native] require_sandbox`."""
    from zirv_dash.native.engine import NativeSession
    from zirv_dash.native.journal import Journal, journal_path

    chosen = (config or load_config()).route_for(role)
    journal = Journal(journal_path(session))
    return NativeSession(
        chosen,
        journal,
        workdir,
        headless=headless,
        session_id=session_id,
        role=role,
        require_sandbox=require_sandbox,
    )


def __getattr__(name: str) -> object:
    # The session engine loads when first named: a module that needs only the
    # approvals, the routes or the journal does not pay for it.
    if name in ("NativeSession", "Snapshot"):
        from zirv_dash.native import engine

        return getattr(engine, name)
    if name in ("Journal", "journal_path"):
        from zirv_dash.native import journal

        return getattr(journal, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
