"""The dashboard screen: layout, and the adapter between the engine and Textual.

The engine (`zirv_dash.runtime`) owns the panes and every byte to and from them;
this screen mounts one `TerminalView` per pane, turns engine events into view
refreshes and one debounced chrome refresh (`screens.chrome`), and runs chords
through the controllers named by concern (`*_actions`, `input_router`).
`check_action` is the single "can this run now" answer the palette, menus and
hints share.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual._context import active_app
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget

from screens.broadcast_actions import BroadcastActions
from screens.chords import Chords
from screens.chrome import Chrome
from screens.focus_report import FocusReporter
from screens.handover_actions import HandoverActions
from screens.input_router import WHEEL_STEP, InputRouter
from screens.key_gate import NotReady
from screens.kitty_input import event_type
from screens.lifecycle_actions import LifecycleActions
from screens.line_compositor import LineCompositor
from screens.mail_actions import MailActions
from screens.pane_actions import PaneActions
from screens.pane_views import PaneViews
from screens.review_actions import ReviewActions
from screens.roster_actions import RosterActions
from widgets.footer_bar import FooterBar
from widgets.header_bar import HeaderBar
from widgets.pane_area import PaneArea
from widgets.pane_header import PaneHeader
from widgets.sidebar import Sidebar
from widgets.terminal_view import TerminalView
from zirv_dash import paths
from zirv_dash.cli.launch import LaunchOptions
from zirv_dash.cli.opening_frame import SIDEBAR_MIN_COLUMNS
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.keymap import ACTION_BY_ID, ACTIONS, PrefixFilter, describe_key
from zirv_dash.runtime import Engine
from zirv_dash.runtime.events import EngineEvent

if TYPE_CHECKING:
    from widgets.native_pane import NativePane
    from zirv_dash import clipboard
    from zirv_dash.remote import engine_links

log = logging.getLogger("zirv.dashboard")


def in_app_context(listener: Callable[[EngineEvent], None]) -> Callable[[EngineEvent], None]:
    """`listener` run in the App's context, whoever emits.

    A hosted dashboard's engine was started by the runtime, outside Textual: its
    reader and timer callbacks carry no active App, and Textual calls made from
    them (a view's repaint timer) would fail. Events emitted from the App's own
    handlers already run in its context (and a context cannot be entered twice)."""
    context = contextvars.copy_context()
    app = active_app.get()

    def relay(event: EngineEvent) -> None:
        if active_app.get(None) is app:
            listener(event)
        else:
            context.run(listener, event)

    return relay


class DashboardScreen(Screen[None], inherit_bindings=False):
    BINDINGS: ClassVar[list[BindingType]] = []
    CSS_PATH = "dashboard.tcss"
    AUTO_FOCUS = None

    def __init__(self, options: LaunchOptions) -> None:
        super().__init__()
        # A keystroke's frame renders the lines it repaints, not every line of
        # every widget around them (see screens.line_compositor).
        self._compositor = LineCompositor()
        self.options = options
        if options.engine is not None:
            # Hosted by the runtime: its engine, started before us and outliving us.
            self.engine = options.engine
            self.dash = options.engine.dash
        elif options.started is not None:
            # Ours, with the first pane already running (spawned before the UI loaded).
            self.engine = options.started
            self.dash = options.started.dash
        else:
            self.dash = Dashboard(
                options.settings, options.repo, options.gate, manage_state=options.manage_state
            )
            self.engine = Engine(self.dash, session_ids=options.session_ids)
        self.keys = PrefixFilter(options.keymap)
        self.pane_views = PaneViews(self)
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
        self.focus_report = FocusReporter(self.engine.pane)
        self.chords = Chords(
            self,
            (
                self.panes,
                self.mail,
                self.lifecycle,
                self.handover,
                self.review,
                self.broadcast,
                self.roster,
            ),
        )
        self._unsubscribe: Callable[[], None] | None = None
        self.remote_links: engine_links.EngineLinks | None = None
        """The links to the operator's remote hosts, for an in-process dashboard (a
        runtime that hosts the dashboard opens its own: remote/engine_links.py)."""

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
        listener = self.pane_views.on_event
        if self.hosted:
            listener = in_app_context(listener)  # type: ignore[assignment]
        self._unsubscribe = self.engine.subscribe(listener)
        # What children that ask (OSC 10/11) hear, before any of their output is
        # read: the outer terminal's colours, or no answer when it gave none.
        self.dash.default_colors = colors = self.pane_views.default_colors()
        if self.options.started is not None and colors is not None:
            for pane in self.dash.panes:
                pane.model_view.default_fg_rgb, pane.model_view.default_bg_rgb = colors
        if self.hosted:
            self.pane_views.mount_existing()
        else:
            # Mail, handovers and context windows start once the first frame
            # is drawn (`_start_services`): none of them is on the glass yet.
            self.engine.start(services=False)
            if self.dash.panes:  # spawned before the UI loaded
                self.pane_views.mount_existing()
        self.call_after_refresh(self._start_initial_panes)
        if hasattr(self.app, "input_ready"):
            self.app.input_ready = True  # keys may come straight to the gate now

    @property
    def hosted(self) -> bool:
        """The runtime's dashboard: its engine and panes are not ours to end."""
        return self.options.engine is not None

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self.remote_links is not None:
            self.remote_links.close_now()  # detach: the remote sessions run on
        if not self.hosted:
            self.engine.close()
        self.input.close()

    def _start_initial_panes(self) -> None:
        self._sync_pane_size()
        opts = self.options
        if self.hosted:
            # The runtime already watches the spawn channel; a fresh orchestrator
            # only when it holds no live pane (as `zirv chat` would open one).
            if not self.dash.live_panes:
                self.engine.spawn(opts.agent, model=opts.model, role="orchestrator")
                self.engine.focus(0)
            elif self.dash.focused_pane is None:  # panes started over the protocol
                self.engine.focus(self.dash.panes.index(self.dash.live_panes[0]))
            return
        if opts.started is None:  # else spawned (or refused) before the UI loaded
            self.engine.spawn(opts.agent, model=opts.model, role="orchestrator")
        if opts.agent == "demo" and opts.agent_reason not in ("", "configured"):
            self.dash.notify(opts.agent_reason)
        for agent, prompt in opts.initial_panes:
            self.engine.spawn(agent, prompt=prompt, focus=False)
        self.engine.focus(0)
        if opts.manage_state:
            # Imported here: no cost on the first frame (ssh links start after it).
            from zirv_dash.remote.engine_links import EngineLinks

            self.remote_links = EngineLinks(self.engine)
            self.remote_links.start()
        # The orchestrator exists (and named the token dir) before the channel is
        # watched and the restore offer counts live panes.
        self.engine.intake.begin()
        self.call_after_refresh(self.engine.start_services)

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
            self.pane_views.redraw_all()

    def on_screen_suspend(self) -> None:
        self.focus_report.covered(True)  # an overlay is up: the pane lost the focus

    def on_screen_resume(self) -> None:
        self.focus_report.covered(False)
        focused = self.dash.focused_pane
        self.focus_report.pane(focused.short if focused is not None else None)

    def overlay_open(self) -> bool:
        return len(self.app.screen_stack) > 1 and self.app.screen is not self

    def close_app(self, code: int) -> None:
        if self.hosted:
            # Every pane ended: the client leaves, and the next attach starts afresh.
            self.app.exit(code)
            return
        self.engine.quitting = True
        self.app.exit(code)

    # -- pane widgets ------------------------------------------------------------------

    @property
    def views(self) -> dict[str, TerminalView]:
        return self.pane_views.views

    @property
    def native_views(self) -> dict[str, NativePane]:
        return self.pane_views.native_views

    def focused_native(self) -> NativePane | None:
        return self.pane_views.focused_native()

    def pane_widget(self, short: str) -> Widget | None:
        return self.pane_views.widget(short)

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
        self.input.key(event.key, event.character, event_type(event))

    def route_input(self, event: events.Key | events.Paste) -> Widget | NotReady | None:
        """Keys and pastes from the App's key gate, in arrival order; returns the
        widget the gate forwards it to instead (a native pane's), else None."""
        if isinstance(event, events.Key):
            return self.input.key(event.key, event.character, event_type(event))
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
        """Ctrl+Q (or a second Ctrl+C) in a native pane ends that pane only. Ctrl+Q
        asks first while the pane is not idle, as Ctrl+A q does for the dashboard;
        an ended native pane can be restored from its journal (its row's menu)."""
        message.stop()
        pane = self.pane_views.native_pane_of(message.pane)
        if pane is None:
            return
        if message.confirmed:
            self.engine.close_native(pane)
        else:
            self.panes.close_native(pane)

    def on_native_pane_error_raised(self, message: NativePane.ErrorRaised) -> None:
        message.stop()
        pane = self.pane_views.native_pane_of(message.pane)
        self.dash.error(f"native pane {pane.short if pane else '?'}: {message.text}")

    def on_native_pane_state_changed(self, message: NativePane.StateChanged) -> None:
        message.stop()  # the engine reads the session itself; the chrome redraws
        self.chrome.schedule()

    def on_terminal_view_copy_request(self, message: TerminalView.CopyRequest) -> None:
        message.stop()
        self.review.copy_text(message.text)

    def on_terminal_view_open_link(self, message: TerminalView.OpenLink) -> None:
        message.stop()
        self.review.open_link(message.uri)

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

    def unavailable(self, action: str) -> str | None:
        """Why chord `action` cannot run now (palette, hints), or None."""
        return self.chords.unavailable(action)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.chords.unavailable(action) is None

    def run_chord(self, action: str) -> None:
        self.chords.run(action)
