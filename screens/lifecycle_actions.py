"""Spawn-request intake, restore roster, ended rows, context menu and inspector (issue 5).

A mixin of DashboardScreen: it may use the screen's `dash`, `views`, `_spawn`,
`_show_focused` and `_update_chrome`. The screen calls the hooks below.
"""

from __future__ import annotations

from widgets.sidebar import RosterRow
from zirv_dash.pane import Pane


class LifecycleActions:
    def _lifecycle_mounted(self) -> None:
        """The screen is mounted and the first panes are starting."""

    def _lifecycle_tick(self) -> None:
        """Once a second (a fallback; event-driven work should not wait for it)."""

    def _lifecycle_pane_ended(self, pane: Pane) -> None:
        """A pane's child exited (its last screen is kept)."""

    def _lifecycle_before_quit(self) -> None:
        """The dashboard is about to shut every pane down and exit."""

    def _lifecycle_extra_rows(self) -> list[RosterRow]:
        """Roster rows that are not live panes (retained ended rows, view-only rows)."""
        return []
