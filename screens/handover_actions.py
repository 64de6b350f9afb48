"""The handover picker and in-place harness or model swaps (issue 6).

A mixin of DashboardScreen: it may use the screen's `dash`, `views`, `_spawn`,
`_show_focused` and `_update_chrome`. The screen calls the hooks below.
"""

from __future__ import annotations


class HandoverActions:
    def _handover_mounted(self) -> None:
        """The screen is mounted and the first panes are starting."""

    def _handover_tick(self) -> None:
        """Once a second (a fallback; event-driven work should not wait for it)."""
