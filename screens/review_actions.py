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
        self._wheel_told: set[str] = set()

    def _review_wheel_forwarded(self, pane: Pane) -> None:
        """The wheel went to a mouse-aware child: say so, once per pane."""
        if pane.short not in self._wheel_told:
            self._wheel_told.add(pane.short)
            self.dash.notify("pane is in full-screen mode -- scrolling is forwarded to the app")
            self._update_chrome()  # type: ignore[attr-defined]

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

    # -- grid, copy mode, palette ------------------------------------------------------

    def do_grid(self) -> None:
        from screens.grid import GridScreen

        if not self.dash.panes:
            self.dash.notify("grid: no panes")
            return

        def done(short: str | None) -> None:
            if short is None:
                return
            for index, pane in enumerate(self.dash.panes):
                if pane.short == short:
                    self.do_focus(index)  # type: ignore[attr-defined]
                    return

        self.app.push_screen(GridScreen(self.dash, self._tick), done)  # type: ignore[attr-defined]

    def do_copy_mode(self) -> None:
        from screens.copy_mode import CopyModeScreen

        view = self._focused_view()
        if view is None or not view.display:
            self.dash.notify("copy mode: no pane")
            return
        view.clear_selection()

        def done(_: None) -> None:
            self._update_chrome()  # type: ignore[attr-defined]

        self.app.push_screen(
            CopyModeScreen(view.pane, lambda: view.region, self.copy_text, self._review_notice),
            done,
        )

    def _review_notice(self, text: str) -> None:
        self.dash.notify(text)
        self._update_chrome()  # type: ignore[attr-defined]

    def do_palette(self) -> None:
        from screens.palette import PaletteScreen, build_entries

        entries = build_entries(
            self.keys.keymap,  # type: ignore[attr-defined]
            self._action_unavailable,
            pane_count=max(1, len(self.dash.panes)),
        )

        def done(action: str | None) -> None:
            if action:
                self.run_action(action)  # type: ignore[attr-defined]
                self._update_chrome()  # type: ignore[attr-defined]

        self.app.push_screen(PaletteScreen(entries), done)

    def _action_unavailable(self, action: str) -> str | None:
        """Why `action` cannot run right now (shown in the palette), or None."""
        dash = self.dash
        pane = dash.focused_pane
        if action.startswith("focus_"):
            number = int(action.split("_")[1])
            if number > len(dash.panes):
                return f"there is no pane {number}"
            if not dash.panes[number - 1].alive:
                return "this pane has ended"
            return None
        if getattr(self, f"do_{action}", None) is None:
            return "not available in this build"
        if action in ("next_pane", "select_up", "select_down") and len(dash.panes) < 2:
            return "only one pane"
        if action in ("handover", "nudge") and (pane is None or not pane.alive):
            return "this pane has ended" if pane is not None else "no pane selected"
        if action == "restore_row" and pane is not None and pane.alive:
            return "still running"
        if action.startswith("scroll_") or action == "copy_mode":
            if pane is None:
                return "no pane selected"
            if pane.model_view.alternate_screen and action != "copy_mode":
                return "the app is on its alternate screen: it scrolls itself"
        if action == "grid" and not dash.panes:
            return "no panes"
        return None

    # -- helpers ------------------------------------------------------------------------

    def _focused_view(self) -> TerminalView | None:
        pane: Pane | None = self.dash.focused_pane
        if pane is None:
            return None
        return self.views.get(pane.short)
