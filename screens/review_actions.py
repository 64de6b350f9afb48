"""Mouse review: selection and copy, copy mode, grid view and palette (issue 7).

A mixin of DashboardScreen: it may use the screen's `dash`, `views`, `_spawn`,
`_show_focused` and `_update_chrome`. The screen calls the hooks below.
"""

from __future__ import annotations


class ReviewActions:
    def _review_mounted(self) -> None:
        """The screen is mounted and the first panes are starting."""

    def _review_focus_changed(self) -> None:
        """The focused pane changed (cancel selections, leave modes)."""
