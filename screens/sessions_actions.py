"""Mail, nudges, delivery into panes and attention badges (issue 4).

A mixin of DashboardScreen: it may use the screen's `dash`, `views`, `_spawn`,
`_show_focused` and `_update_chrome`. The screen calls the hooks below.
"""

from __future__ import annotations

from zirv_dash.pane import Pane


class SessionsActions:
    def _sessions_mounted(self) -> None:
        """The screen is mounted and the first panes are starting."""

    def _sessions_tick(self) -> None:
        """Once a second (a fallback; event-driven work should not wait for it)."""

    def _sessions_badge(self, pane: Pane) -> str:
        """The sidebar badge for a pane (e.g. unread mail `✉2`), or ""."""
        return ""
