"""The dashboard screen: layout, key routing, PTY I/O scheduling, chrome updates.

I/O model. Each pane's PTY fd is watched with `loop.add_reader`; the callback only
moves bytes into the pane's inbox (cheap). A single pump task parses inboxes in
slices of at most PARSE_SLICE seconds — the focused pane first — and yields to
the event loop between slices, so keystrokes and prefix chords are handled
within one slice even while every other pane floods. A pane whose inbox passes
its high-water mark stops being read until it drains: the child then blocks on
write, the same back-pressure a slow terminal applies.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from pathlib import Path
from typing import ClassVar

from textual import events, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.color import Color, ColorParseError
from textual.containers import Horizontal, Vertical
from textual.screen import Screen

from screens.app import LaunchOptions, ZirvApp
from screens.handover_actions import HandoverActions
from screens.knowledge import KnowledgeScreen
from screens.lifecycle_actions import LifecycleActions
from screens.outer_notify import announce as announce_outer
from screens.review_actions import ReviewActions
from screens.sessions_actions import SessionsActions
from widgets.footer_bar import FooterBar
from widgets.glyphs import SPINNER_PERIOD
from widgets.header_bar import HeaderBar, HeaderFacts, Tab
from widgets.pane_area import PaneArea
from widgets.pane_header import PaneHeader, PaneHeaderFacts
from widgets.sidebar import RosterRow, Sidebar
from widgets.terminal_view import TerminalView
from zirv_dash import keys as keycodes
from zirv_dash import mail, paths
from zirv_dash import worktree as worktrees
from zirv_dash.dashboard import Dashboard, DashError
from zirv_dash.keymap import ACTION_BY_ID, PrefixFilter, Verdict, describe_key
from zirv_dash.pane import Pane, PaneState
from zirv_dash.textfmt import age_text

log = logging.getLogger("zirv.dashboard")

PARSE_SLICE = 0.001
"""Longest stretch of parsing before the event loop gets a turn (input, timers, paint)."""
PARSE_CHUNK = 4096
BACKGROUND_REST = 2.0
"""While only hidden panes have a backlog, rest this many times the time just spent
parsing: flooding neighbours get at most a third of a core and typing stays prompt."""
SIDEBAR_MIN_COLUMNS = 100
WHEEL_STEP = 3
CHROME_IDLE_PERIOD = 1.0
"""How often the chrome is refreshed when nothing animates (ages, idle transitions)."""


class DashboardScreen(
    SessionsActions,
    LifecycleActions,
    HandoverActions,
    ReviewActions,
    Screen[None],
    inherit_bindings=False,
):
    BINDINGS: ClassVar[list[BindingType]] = []
    CSS_PATH = "dashboard.tcss"
    AUTO_FOCUS = None

    def __init__(self, options: LaunchOptions) -> None:
        super().__init__()
        self.options = options
        self.dash = Dashboard(
            options.settings, options.repo, options.gate, manage_state=options.manage_state
        )
        self.keys = PrefixFilter(options.keymap)
        self.views: dict[str, TerminalView] = {}
        self._wake = asyncio.Event()
        self._readers: dict[int, object] = {}
        self._writers: dict[int, object] = {}
        self._pump_task: asyncio.Task[None] | None = None
        self._tick_timer_fast = False
        self._quitting = False
        self._reap_pending = False
        self._tip: str | None = None
        keylog = os.environ.get("ZIRV_CTX_DASH_KEYLOG")
        self._keylog = open(keylog, "a", encoding="utf-8") if keylog else None  # noqa: SIM115

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
            self._tip = f"{prefix} ? help · {prefix} p palette · click a row to focus"
        # The app keeps a handle so it can stop every child if the UI dies.
        if isinstance(self.app, ZirvApp):
            self.app.dashboard = self.dash
        sidebar = self.query_one(Sidebar)
        sidebar.styles.width = self.options.settings.dash.sidebar_cols
        self._apply_chrome()
        self._pump_task = asyncio.create_task(self._pump_loop())
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGCHLD, self._on_sigchld)
        self.set_interval(1.0, self._slow_tick, name="slow-tick")
        self._chrome_timer = self.set_interval(CHROME_IDLE_PERIOD, self._chrome_tick, name="chrome")
        self.call_after_refresh(self._start_initial_panes)
        self._sessions_mounted()
        self._lifecycle_mounted()
        self._handover_mounted()
        self._review_mounted()

    def _start_initial_panes(self) -> None:
        self._sync_pane_size()
        self.dash.default_colors = self._pane_colors()
        opts = self.options
        self._spawn(opts.agent, model=opts.model, role="orchestrator")
        if opts.agent == "demo" and opts.agent_reason not in ("", "configured"):
            self.dash.notify(opts.agent_reason)
        for agent, prompt in opts.initial_panes:
            self._spawn(agent, prompt=prompt, focus=False)
        self.dash.focus(0)
        self._show_focused()
        self._update_chrome()

    def on_resize(self, event: events.Resize) -> None:
        self._apply_chrome()

    def on_pane_area_resized(self, message: PaneArea.Resized) -> None:
        self._sync_pane_size()

    def _tip_path(self) -> Path:
        return paths.state_dir() / "dash" / "tip-seen"

    def _dismiss_tip(self) -> None:
        """The first chord you use retires the first-run tip, for good."""
        if self._tip is None:
            return
        self._tip = None
        try:
            paths.atomic_write(self._tip_path(), "1\n")
        except OSError as exc:
            log.warning("tip-seen: %s", exc)

    def _pane_colors(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """The colours a pane is drawn with, for children that ask (OSC 10/11).

        Panes draw in the terminal's own default colours: when the terminal told
        us those at start-up they are the truth; otherwise the theme's colours
        are the best guess (they match the chrome around the pane)."""
        if self.options.outer.colors is not None:
            return self.options.outer.colors
        variables = self.app.get_css_variables()
        try:
            fg = Color.parse(variables.get("foreground", "#e0e0e0")).rgb
            bg = Color.parse(variables.get("background", "#121212")).rgb
        except ColorParseError:
            return (0xE0, 0xE0, 0xE0), (0x12, 0x12, 0x12)
        return fg, bg

    def _sidebar_visible(self) -> bool:
        if self.dash.zoomed:
            return False
        if self.dash.sidebar_forced is not None:
            return self.dash.sidebar_forced
        return self.size.width >= SIDEBAR_MIN_COLUMNS

    def _apply_chrome(self) -> None:
        zoomed = self.dash.zoomed
        self.query_one("#header").display = not zoomed
        self.query_one("#footer").display = not zoomed
        self.query_one("#pane-header").display = not zoomed
        self.query_one(Sidebar).display = self._sidebar_visible()

    def _sync_pane_size(self) -> None:
        region = self.query_one("#panes").size
        if region.width > 0 and region.height > 0:
            self.dash.resize_panes(region.width, region.height)
            for view in self.views.values():
                view.full_refresh()

    # -- panes ------------------------------------------------------------------------------

    def _spawn(
        self,
        agent: str,
        *,
        prompt: str | None = None,
        model: str | None = None,
        cwd: str | None = None,
        role: str = "worker",
        focus: bool = True,
    ) -> Pane | None:
        session_id = self.options.session_ids.pop(0) if self.options.session_ids else None
        try:
            pane = self.dash.spawn(
                agent,
                prompt=prompt,
                model=model,
                cwd=cwd,
                role=role,
                focus=focus,
                session_id=session_id,
            )
        except DashError as exc:
            self.dash.error(f"spawn: {exc}")
            self._update_chrome()
            return None
        self._mount_view(pane)
        if focus:
            self._show_focused()
        self._update_chrome()
        return pane

    def _mount_view(self, pane: Pane) -> None:
        """Give a new pane its (hidden) terminal view and start reading its PTY."""
        if pane.short in self.views:
            return
        view = TerminalView(pane, id=f"pane-{pane.short}")
        view.display = False
        self.views[pane.short] = view
        self.query_one("#panes").mount(view)
        self._watch(pane)

    # fd → the object that owns it (a PtySession or a TurnSignalServer). A closed
    # fd's number is reused by the next PTY opened, so a reader is only ever
    # removed by the owner that added it.

    def _watch(self, pane: Pane) -> None:
        loop = asyncio.get_running_loop()
        server = self.dash.signals.get(pane.short)
        if server is not None and server.fileno() not in self._readers:
            loop.add_reader(server.fileno(), self._on_signal, pane)
            self._readers[server.fileno()] = server
        fd = pane.fd
        if fd is None or fd in self._readers:
            return
        loop.add_reader(fd, self._on_readable, pane)
        self._readers[fd] = pane.pty

    def _ensure_flush(self, pane: Pane) -> None:
        """If the child has not taken all its input yet (a big paste), finish the
        write as soon as its PTY can take more, instead of on the next keystroke."""
        pty = pane.pty
        if pty is None or not pty.has_pending_writes or pty.eof or pty.fd in self._writers:
            return
        asyncio.get_running_loop().add_writer(pty.fd, self._on_writable, pane)
        self._writers[pty.fd] = pty

    def _on_writable(self, pane: Pane) -> None:
        pty = pane.pty
        if pty is None:
            return
        if pty.flush() or pty.eof:
            self._forget_fd(self._writers, pty.fd, pty, writer=True)

    def _forget_fd(self, table: dict[int, object], fd: int, owner: object, writer: bool) -> None:
        if table.get(fd) is not owner:
            return  # not ours (any more): the number now belongs to another pane
        del table[fd]
        loop = asyncio.get_running_loop()
        with contextlib.suppress(ValueError, OSError):
            if writer:
                loop.remove_writer(fd)
            else:
                loop.remove_reader(fd)

    def _on_signal(self, pane: Pane) -> None:
        server = self.dash.signals.get(pane.short)
        if server is None:
            return
        if server.drain():
            pane.turn_signal()
            self._update_chrome()

    def _unwatch_signal(self, pane: Pane) -> None:
        server = self.dash.signals.get(pane.short)
        if server is not None:
            self._forget_fd(self._readers, server.fileno(), server, writer=False)

    def _unwatch(self, pane: Pane) -> None:
        pty = pane.pty
        if pty is None:
            return
        self._forget_fd(self._writers, pty.fd, pty, writer=True)
        self._forget_fd(self._readers, pty.fd, pty, writer=False)

    def _on_readable(self, pane: Pane) -> None:
        if pane.read_available() == 0 and pane.pty is not None and pane.pty.eof:
            self._unwatch(pane)
            self._schedule_reap()
        elif not pane.wants_read:
            self._unwatch(pane)
        self._wake.set()

    def _on_sigchld(self) -> None:
        self._schedule_reap()

    def _schedule_reap(self) -> None:
        if not self._reap_pending:
            self._reap_pending = True
            self.call_later(self._reap)

    async def _pump_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self._pump_all()
            except Exception as exc:  # noqa: BLE001 - output must keep flowing
                # A bug while parsing one pane must not freeze every pane.
                log.exception("pump")
                self.dash.error(f"dashboard: output handling failed ({exc})")
            if self._reap_pending:
                self._reap()

    async def _pump_all(self) -> None:
        """Parse every pending inbox, in slices, until none is left."""
        while True:
            busy = [p for p in self.dash.panes if p.inbox]
            if not busy:
                break
            focused = self.dash.focused_pane
            busy.sort(key=lambda p: p is not focused)
            started = time.monotonic()
            deadline = started + PARSE_SLICE
            for pane in busy:
                while pane.inbox and time.monotonic() < deadline:
                    pane.pump(PARSE_CHUNK)
                view = self.views.get(pane.short)
                if view is not None:
                    view.output_changed()
                if pane.wants_read and pane.exit_code is None and not self._quitting:
                    self._watch(pane)
                    self._ensure_flush(pane)  # query replies, injected text
                if time.monotonic() >= deadline:
                    break
            if focused is not None and focused.inbox:
                await asyncio.sleep(0)
            else:
                await asyncio.sleep((time.monotonic() - started) * BACKGROUND_REST)

    def _reap(self) -> None:
        self._reap_pending = False
        if self._quitting:
            return  # the shutdown worker owns the children now
        for pane in self.dash.panes:
            # Stop watching a finished child's PTY and socket before reaping
            # closes them: a reader left on a closed fd would later swallow the
            # fd number of the next pane opened.
            if pane.exit_code is None and pane.pty is not None and pane.pty.poll() is not None:
                self._unwatch(pane)
                self._unwatch_signal(pane)
        ended = self.dash.reap()
        for pane in ended:
            self._lifecycle_pane_ended(pane)
            self._worktree_pane_ended(pane)
            self._unwatch(pane)
            view = self.views.get(pane.short)
            if view is not None:
                view.output_changed()
        if ended:
            self._update_chrome()
        if (
            self.dash.close_when_all_ended
            and not self._quitting
            and not self._overlay_blocks_exit()
        ):
            self._quitting = True
            self.app.exit(1 if any((p.exit_code or 0) != 0 for p in self.dash.panes) else 0)

    def _overlay_blocks_exit(self) -> bool:
        return len(self.app.screen_stack) > 1 and self.app.screen is not self

    def _show_focused(self) -> None:
        focused = self.dash.focused_pane
        for short, view in self.views.items():
            visible = focused is not None and short == focused.short
            if view.display != visible:
                view.display = visible
            if visible:
                view.full_refresh()
                view.focus()
        self._review_focus_changed()
        self._update_chrome()

    # -- keys -----------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        event.prevent_default()
        event.stop()
        self.handle_key(event.key, event.character)

    def route_input(self, event: events.Key | events.Paste) -> None:
        """Keys and pastes from the App's key gate, in arrival order."""
        if isinstance(event, events.Key):
            self.handle_key(event.key, event.character)
        else:
            self._paste(event.text)

    def handle_key(self, key: str, character: str | None) -> None:
        result = self.keys.feed(key, character)
        if self._keylog is not None:
            # Diagnostics without content: printable keys are logged by kind only.
            shown = key if not (character and character.isprintable()) else "<char>"
            self._keylog.write(f"{time.monotonic():.3f} {shown} {result.verdict.value}\n")
            self._keylog.flush()
        pane = self.dash.focused_pane
        if result.verdict is Verdict.TO_CHILD:
            if pane is not None:
                model = pane.model_view
                data = keycodes.encode_key(
                    key, character, model.app_cursor_keys, model.keyboard_flags
                )
                if data:
                    was_scrolled = pane.scroll_offset
                    pane.send(data)
                    self._ensure_flush(pane)
                    if was_scrolled:
                        self._refresh_focused_view()
        elif result.verdict is Verdict.LITERAL_PREFIX:
            if pane is not None:
                prefix_bytes = keycodes.encode_key(self.keys.keymap.prefix, None)
                pane.send(prefix_bytes)
        elif result.verdict is Verdict.ACTION and result.action:
            self._dismiss_tip()
            self.run_action(result.action)
        if result.verdict is not Verdict.TO_CHILD:
            # Typing costs nothing beyond the write; chords may change the chrome.
            self._update_chrome()

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        self._paste(event.text)

    def _paste(self, text: str) -> None:
        pane = self.dash.focused_pane
        if pane is not None:
            pane.send(keycodes.bracket_paste(text, pane.model_view.bracketed_paste))
            self._ensure_flush(pane)

    def run_action(self, action: str) -> None:
        handler = getattr(self, f"do_{action}", None)
        if action.startswith("focus_"):
            self.do_focus(int(action.split("_")[1]) - 1)
            return
        if handler is None:
            self.dash.notify(f"{action.replace('_', ' ')}: not available yet")
            return
        handler()

    # -- actions ----------------------------------------------------------------------------

    def do_focus(self, index: int) -> None:
        if self.dash.focus(index):
            self._show_focused()

    def do_next_pane(self) -> None:
        self.dash.next_pane()
        self._show_focused()

    def do_select_up(self) -> None:
        self.dash.prev_pane()
        self._show_focused()

    def do_select_down(self) -> None:
        self.dash.next_pane()
        self._show_focused()

    def do_next_needs_you(self) -> None:
        if self.dash.next_needing_you():
            self._show_focused()
        else:
            self.dash.notify("no pane needs you")

    def do_knowledge(self) -> None:
        """The repo's `.zavet/` decisions and specs, read-only."""
        self.app.push_screen(KnowledgeScreen(str(self.dash.repo)))

    def do_zoom(self) -> None:
        self.dash.zoomed = not self.dash.zoomed
        self._apply_chrome()

    def do_toggle_sidebar(self) -> None:
        self.dash.sidebar_forced = not self._sidebar_visible()
        self._apply_chrome()
        self._update_chrome()

    def _scroll(self, lines: int) -> None:
        pane = self.dash.focused_pane
        if pane is None:
            return
        if pane.model_view.alternate_screen and lines > 0:
            self.dash.notify("this pane is on its alternate screen: the app scrolls itself")
            return
        before = pane.scroll_offset
        after = pane.scroll_by(lines)
        if after == before:
            self.dash.notify(
                "already at the oldest line" if lines > 0 else "already at the live view"
            )
        elif after == 0:
            self.dash.notify("back to the live view")
        self._refresh_focused_view()

    def _refresh_focused_view(self) -> None:
        pane = self.dash.focused_pane
        if pane is not None and pane.short in self.views:
            self.views[pane.short].full_refresh()

    def do_scroll_page_up(self) -> None:
        pane = self.dash.focused_pane
        if pane is not None:
            self._scroll(max(1, pane.model_view.rows // 2))

    def do_scroll_page_down(self) -> None:
        pane = self.dash.focused_pane
        if pane is not None:
            self._scroll(-max(1, pane.model_view.rows // 2))

    def do_scroll_top(self) -> None:
        pane = self.dash.focused_pane
        if pane is not None:
            pane.scroll_top()
            self._refresh_focused_view()

    def do_scroll_live(self) -> None:
        pane = self.dash.focused_pane
        if pane is not None:
            pane.scroll_live()
            self._refresh_focused_view()

    def do_spawn(self) -> None:
        from screens.spawn import SpawnRequestForm, SpawnScreen

        def done(form: SpawnRequestForm | None) -> None:
            if form is None:
                return
            if form.worktree:
                self.spawn_in_worktree(form.agent, form.prompt, form.model)
                return
            pane = self._spawn(form.agent, prompt=form.prompt, model=form.model, cwd=form.cwd)
            if pane is not None:
                self.dash.notify(f"spawned {pane.agent} as {pane.short}")
                self._update_chrome()

        self.app.push_screen(
            SpawnScreen(str(self.dash.repo), self.dash.gate, self.options.settings), done
        )

    def do_diff_review(self) -> None:
        """The focused pane's changes: against its worktree's base, else its cwd
        against HEAD. Reading the record is one small file; git runs in the
        overlay's worker."""
        from screens.diff_review import CommentRoute, DiffReviewScreen, ReviewTarget

        pane = self.dash.focused_pane
        if pane is None:
            self.dash.notify("diff review: no pane")
            return
        record = worktrees.load(self.dash.repo, pane.short)
        label = f"pane {pane.short} ({pane.agent})"
        if record is not None:
            repo = self.dash.repo
            target = ReviewTarget(Path(record.path), record.base, label, record.branch, repo)
        else:
            target = ReviewTarget(Path(pane.cwd), "HEAD", label, repo=self.dash.repo)
        route = CommentRoute(
            slug=self.dash.slug,
            from_session=self.dash.short,
            from_agent=mail.OPERATOR,
            to_agent=pane.agent,
            to_session=pane.session_id,
            keep=self.dash.settings.mail.keep,
            max_message_bytes=self.dash.settings.mail.max_message_bytes,
        )
        self.app.push_screen(DiffReviewScreen(target, route), lambda _: self._update_chrome())

    def _worktree_pane_ended(self, pane: Pane) -> None:
        record = worktrees.load(self.dash.repo, pane.short)
        if record is not None:
            self._reclaim_worktree(record)

    @work(thread=True, group="worktree-reclaim", exit_on_error=False)
    def _reclaim_worktree(self, record: worktrees.Worktree) -> None:
        """Remove a finished pane's worktree when nothing would be lost; say
        why it is kept otherwise (it stays listed)."""
        try:
            result = worktrees.reclaim(record)
        except worktrees.WorktreeError as exc:
            text = f"worktree {record.branch} kept: {exc}"
        else:
            verb = "removed" if result.removed else "kept"
            text = f"worktree {record.branch} {verb} ({result.reason})"
            if not result.removed:
                text += f" at {record.path}"
        self.app.call_from_thread(self._worktree_notice, text)

    def _worktree_notice(self, text: str) -> None:
        self.dash.notify(text)
        self._update_chrome()

    def spawn_in_worktree(self, agent: str, prompt: str | None, model: str | None) -> None:
        """Spawn a pane in its own worktree: `git worktree add` in a thread, then
        the pane on the UI loop (the spawn dialog's "own worktree" toggle)."""
        session_id = paths.new_session_id()
        self.dash.notify(f"creating worktree zirv/{paths.short_id(session_id)}…")
        self._prepare_worktree(agent, prompt, model, session_id)

    @work(thread=True, group="worktree-create", exit_on_error=False)
    def _prepare_worktree(
        self, agent: str, prompt: str | None, model: str | None, session_id: str
    ) -> None:
        try:
            worktrees.create(self.dash.repo, paths.short_id(session_id))
        except worktrees.WorktreeError as exc:
            self.app.call_from_thread(self.dash.error, f"spawn: own worktree: {exc}")
            return
        self.app.call_from_thread(self._spawn_prepared, agent, prompt, model, session_id)

    def _spawn_prepared(
        self, agent: str, prompt: str | None, model: str | None, session_id: str
    ) -> None:
        try:
            pane = self.dash.spawn(
                agent, prompt=prompt, model=model, session_id=session_id, worktree=True
            )
        except DashError as exc:
            self.dash.error(f"spawn: {exc}")
            self._update_chrome()
            return
        self._mount_view(pane)
        self._show_focused()
        self.dash.notify(f"spawned {pane.agent} as {pane.short} in worktree zirv/{pane.short}")
        self._update_chrome()

    def do_errors(self) -> None:
        from screens.errors import ErrorsScreen

        def done(_: None) -> None:
            self._update_chrome()

        self.app.push_screen(ErrorsScreen(self.dash.errors), done)

    def do_help(self) -> None:
        from screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self.keys.keymap))

    def do_quit(self) -> None:
        working = self.dash.working_panes()
        if working:
            from screens.quit_confirm import QuitConfirmScreen

            def done(confirmed: bool | None) -> None:
                if confirmed:
                    self.shutdown()

            titles = [f"{p.title} ({p.agent})" for p in working]
            self.app.push_screen(QuitConfirmScreen(titles), done)
            return
        self.shutdown()

    def shutdown(self) -> None:
        if self._quitting:
            return
        self._quitting = True
        self._lifecycle_before_quit()
        live = len(self.dash.live_panes)
        self.dash.notify(f"shutting down {live} pane(s)…")
        self._update_chrome()
        for pane in self.dash.panes:
            self._unwatch(pane)
            self._unwatch_signal(pane)
        self._shutdown_worker()

    @work(thread=True, exclusive=True, group="shutdown", exit_on_error=False)
    def _shutdown_worker(self) -> None:
        try:
            self.dash.shutdown_all()
        finally:
            # Whatever happened above, the dashboard closes; run_dashboard then
            # makes sure nothing is left running.
            self.app.call_from_thread(self.app.exit, 0)

    # -- mouse --------------------------------------------------------------------------

    def on_sidebar_row_clicked(self, message: Sidebar.RowClicked) -> None:
        pane = next((p for p in self.dash.panes if p.short == message.key), None)
        if pane is None:
            return
        if message.button == 1:
            self.do_focus(self.dash.panes.index(pane))
            return
        if message.button != 3:
            return
        # Right-click: that row's context menu, and focus stays where it was (a
        # peek at a row's actions must not move the keyboard to it).
        from screens.menu import MenuScreen
        from zirv_dash.intake import menu_entries

        def done(label: str | None) -> None:
            if label is not None:
                acts_on_focused = ("inspect", "evidence", "open worktree", "nudge", "mail")
                if label in acts_on_focused and pane in self.dash.panes:
                    # These act on the focused pane: the chosen row becomes it.
                    self.do_focus(self.dash.panes.index(pane))
                self._lifecycle_menu_action(label, pane)
            self._update_chrome()

        entries = menu_entries(self._intake, pane)
        self.app.push_screen(MenuScreen(f"{pane.short} · {pane.role}", entries), done)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._wheel(event, WHEEL_STEP)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._wheel(event, -WHEEL_STEP)

    def _wheel(self, event: events.MouseEvent, lines: int) -> None:
        pane = self.dash.focused_pane
        if pane is None:
            return
        event.stop()
        model = pane.model_view
        if model.mouse_tracking and not pane.scroll_offset:
            # The child asked for mouse reports (claude does): it scrolls itself.
            view = self.views.get(pane.short)
            if view is None:
                return
            offset = event.get_content_offset(view)
            if offset is None:
                return
            button = keycodes.WHEEL_UP if lines > 0 else keycodes.WHEEL_DOWN
            column = max(1, min(offset.x + 1, model.columns))
            row = max(1, min(offset.y + 1, model.rows))
            pane.send(
                keycodes.encode_mouse(button, column, row, encoding=model.mouse_encoding),
                typed=False,
            )
            self._review_wheel_forwarded(pane)
            return
        self._scroll(lines)

    # -- chrome ----------------------------------------------------------------------------

    def _tick(self) -> int:
        if not self.options.spinner or self.options.deterministic:
            return 0
        return int(time.monotonic() / SPINNER_PERIOD)

    def _chrome_tick(self) -> None:
        self._update_chrome()

    def _slow_tick(self) -> None:
        if self._quitting:
            return
        for pane in self.dash.live_panes:
            self._ensure_flush(pane)
        # Fallback for exits that SIGCHLD did not report (e.g. handler unavailable).
        if any(p.exit_code is None and p.pty is not None for p in self.dash.panes):
            self._schedule_reap()
        self._sessions_tick()
        self._lifecycle_tick()
        self._handover_tick()

    def _update_chrome(self) -> None:
        if not self.is_mounted:
            return
        dash = self.dash
        tick = self._tick()
        now = time.monotonic()
        focused = dash.focused_pane
        self._observe_attention(focused, now)
        states = {p.short: dash.state_of(p, now) for p in dash.panes}
        animating = any(s in (PaneState.WORKING, PaneState.STARTING) for s in states.values())
        self._set_chrome_rate(animating and self.options.spinner)

        sidebar_visible = self._sidebar_visible()
        rows = [
            RosterRow(
                key=p.short,
                name=p.title,
                harness=p.agent,
                state=states[p.short],
                focused=p is focused,
                selected=p is focused,
                dim=not p.alive,
                badge=self._sessions_badge(p),
                note=p.ended_note(),
            )
            for p in dash.panes
        ]
        rows += self._lifecycle_extra_rows()
        if sidebar_visible:
            self.query_one(Sidebar).update_rows(rows, tick)
        sessions, working, needs = dash.counts(states)
        unacked = dash.errors.unacked
        prefix = describe_key(self.keys.keymap.prefix)
        tabs = None
        if not sidebar_visible:
            tabs = [
                Tab(
                    name=p.title if p.role == "orchestrator" else p.short[:4],
                    state=states[p.short],
                    focused=p is focused,
                    badge=self._sessions_badge(p),
                )
                for p in dash.panes
            ]
        facts = HeaderFacts(
            sessions=sessions,
            working=working,
            needs_you=needs,
            ended=len(dash.panes) - sessions,
            notice=dash.current_notice(),
            errors=len(unacked),
            latest_error=unacked[0].text if unacked else "",
            tip=self._tip,
            hints=self._header_hints(focused, prefix),
            tabs=tabs,
            tick=tick if tabs else 0,
        )
        self.query_one(HeaderBar).update_facts(facts)
        if focused is not None:
            from widgets.glyphs import glyph

            state = states[focused.short]
            extra = ""
            if focused.exit_code is not None and not focused.spawn_error:
                # Next to the state word: the exit code, or the signal that stopped it.
                stopped = state is PaneState.STOPPED
                words = focused.ended_words()
                code = f"exit {focused.exit_code}"
                extra = words.removeprefix("stopped by ") if stopped else code
            extra = extra or self._handover_extra(focused)
            self.query_one(PaneHeader).update_facts(
                PaneHeaderFacts(
                    harness=focused.agent,
                    role=focused.role,
                    model=focused.model,
                    cwd=focused.cwd,
                    state=state,
                    title=focused.model_view.title[:40],
                    # Time in the state shown, not the session's age.
                    age=""
                    if self.options.deterministic
                    else age_text(max(0.0, now - focused.state_since(now))),
                    tick=tick,
                    extra=extra,
                )
            )
            segments = [f"{focused.agent} {focused.short}"]
            if focused.pty is None:
                segments.append("no process")
            elif not self.options.deterministic:
                segments.append(f"pid {focused.pty.pid}")
            if focused.scroll_offset:
                segments.append(f"scrolled back {focused.scroll_offset}")
            if focused.exit_code is not None:
                segments.append(f"{glyph(state, 0)[0]} {focused.ended_words()}")
            hint = self._footer_hint(prefix)
            if self.keys.armed:
                hint = f"{prefix} … waiting for a chord (? for help)"
            self.query_one(FooterBar).update_footer(tuple(segments), hint)

    def _footer_hint(self, prefix: str) -> str:
        """`^A ? help · ^A q quit` from the live keymap: a rebound or unbound
        chord shows as it is (or not at all)."""
        parts = []
        for action, label in (("help", "help"), ("quit", "quit")):
            chords = self.keys.keymap.chords_for(action)
            if chords:
                parts.append(f"{prefix} {describe_key(chords[0])} {label}")
        return " · ".join(parts)

    def _header_hints(self, focused: Pane | None, prefix: str) -> list[tuple[str, str]]:
        """Up to four clickable chord hints, chosen by what the focused pane can do."""
        labels: dict[str, str] = {}
        if focused is None:
            wanted = ["spawn", "errors", "help"]
        elif not focused.alive:
            wanted = ["inspect", "context_menu", "help"]
            # ^A r only where a relaunch can work: an ended row with a kept
            # request whose harness did start (a missing binary would fail again).
            from zirv_dash.intake import menu_entries

            intake = getattr(self, "_intake", None)
            entries = {e.label: e for e in menu_entries(intake, focused)} if intake else {}
            restore = entries.get("restore")
            if restore is not None and restore.enabled and not focused.spawn_error:
                wanted.insert(1, "restore_row")
                if (focused.exit_code or 0) != 0:
                    labels["restore_row"] = "retry"
        else:
            wanted = ["context_menu", "nudge", "mail", "help"]
        if self.dash.errors.unacked and "errors" not in wanted:
            wanted[-2] = "errors"
        hints = []
        for action in wanted:
            chords = self.keys.keymap.chords_for(action)
            if chords:
                label = labels.get(action, ACTION_BY_ID[action].label)
                hints.append((f"{prefix} {describe_key(chords[0])}", label))
        return hints

    def _observe_attention(self, focused: Pane | None, now: float) -> None:
        """Feed visibility into each pane's tracker and announce transitions.

        A pane counts as seen only once a completed frame has shown it at the
        live view with no dialog over it: the check runs again after the next
        refresh, and only then is the pane marked visible. A hidden, scrolled
        back or covered pane is unseen at once, so one that finishes there turns
        `◆`. A notice is raised when a pane *enters* needs-you, failed or done —
        never for the pane you are looking at, and once per transition.
        """

        def shown_live(pane: Pane) -> bool:
            view = self.views.get(pane.short)
            return (
                pane is self.dash.focused_pane
                and pane.scroll_offset == 0
                and self.app.screen is self
                and view is not None
                and view.display
            )

        def confirm_seen(pane: Pane) -> None:
            pane.awaiting_frame = False
            if shown_live(pane) and not pane.tracker.visible:
                pane.set_visible(True)
                self._update_chrome()

        for pane in self.dash.panes:
            pane.check_screen(now)
            if not shown_live(pane):
                pane.set_visible(False)
            elif not pane.tracker.visible and not pane.awaiting_frame:
                pane.awaiting_frame = True
                self.call_after_refresh(confirm_seen, pane)
            change = pane.tracker.poll(now)
            if change is not None:
                notify_mode = self.options.settings.dash.notify
                announce_outer(self, notify_mode, pane, change, pane is focused)
            if change is None or pane is focused:
                continue
            reason = f" ({change.reason})" if change.reason else ""
            if change.new is PaneState.NEEDS_YOU:
                self.dash.notify(f"▲ {pane.short} {change.reason or 'needs you'}")
            elif change.new is PaneState.FAILED:
                self.dash.notify(f"✗ {pane.short} failed{reason}")
            elif change.new is PaneState.DONE_UNSEEN:
                self.dash.notify(f"◆ {pane.short} done")

    def _set_chrome_rate(self, fast: bool) -> None:
        if fast == self._tick_timer_fast:
            return
        self._tick_timer_fast = fast
        self._chrome_timer.stop()
        self._chrome_timer = self.set_interval(
            SPINNER_PERIOD if fast else CHROME_IDLE_PERIOD, self._chrome_tick, name="chrome"
        )
