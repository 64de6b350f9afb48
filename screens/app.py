"""The Textual App: global concerns only (services, screens, terminal setup).

Textual's own default bindings (Ctrl+Q quit, Ctrl+C, Ctrl+P palette, Tab focus)
would steal keys from agents, so the App inherits none and disables the command
palette; every key reaches the dashboard screen, which routes it.

The outer terminal's real cursor is shown where the focused pane's cursor is,
with the shape the child asked for: Textual hides the cursor at start and moves
it to `App.cursor_position` at the end of every frame, so each frame sets that
position from the focused pane and, like tmux, hides the cursor while drawing
and shows it (with its DECSCUSR shape) once the frame is complete — inside the
synchronized-update bracket when the terminal has one.
"""

from __future__ import annotations

import gc
import sys
from typing import ClassVar

from rich.color import ColorSystem
from textual import constants, events
from textual._context import active_app, active_message_pump
from textual.app import App
from textual.binding import BindingType
from textual.driver import Driver
from textual.geometry import Offset

from screens.key_gate import InputEvent, KeyGate
from widgets.terminal_style import set_sgr_support
from zirv_dash.cli.launch import LaunchOptions as LaunchOptions
from zirv_dash.dash.dashboard import Dashboard

_COLOR_SYSTEMS = {
    "truecolor": ColorSystem.TRUECOLOR,
    "256": ColorSystem.EIGHT_BIT,
    "standard": ColorSystem.STANDARD,
}
HIDE_CURSOR = "\x1b[?25l"
SHOW_CURSOR = "\x1b[?25h"


SWITCH_INTERVAL = 0.0005
"""Seconds of Python before the loop's thread hands the GIL to a waiting thread."""


class ZirvApp(App[int], inherit_bindings=False):
    TITLE = "zirv"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = []
    CSS_PATH = "app.tcss"

    def __init__(self, options: LaunchOptions) -> None:
        super().__init__()
        self.options = options
        self.exit_code = 0
        self.dashboard: Dashboard | None = None
        """Set by the dashboard screen; used to stop children if the UI dies."""
        self.key_gate = KeyGate(self, self._deliver_input)
        self.input_ready = False
        """The dashboard screen is mounted: keys from the driver go straight to
        the gate (`take_input`), no longer through the message queue."""
        system = _COLOR_SYSTEMS.get(options.outer.color_system or "")
        if system is not None:
            # Textual builds its console from TEXTUAL_COLOR_SYSTEM or Rich's guess
            # from COLORTERM/TERM; the probe knows better (terminfo, known
            # terminals, [dash] truecolor). Rich down-converts for lesser systems.
            self.console._color_system = system
        # Underline styles and colour, overline: sent only where the terminal draws them.
        set_sgr_support(options.outer.sgr)
        self._cursor_shown = False
        self._cursor_shape_sent = -1
        self._cursor_wanted: int | None = None
        """DECSCUSR shape of the cursor this frame shows, None: hidden."""
        self._typed_ahead = options.outer.typed

    def take_typed_ahead(self) -> bytes:
        """Keys typed before the UI read the terminal (once; the input driver
        feeds them to its parser first)."""
        typed, self._typed_ahead = self._typed_ahead, b""
        return typed

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        if constants.DRIVER is None and driver.__module__ == "textual.drivers.linux_driver":
            # The same driver, asking only for the mouse reports zirv uses
            # (no any-motion tracking); TEXTUAL_DRIVER still wins.
            from screens.driver import ButtonMotionDriver

            return ButtonMotionDriver
        return driver

    @property
    def places_real_cursor(self) -> bool:
        """True when frames reach a real terminal, whose cursor we place."""
        return self._driver is not None and not self.is_headless

    def _focused_cursor(self) -> tuple[Offset, int] | None:
        from widgets.terminal_view import TerminalView

        focused = self.focused
        if isinstance(focused, TerminalView):
            return focused.real_cursor()
        return None

    def _begin_update(self) -> None:
        super()._begin_update()
        try:
            wanted = self._focused_cursor()
        except Exception:  # noqa: BLE001 - a cursor question must never stop a frame
            wanted = None
        if wanted is not None:
            self.cursor_position = wanted[0]
        self._cursor_wanted = None if wanted is None else wanted[1]
        if self._cursor_shown and self._driver is not None:
            # Hidden while the frame draws, so it never flickers across the screen.
            self._driver.write(HIDE_CURSOR)
            self._cursor_shown = False

    def _end_update(self) -> None:
        shape = self._cursor_wanted
        if shape is not None and self._driver is not None:
            sequence = SHOW_CURSOR
            if shape != self._cursor_shape_sent:
                sequence = f"\x1b[{shape} q" + sequence
                self._cursor_shape_sent = shape
            self._driver.write(sequence)
            self._cursor_shown = True
        super()._end_update()

    def _resumed(self, _app: App[int]) -> None:
        """Back from `suspend()` (an editor ran): that program left the cursor as
        it liked, so the next frame sends its shape and visibility again."""
        self._cursor_shape_sent = -1
        self._cursor_shown = True  # hidden again before the frame draws

    def take_input(self, event: InputEvent) -> None:
        """A key or paste from the terminal's driver, on the loop: to the gate,
        as `on_event` hands it (the driver skips the message queue for these)."""
        if self._closing or self._closed:
            return  # as the closed queue would drop it
        if not self.input_ready or not self._message_queue.empty():
            # Before the dashboard is up (keys typed at start), or behind keys
            # still queued that way: the queue, in order.
            self.post_message(event)
            return
        # The context the app's own message loop runs its handlers in.
        app_token = active_app.set(self)
        pump_token = active_message_pump.set(self)
        try:
            self.key_gate.offer(event)
        except Exception as error:  # noqa: BLE001 - as a handler's error would
            self._handle_exception(error)
        finally:
            active_message_pump.reset(pump_token)
            active_app.reset(app_token)

    async def on_event(self, event: events.Event) -> None:
        # Every key and paste from the terminal passes the gate first, so a
        # chord that opens an overlay owns the keys typed after it (in order).
        if (
            isinstance(event, events.Key | events.Paste)
            and not event.is_forwarded
            and self.key_gate.offer(event)
        ):
            return
        await super().on_event(event)

    def on_app_focus(self, _event: events.AppFocus) -> None:
        self._window_focus(True)

    def on_app_blur(self, _event: events.AppBlur) -> None:
        self._window_focus(False)

    def _window_focus(self, focused: bool) -> None:
        """The outer terminal's focus moved: the focused pane's child hears of it (1004)."""
        from screens.dashboard import DashboardScreen

        for screen in self.screen_stack:
            if isinstance(screen, DashboardScreen):
                screen.focus_report.window(focused)

    async def _deliver_input(self, event: InputEvent) -> None:
        await super().on_event(event)

    def on_mount(self) -> None:
        from screens.dashboard import DashboardScreen

        # Parsing floods of output allocates many short-lived objects; full
        # collections of the long-lived UI graph would stall typing. Freeze what
        # exists at start and collect the young generations less often. `zirv
        # chat` paused the collector for the start-up (what it would have found
        # by now is a few hundred objects, frozen with the rest): on again here.
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)
        gc.enable()
        # A frame is written by Textual's output thread and a key read by its
        # input thread; each waits for the loop's thread to let go of the GIL,
        # by default after up to 5 ms of Python (a frame being rendered). Those
        # threads are idle nearly always, so asking for the GIL back sooner
        # costs nothing until one of them has a key or a frame to pass on.
        sys.setswitchinterval(SWITCH_INTERVAL)
        self.app_resume_signal.subscribe(self, self._resumed)

        self.push_screen(DashboardScreen(self.options))


def run_dashboard(options: LaunchOptions) -> int:
    app = ZirvApp(options)
    if options.on_takeover is not None:
        options.on_takeover()
    try:
        result = app.run(mouse=options.settings.dash.mouse)
    finally:
        # However the app ended (quit, crash, signal), no child outlives it.
        # Textual has already restored the terminal by the time run() returns.
        if app.dashboard is not None and app.dashboard.live_panes:
            app.dashboard.shutdown_all(grace=1.0)
        if app._cursor_shape_sent > 0:
            # A child's cursor shape must not outlive the dashboard.
            sys.stdout.write("\x1b[0 q")
            sys.stdout.flush()
    return result if isinstance(result, int) else app.exit_code
