"""The UI-free engine: panes, I/O, reaping, watchers, intake, delivery, swaps.

`Engine` takes commands (spawn, focus, input, resize, stop, quit, …) and emits
typed events to any number of subscribers. It imports no UI toolkit: the
dashboard screen adapts its events, and a headless runtime can serve them.
"""

from zirv_dash.runtime.engine import Engine
from zirv_dash.runtime.events import EngineEvent

__all__ = ["Engine", "EngineEvent"]
