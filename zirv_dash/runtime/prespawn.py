"""A pane opened before the engine starts, with no loop yet.

A launch starts its first pane before the UI has loaded, so the child starts up
alongside it; `Engine.start()` then watches every pane that exists. No events
are emitted: whoever subscribes later finds the pane in `dash.panes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zirv_dash.dash.dashboard import DashError

if TYPE_CHECKING:
    from zirv_dash.panes.pane import Pane
    from zirv_dash.runtime.engine import Engine


def prespawn(engine: Engine, agent: str, **kw: Any) -> Pane | None:
    """Open a pane now; None (and an error in the log) when refused."""
    try:
        return engine.dash.spawn(agent, **kw)
    except DashError as exc:
        engine.dash.error(f"spawn: {exc}")
        return None
