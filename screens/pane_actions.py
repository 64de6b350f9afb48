"""Chords about panes and the dashboard: focus, zoom, scroll, spawn, review, quit."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from screens.screen_names import HELP_SCREEN
from zirv_dash.mail import mailbox as mail
from zirv_dash.repo import worktree as worktrees

if TYPE_CHECKING:
    from screens.host import DashboardHost
    from zirv_dash.panes.pane import Pane


class PaneActions:
    def __init__(self, screen: DashboardHost) -> None:
        self._screen = screen

    # -- focus -----------------------------------------------------------------------

    def action_focus(self, index: int) -> None:
        self._screen.engine.focus(index)

    def action_next_pane(self) -> None:
        self._screen.engine.focus_next()

    def action_select_up(self) -> None:
        self._screen.engine.focus_next(-1)

    def action_select_down(self) -> None:
        self._screen.engine.focus_next()

    def action_next_needs_you(self) -> None:
        if not self._screen.engine.focus_needing_you():
            self._screen.dash.notify("no pane needs you")

    def action_zoom(self) -> None:
        screen = self._screen
        screen.dash.zoomed = not screen.dash.zoomed
        screen.apply_layout()

    def action_toggle_sidebar(self) -> None:
        screen = self._screen
        screen.dash.sidebar_forced = not screen.sidebar_visible()
        screen.apply_layout()

    # -- scrollback --------------------------------------------------------------------

    def scroll(self, lines: int) -> None:
        screen = self._screen
        pane = screen.dash.focused_pane
        if pane is None:
            return
        if pane.model_view.alternate_screen and lines > 0:
            screen.dash.notify("this pane is on its alternate screen: the app scrolls itself")
            return
        before = pane.scroll_offset
        after = pane.scroll_by(lines)
        if after == before:
            screen.dash.notify(
                "already at the oldest line" if lines > 0 else "already at the live view"
            )
        elif after == 0:
            screen.dash.notify("back to the live view")
        screen.redraw_focused()

    def _half_page(self) -> int:
        pane = self._screen.dash.focused_pane
        return 0 if pane is None else max(1, pane.model_view.rows // 2)

    def action_scroll_page_up(self) -> None:
        if self._half_page():
            self.scroll(self._half_page())

    def action_scroll_page_down(self) -> None:
        if self._half_page():
            self.scroll(-self._half_page())

    def action_scroll_top(self) -> None:
        pane = self._screen.dash.focused_pane
        if pane is not None:
            pane.scroll_top()
            self._screen.redraw_focused()

    def action_scroll_live(self) -> None:
        pane = self._screen.dash.focused_pane
        if pane is not None:
            pane.scroll_live()
            self._screen.redraw_focused()

    # -- overlays ----------------------------------------------------------------------

    def action_spawn(self) -> None:
        from screens.spawn import SpawnRequestForm, SpawnScreen
        from zirv_dash.remote.engine_links import links_of

        screen = self._screen
        dash = screen.dash

        links = links_of(screen.engine)

        def done(form: SpawnRequestForm | None) -> None:
            if form is None:
                return
            if form.host and links is not None:
                # The pane shows through the link when that runtime announces it.
                links.spawn(form.host, form.agent, form.prompt, form.model)
                return
            if form.worktree:
                screen.engine.worktrees.spawn(form.agent, form.prompt, form.model)
                return
            pane = screen.engine.spawn_for_operator(form.agent, form.prompt, form.model, form.cwd)
            if pane is not None:
                dash.notify(f"spawned {pane.agent} as {pane.short}")

        # Spawn here: in the directory the focused pane reports (OSC 7), if any.
        focused = dash.focused_pane
        here = focused.current_cwd if focused is not None and focused.model_view.cwd else None
        hosts = [link.host.name for link in links.links] if links is not None else []
        screen.app.push_screen(
            SpawnScreen(
                str(dash.repo),
                dash.gate,
                screen.options.settings,
                here=here,
                hosts=hosts,
                writer_refusal=screen.engine.intake.operator_refusal,
            ),
            done,
        )

    def action_diff_review(self) -> None:
        """The focused pane's changes: against its worktree's base, else its cwd
        against HEAD. Reading the record is one small file; git runs in the
        overlay's worker."""
        from screens.diff_review import DiffReviewScreen
        from screens.review_target import CommentRoute, ReviewTarget

        screen = self._screen
        dash = screen.dash
        pane = dash.focused_pane
        if pane is None:
            dash.notify("diff review: no pane")
            return
        record = worktrees.load(dash.repo, pane.short)
        label = f"pane {pane.short} ({pane.agent})"
        if record is not None:
            target = ReviewTarget(Path(record.path), record.base, label, record.branch, dash.repo)
        else:
            target = ReviewTarget(Path(pane.current_cwd), "HEAD", label, repo=dash.repo)
        route = CommentRoute(
            slug=dash.slug,
            from_session=dash.short,
            from_agent=mail.OPERATOR,
            to_agent=pane.agent,
            to_session=pane.session_id,
            keep=dash.settings.mail.keep,
            max_message_bytes=dash.settings.mail.max_message_bytes,
        )
        screen.app.push_screen(DiffReviewScreen(target, route), lambda _: screen.chrome.schedule())

    def action_knowledge(self) -> None:
        """The repo's `.zavet/` decisions and specs, read-only."""
        from screens.knowledge import KnowledgeScreen

        self._screen.app.push_screen(KnowledgeScreen(str(self._screen.dash.repo)))

    def action_errors(self) -> None:
        from screens.errors import ErrorsScreen

        screen = self._screen
        errors = ErrorsScreen(screen.dash.errors, ages=not screen.options.deterministic)
        screen.app.push_screen(errors, lambda _: screen.chrome.schedule())

    def action_help(self) -> None:
        """The help overlay is built once and kept: laying out every binding
        is most of what opening it costs, and the keymap does not change."""
        from screens.help import HelpScreen

        app = self._screen.app
        if not app.is_screen_installed(HELP_SCREEN):
            app.install_screen(HelpScreen(self._screen.keys.keymap), HELP_SCREEN)
        app.push_screen(HELP_SCREEN)

    def action_detach(self) -> None:
        screen = self._screen
        detach = screen.options.on_detach
        if detach is None:
            screen.dash.notify("this dashboard owns its panes: nothing to detach from")
            return
        detach()

    def action_quit(self) -> None:
        screen = self._screen
        if screen.options.on_detach is not None:
            # The runtime owns the panes: leaving its dashboard stops nothing
            # (`zirv session stop` is the verb that ends something).
            self.action_detach()
            return
        working = screen.dash.working_panes()
        if not working:
            screen.engine.shutdown()
            return
        from screens.quit_confirm import QuitConfirmScreen

        def done(confirmed: bool | None) -> None:
            if confirmed:
                screen.engine.shutdown()

        titles = [f"{p.title} ({p.agent})" for p in working]
        screen.app.push_screen(QuitConfirmScreen(titles), done)

    def close_native(self, pane: Pane) -> None:
        """Ctrl+Q in a native pane: ended at once when it is idle; asked first
        while it works, needs you or is starting (as Ctrl+A q asks for the
        dashboard). Its conversation stays in its journal: the ended row's
        Restore reopens it."""
        screen = self._screen
        dash = screen.dash
        if pane not in dash.working_panes():
            screen.engine.close_native(pane)
            return
        from screens.quit_confirm import Busy, QuitConfirmScreen, Subject

        def busy() -> list[Busy]:
            if pane in dash.working_panes():
                return [(f"{pane.title} ({pane.agent})", dash.state_of(pane))]
            return []

        subject = Subject(
            title=f"end the conversation in {pane.short}",
            confirm="end it (its row can restore it)",
            finished="the turn has ended: ⏎ ends the conversation without interrupting it",
        )

        def done(confirmed: bool | None) -> None:
            if confirmed:
                screen.engine.close_native(pane)

        screen.app.push_screen(QuitConfirmScreen(busy(), busy, subject), done)
