"""Mouse review: copy, copy mode, the grid and the palette, and why a chord can't run."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from screens.host import DashboardHost
    from widgets.terminal_view import TerminalView

    # At run time imported by the copy itself: not before the first frame
    # (ARCHITECTURE.md, "The first frame's import graph").
    from zirv_dash import clipboard


class ReviewActions:
    def __init__(self, screen: DashboardHost) -> None:
        self._screen = screen
        self.last_copy: tuple[clipboard.Outcome, str] | None = None
        """The outcome and notice of the latest copy (tests and diagnostics)."""
        self.last_opened: tuple[str, str | None] | None = None
        """The latest link handed to the opener, and its error (tests and diagnostics)."""

    # -- copy ---------------------------------------------------------------------------

    def copy_text(self, text: str) -> None:
        """Put `text` on the clipboard: OSC 52 now, the platform command on a worker."""
        self._platform_copy(text, self.write_osc52(text))

    def write_osc52(self, text: str) -> bool:
        """OSC 52 to the real terminal (Textual's own clipboard path); False headless."""
        app = self._screen.app
        if app.is_headless:
            return False
        try:
            app.copy_to_clipboard(text)
        except Exception:  # noqa: BLE001 - a closed terminal is a failed copy, not a crash
            return False
        return True

    def _platform_copy(self, text: str, osc_written: bool) -> None:
        app = self._screen.app

        from zirv_dash import clipboard

        def run() -> None:
            result = clipboard.run_platform_copy(text)
            app.call_from_thread(self._copy_done, osc_written, result)

        self._screen.run_worker(run, thread=True, group="clipboard", exit_on_error=False)

    def _copy_done(self, osc_written: bool, result: clipboard.CommandResult) -> None:
        from zirv_dash import clipboard

        outcome = clipboard.outcome(osc_written, result)
        text = clipboard.describe(outcome, osc_written, result)
        self.last_copy = (outcome, text)
        if outcome is clipboard.Outcome.FAILED:
            self._screen.dash.error(text)
        else:
            self._screen.dash.notify(text)

    # -- hyperlinks -----------------------------------------------------------------------

    def open_link(self, uri: str) -> None:
        """Ask, then open `uri` (http, https, file) with the platform's opener."""
        from screens.open_link import OpenLinkScreen
        from zirv_dash.dash import hyperlinks

        screen = self._screen
        why = hyperlinks.refusal(uri)
        if why is not None:
            screen.dash.error(why)
            return

        def run() -> None:
            error = hyperlinks.open_uri(uri)
            screen.app.call_from_thread(self._opened, uri, error)

        def answered(yes: bool | None) -> None:
            screen.chrome.schedule()
            if yes:
                screen.run_worker(run, thread=True, group="links", exit_on_error=False)

        screen.app.push_screen(OpenLinkScreen(uri), answered)

    def _opened(self, uri: str, error: str | None) -> None:
        self.last_opened = (uri, error)
        if error is None:
            self._screen.dash.notify(f"opened {uri[:80]}")
        else:
            self._screen.dash.error(error)

    # -- grid, copy mode, palette ------------------------------------------------------

    def action_grid(self) -> None:
        from screens.grid import GridScreen

        screen = self._screen
        if not screen.dash.panes:
            screen.dash.notify("grid: no panes")
            return

        def done(short: str | None) -> None:
            for index, pane in enumerate(screen.dash.panes):
                if short is not None and pane.short == short:
                    screen.engine.focus(index)
                    return

        screen.app.push_screen(GridScreen(screen.dash, screen.chrome.tick), done)

    def action_copy_mode(self) -> None:
        from screens.copy_mode import CopyModeScreen

        screen = self._screen
        view = self.focused_view()
        if view is None or not view.display:
            screen.dash.notify("copy mode: no pane")
            return
        view.clear_selection()
        overlay = CopyModeScreen(
            view.pane, lambda: view.region, self.copy_text, screen.dash.notify, self.open_link
        )
        screen.app.push_screen(overlay, lambda _: screen.chrome.schedule())

    def action_palette(self) -> None:
        from screens.palette import PaletteScreen, build_entries

        screen = self._screen
        entries = build_entries(
            screen.keys.keymap, screen.unavailable, pane_count=max(1, len(screen.dash.panes))
        )

        def done(action: str | None) -> None:
            if action:
                screen.run_chord(action)

        screen.app.push_screen(PaletteScreen(entries), done)

    def unavailable(self, action: str) -> str | None:
        """Why `action` cannot run right now (palette, menus, hints), or None."""
        dash = self._screen.dash
        pane = dash.focused_pane
        if action.startswith("focus_"):
            number = int(action.split("_")[1])
            if number > len(dash.panes):
                return f"there is no pane {number}"
            if not dash.panes[number - 1].alive:
                return "this pane has ended"
            return None
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

    def focused_view(self) -> TerminalView | None:
        pane = self._screen.dash.focused_pane
        return None if pane is None else self._screen.views.get(pane.short)
