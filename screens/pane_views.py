"""One widget per pane, and engine events turned into what the glass shows.

A terminal pane gets a `TerminalView`, a native pane a `NativePane`; exactly one
(the focused pane's) is displayed. Output marks that view's rows dirty; every
other event asks for one debounced chrome refresh.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget

from widgets.terminal_view import TerminalView
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime import events as ev
from zirv_dash.runtime.native_pane import NativeSessionPane

if TYPE_CHECKING:
    from screens.host import DashboardHost
    from widgets.native_pane import NativePane


class PaneViews:
    def __init__(self, screen: DashboardHost) -> None:
        self._screen = screen
        self.views: dict[str, TerminalView] = {}
        self.native_views: dict[str, NativePane] = {}
        self.ended_code = 0
        """What a quit returns once every pane had ended on its own: 1 when one
        of them failed (as `zirv chat` returned when it closed by itself)."""

    # -- engine events -------------------------------------------------------------------

    def on_event(self, event: ev.EngineEvent) -> None:
        screen = self._screen
        if isinstance(event, ev.PaneOutput):
            view = self.views.get(event.short)
            if view is not None:
                view.output_changed()
            screen.chrome.pane_output(event.short)  # a key's echo (the chrome waits for it)
            return
        if isinstance(event, ev.PaneAdded):
            self.ended_code = 0
            self._mount(event.short)
        elif isinstance(event, ev.PaneReplaced | ev.PaneEnded):
            view = self.views.get(event.short)
            if view is not None:
                view.full_refresh()
        elif isinstance(event, ev.PaneRemoved):
            gone = self.widget(event.short)
            self.views.pop(event.short, None)
            self.native_views.pop(event.short, None)
            if gone is not None:
                gone.remove()
            self.show_focused()
        elif isinstance(event, ev.FocusChanged):
            self.show_focused()
            screen.focus_report.pane(event.short)
        elif isinstance(event, ev.RestoreOffered):
            screen.lifecycle.offer_restore(event.panes)
        elif isinstance(event, ev.AllEnded):
            # The dashboard stays: the ended pane shows how it ended, and the
            # user restarts it or quits (closing at once hid the exit status).
            self.ended_code = event.exit_code
            screen.lifecycle.all_ended()
        elif isinstance(event, ev.Closed):
            screen.app.exit(self.ended_code if not screen.dash.live_panes else 0)
        screen.chrome.on_event(event)

    # -- widgets -------------------------------------------------------------------------

    def mount_existing(self) -> None:
        """A view for every pane the engine already holds (a hosted dashboard
        starts over a running engine: those panes were added before it)."""
        for pane in list(self._screen.dash.panes):
            self._mount(pane.short)
        self.show_focused()

    def _mount(self, short: str) -> None:
        screen = self._screen
        pane = screen.engine.pane(short)
        if pane is None or short in self.views or short in self.native_views:
            return
        if isinstance(pane, NativeSessionPane) and pane.session is not None:
            # A native pane draws its session; one whose route failed shows why
            # in a terminal view like any pane that could not start.
            from widgets.native_pane import NativePane

            native = NativePane(pane.session, id=f"pane-{short}")
            native.display = False
            self.native_views[short] = native
            screen.query_one("#panes").mount(native)
            return

        def send(data: bytes, typed: bool) -> None:
            screen.engine.send_input(data, typed=typed, short=short)

        view = TerminalView(pane, send=send, id=f"pane-{short}")
        view.display = False
        self.views[short] = view
        screen.query_one("#panes").mount(view)

    def widget(self, short: str) -> Widget | None:
        return self.views.get(short) or self.native_views.get(short)

    def focused_native(self) -> NativePane | None:
        """The focused pane's native view (keys go to it through Textual)."""
        focused = self._screen.dash.focused_pane
        return None if focused is None else self.native_views.get(focused.short)

    def native_pane_of(self, widget: NativePane) -> Pane | None:
        short = next((k for k, v in self.native_views.items() if v is widget), None)
        return self._screen.engine.pane(short) if short is not None else None

    def show_focused(self) -> None:
        screen = self._screen
        focused = screen.dash.focused_pane
        for short, native in self.native_views.items():
            visible = focused is not None and short == focused.short
            if native.display != visible:
                native.display = visible
            if visible:
                native.focus_composer()
        for short, view in self.views.items():
            visible = focused is not None and short == focused.short
            if view.display != visible:
                view.display = visible
            if visible:
                view.full_refresh()
                view.focus()
            view.clear_selection()  # a focus change ends any selection
        screen.chrome.schedule()

    def default_colors(self) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
        """The colours children that ask (OSC 10/11) are told: the outer
        terminal's when it told us at start-up, else None, and the query goes
        unanswered, as tmux leaves it. The theme's colours are not what the
        glass shows around the child (its cells use the terminal's defaults),
        so a child told them would theme itself for a terminal it is not in."""
        return self._screen.options.outer.colors

    def redraw_all(self) -> None:
        for view in self.views.values():
            view.full_refresh()
