"""The dashboard screen: layout, and the adapter between the engine and Textual.

The engine (`zirv_dash.runtime`) owns the panes and every byte to and from them;
this screen mounts one `TerminalView` per pane, turns engine events into view
refreshes and one debounced chrome refresh (`screens.chrome`), and runs chords
through the controllers named by concern (`*_actions`, `input_router`).
`check_action` is the single "can this run now" answer the palette, menus and
hints share.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.color import Color, ColorParseError
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget

from screens.broadcast_actions import BroadcastActions
from screens.chrome import Chrome
from screens.handover_actions import HandoverActions
from screens.input_router import WHEEL_STEP, InputRouter
from screens.lifecycle_actions import LifecycleActions
from screens.mail_actions import MailActions
from screens.pane_actions import PaneActions
from screens.review_actions import ReviewActions
from screens.roster_actions import RosterActions
from widgets.footer_bar import FooterBar
from widgets.header_bar import HeaderBar
from widgets.native_pane import NativePane
from widgets.pane_area import PaneArea
from widgets.pane_header import PaneHeader
from widgets.sidebar import Sidebar
from widgets.terminal_view import TerminalView
from zirv_dash import clipboard, paths
from zirv_dash.dashboard import Dashboard
from zirv_dash.keymap import ACTION_BY_ID, ACTIONS, PrefixFilter, describe_key
from zirv_dash.launch import LaunchOptions
from zirv_dash.pane import Pane
from zirv_dash.runtime import Engine
from zirv_dash.runtime import events as ev
from zirv_dash.runtime.native_pane import NativeSessionPane

log = logging.getLogger("zirv.dashboard")

SIDEBAR_MIN_COLUMNS = 100
NATIVE_UNAVAILABLE = {
    "handover": "a native pane has no harness to hand over (its route is in native.toml)",
    "copy_mode": "a native pane's transcript scrolls and copies itself",
}
"""Chords that act on a pane's child or terminal screen: not for a native pane."""


class DashboardScreen(Screen[None], inherit_bindings=False):
    BINDINGS: ClassVar[list[BindingType]] = []
    CSS_PATH = "dashboard.tcss"
    AUTO_FOCUS = None

    def __init__(self, options: LaunchOptions) -> None:
        super().__init__()
        self.options = options
        self.dash = Dashboard(
            options.settings, options.repo, options.gate, manage_state=options.manage_state
        )
        self.engine = Engine(self.dash, session_ids=options.session_ids)
        self.keys = PrefixFilter(options.keymap)
        self.views: dict[str, TerminalView] = {}
        self.native_views: dict[str, NativePane] = {}
        self.tip: str | None = None
        self.chrome = Chrome(self)
        self.input = InputRouter(self)
        self.panes = PaneActions(self)
        self.mail = MailActions(self)
        self.lifecycle = LifecycleActions(self)
        self.handover = HandoverActions(self)
        self.review = ReviewActions(self)
        self.broadcast = BroadcastActions(self)
        self.roster = RosterActions(self)
        self._controllers: tuple[object, ...] = (
            self.panes,
            self.mail,
            self.lifecycle,
            self.handover,
            self.review,
            self.broadcast,
            self.roster,
        )
        self._unsubscribe: Callable[[], None] | None = None

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield HeaderBar(id="header")
        with Horizontal(id="body"):
            yield Sidebar(id="sidebar")
            with Vertical(id="main"):
                yield PaneHeader(id="pane-header")
                yield PaneArea(id="panes")
        yield FooterBar(id="footer")

    def on_mount(self) -> None:
        if self.options.manage_state and not self._tip_path().exists():
            prefix = describe_key(self.options.keymap.prefix)
            self.tip = f"{prefix} ? help · {prefix} p palette · click a row to focus"
        # The app keeps a handle so it can stop every child if the UI dies.
        if hasattr(self.app, "dashboard"):
            self.app.dashboard = self.dash
        self.query_one(Sidebar).styles.width = self.options.settings.dash.sidebar_cols
        self.apply_layout()
        self._unsubscribe = self.engine.subscribe(self._on_engine_event)
        self.engine.start()
        self.call_after_refresh(self._start_initial_panes)

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.engine.close()
        self.input.close()

    def _start_initial_panes(self) -> None:
        self._sync_pane_size()
        self.dash.default_colors = self._pane_colors()
        opts = self.options
        self.engine.spawn(opts.agent, model=opts.model, role="orchestrator")
        if opts.agent == "demo" and opts.agent_reason not in ("", "configured"):
            self.dash.notify(opts.agent_reason)
        for agent, prompt in opts.initial_panes:
            self.engine.spawn(agent, prompt=prompt, focus=False)
        self.engine.focus(0)
        # The orchestrator exists (and named the token dir) before the channel is
        # watched and the restore offer counts live panes.
        self.engine.intake.begin()

    def on_resize(self, event: events.Resize) -> None:
        self.apply_layout()

    def on_pane_area_resized(self, message: PaneArea.Resized) -> None:
        self._sync_pane_size()

    def _tip_path(self) -> Path:
        return paths.state_dir() / "dash" / "tip-seen"

    def dismiss_tip(self) -> None:
        """The first chord you use retires the first-run tip, for good."""
        if self.tip is None:
            return
        self.tip = None
        try:
            paths.atomic_write(self._tip_path(), "1\n")
        except OSError as exc:
            log.warning("tip-seen: %s", exc)

    def _pane_colors(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """The colours a pane is drawn with, for children that ask (OSC 10/11):
        the terminal's own when it told us at start-up, else the theme's."""
        if self.options.outer.colors is not None:
            return self.options.outer.colors
        variables = self.app.get_css_variables()
        try:
            fg = Color.parse(variables.get("foreground", "#e0e0e0")).rgb
            bg = Color.parse(variables.get("background", "#121212")).rgb
        except ColorParseError:
            return (0xE0, 0xE0, 0xE0), (0x12, 0x12, 0x12)
        return fg, bg

    def sidebar_visible(self) -> bool:
        if self.dash.zoomed:
            return False
        if self.dash.sidebar_forced is not None:
            return self.dash.sidebar_forced
        return self.size.width >= SIDEBAR_MIN_COLUMNS

    def apply_layout(self) -> None:
        zoomed = self.dash.zoomed
        for name in ("#header", "#footer", "#pane-header"):
            self.query_one(name).display = not zoomed
        self.query_one(Sidebar).display = self.sidebar_visible()
        self.chrome.schedule()

    def _sync_pane_size(self) -> None:
        region = self.query_one("#panes").size
        if region.width > 0 and region.height > 0:
            self.engine.resize(region.width, region.height)
            for view in self.views.values():
                view.full_refresh()

    def overlay_open(self) -> bool:
        return len(self.app.screen_stack) > 1 and self.app.screen is not self

    def close_app(self, code: int) -> None:
        self.engine.quitting = True
        self.app.exit(code)

    # -- engine events -------------------------------------------------------------------

    def _on_engine_event(self, event: ev.EngineEvent) -> None:
        if isinstance(event, ev.PaneOutput):
            view = self.views.get(event.short)
            if view is not None:
                view.output_changed()
            return
        if isinstance(event, ev.PaneAdded):
            self._mount_view(event.short)
        elif isinstance(event, ev.PaneReplaced | ev.PaneEnded):
            view = self.views.get(event.short)
            if view is not None:
                view.full_refresh()
        elif isinstance(event, ev.PaneRemoved):
            gone = self.pane_widget(event.short)
            self.views.pop(event.short, None)
            self.native_views.pop(event.short, None)
            if gone is not None:
                gone.remove()
            self._show_focused()
        elif isinstance(event, ev.FocusChanged):
            self._show_focused()
        elif isinstance(event, ev.RestoreOffered):
            self.lifecycle.offer_restore(event.panes)
        elif isinstance(event, ev.AllEnded):
            if not self.overlay_open():
                self.close_app(event.exit_code)
        elif isinstance(event, ev.Closed):
            self.app.exit(0)
        self.chrome.on_event(event)

    def _mount_view(self, short: str) -> None:
        pane = self.engine.pane(short)
        if pane is None or short in self.views or short in self.native_views:
            return
        if isinstance(pane, NativeSessionPane) and pane.session is not None:
            # A native pane draws its session; one whose route failed shows why
            # in a terminal view like any pane that could not start.
            native = NativePane(pane.session, id=f"pane-{short}")
            native.display = False
            self.native_views[short] = native
            self.query_one("#panes").mount(native)
            return

        def send(data: bytes, typed: bool) -> None:
            self.engine.send_input(data, typed=typed, short=short)

        view = TerminalView(pane, send=send, id=f"pane-{short}")
        view.display = False
        self.views[short] = view
        self.query_one("#panes").mount(view)

    def focused_native(self) -> NativePane | None:
        """The focused pane's native view (keys go to it through Textual)."""
        focused = self.dash.focused_pane
        return None if focused is None else self.native_views.get(focused.short)

    def pane_widget(self, short: str) -> Widget | None:
        return self.views.get(short) or self.native_views.get(short)

    def _show_focused(self) -> None:
        focused = self.dash.focused_pane
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
        self.chrome.schedule()

    def redraw_focused(self) -> None:
        view = self.review.focused_view()
        if view is not None:
            view.full_refresh()
        self.chrome.schedule()

    # -- input ---------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        if self.focused_native() is not None:
            return  # forwarded to the native pane by the gate: Textual's own handling
        event.prevent_default()
        event.stop()
        self.input.key(event.key, event.character)

    def route_input(self, event: events.Key | events.Paste) -> Widget | None:
        """Keys and pastes from the App's key gate, in arrival order; returns the
        widget the gate forwards it to instead (a native pane's), else None."""
        if isinstance(event, events.Key):
            return self.input.key(event.key, event.character)
        return self.input.paste(event.text)

    def on_paste(self, event: events.Paste) -> None:
        if self.focused_native() is not None:
            return  # the gate forwarded it to the native pane's composer
        event.stop()
        self.input.paste(event.text)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.input.wheel(event, WHEEL_STEP)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.input.wheel(event, -WHEEL_STEP)

    def on_native_pane_close_requested(self, message: NativePane.CloseRequested) -> None:
        """Ctrl+Q (or a second Ctrl+C) in a native pane ends that pane only."""
        message.stop()
        pane = self._native_pane_of(message.pane)
        if pane is not None:
            self.engine.close_native(pane)

    def on_native_pane_error_raised(self, message: NativePane.ErrorRaised) -> None:
        message.stop()
        pane = self._native_pane_of(message.pane)
        self.dash.error(f"native pane {pane.short if pane else '?'}: {message.text}")

    def on_native_pane_state_changed(self, message: NativePane.StateChanged) -> None:
        message.stop()  # the engine reads the session itself; the chrome redraws
        self.chrome.schedule()

    def _native_pane_of(self, widget: NativePane) -> Pane | None:
        short = next((k for k, v in self.native_views.items() if v is widget), None)
        return self.engine.pane(short) if short is not None else None

    def on_terminal_view_copy_request(self, message: TerminalView.CopyRequest) -> None:
        message.stop()
        self.review.copy_text(message.text)

    def on_header_bar_hint_clicked(self, message: HeaderBar.HintClicked) -> None:
        message.stop()
        action = message.action
        if action not in ACTION_BY_ID:
            action = next((a.id for a in ACTIONS if a.label == action), action)
        self.run_chord(action)

    def on_sidebar_row_clicked(self, message: Sidebar.RowClicked) -> None:
        pane = self.dash.pane_by_short(message.key)
        if pane is None:
            return
        if message.button == 1:
            self.engine.focus(self.dash.panes.index(pane))
        elif message.button == 3:
            # Right-click: that row's menu; focus stays where it was (a peek at a
            # row's actions must not move the keyboard to it).
            self.lifecycle.action_context_menu(pane, keep_focus=True)

    # -- chords ----------------------------------------------------------------------------

    @property
    def last_copy(self) -> tuple[clipboard.Outcome, str] | None:
        return self.review.last_copy

    def _handler(self, action: str) -> Callable[[], Any] | None:
        for controller in self._controllers:
            handler: Callable[[], Any] | None = getattr(controller, f"action_{action}", None)
            if handler is not None:
                return handler
        return None

    def unavailable(self, action: str) -> str | None:
        """Why chord `action` cannot run now (palette, hints), or None."""
        if not action.startswith("focus_") and self._handler(action) is None:
            return "not available in this build"
        if action in NATIVE_UNAVAILABLE and self.focused_native() is not None:
            return NATIVE_UNAVAILABLE[action]
        return self.review.unavailable(action)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.unavailable(action) is None

    def run_chord(self, action: str) -> None:
        """Run a keymap action (from a chord, the palette, a menu or a hint)."""
        why = NATIVE_UNAVAILABLE.get(action) if self.focused_native() is not None else None
        if why is not None:
            self.dash.notify(f"{action.replace('_', ' ')}: {why}")
        elif action.startswith("focus_"):
            self.panes.action_focus(int(action.split("_")[1]) - 1)
        else:
            handler = self._handler(action)
            if handler is None:
                self.dash.notify(f"{action.replace('_', ' ')}: not available yet")
            else:
                handler()
        self.chrome.schedule()
