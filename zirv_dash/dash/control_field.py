"""The registry field naming a pane's own spawn channel: its control path.

A native pane has no process of its own to signal, so its record names the
channel the dashboard minted for it (`Dashboard.channels`); `zirv ctx kill`
drops its kill request there. Kept in a module of its own: `zirv ctx` reads it
without loading the dashboard.
"""

from __future__ import annotations

CONTROL_FIELD = "dash_requests"
"""The record field naming the pane's own channel (written by `runtime.native_pane`)."""
