"""Mouse review: selection and copy, copy mode, grid view and palette (issue 7).

A mixin of DashboardScreen: it may use the screen's `dash`, `views`, `_spawn`,
`_show_focused` and `_update_chrome`. The screen calls the hooks below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work

from widgets.header_bar import HeaderBar
from widgets.terminal_view import TerminalView
from zirv_dash import clipboard
from zirv_dash.keymap import ACTION_BY_ID, ACTIONS

if TYPE_CHECKING:
    from zirv_dash.pane import Pane


class ReviewActions:
    # Provided by DashboardScreen (declared for readers; see the module docstring).
    dash: Any
    views: dict[str, TerminalView]
    app: Any

    last_copy: tuple[clipboard.Outcome, str] | None = None
    """The outcome and notice of the latest copy (tests and diagnostics)."""

    def _review_mounted(self) -> None:
        """The screen is mounted and the first panes are starting."""
        self.last_copy = None

    def _review_focus_changed(self) -> None:
        """The focused pane changed (cancel selections, leave modes)."""
        for view in self.views.values():
            view.clear_selection()

    # -- copy ---------------------------------------------------------------------------

    def on_terminal_view_copy_request(self, message: TerminalView.CopyRequest) -> None:
        message.stop()
        self.copy_text(message.text)

    def copy_text(self, text: str) -> None:
        """Put `text` on the clipboard: OSC 52 now, the platform command on a worker."""
        written = self._write_terminal(clipboard.osc52(text))
        self._clipboard_worker(text, written)

    def _write_terminal(self, data: bytes) -> bool:
        """Write raw bytes to the real terminal (between Textual's frames)."""
        app = self.app
        driver = getattr(app, "_driver", None)
        if driver is None or app.is_headless:
            return False
        try:
            driver.write(data.decode("utf-8"))
        except Exception:  # noqa: BLE001 - a closed terminal is a failed copy, not a crash
            return False
        return True

    @work(thread=True, group="clipboard")
    def _clipboard_worker(self, text: str, osc_written: bool) -> None:
        result = clipboard.run_platform_copy(text)
        self.app.call_from_thread(self._copy_done, osc_written, result)

    def _copy_done(self, osc_written: bool, result: clipboard.CommandResult) -> None:
        outcome = clipboard.outcome(osc_written, result)
        text = clipboard.describe(outcome, osc_written, result)
        self.last_copy = (outcome, text)
        if outcome is clipboard.Outcome.FAILED:
            self.dash.error(text)
        else:
            self.dash.notify(text)
        self._update_chrome()  # type: ignore[attr-defined]

    # -- header hints -------------------------------------------------------------------

    def on_header_bar_hint_clicked(self, message: HeaderBar.HintClicked) -> None:
        message.stop()
        action = message.action
        if action not in ACTION_BY_ID:
            action = next((a.id for a in ACTIONS if a.label == action), action)
        self.run_action(action)  # type: ignore[attr-defined]

    # -- helpers ------------------------------------------------------------------------

    def _focused_view(self) -> TerminalView | None:
        pane: Pane | None = self.dash.focused_pane
        if pane is None:
            return None
        return self.views.get(pane.short)
