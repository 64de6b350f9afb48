"""Chords for mail and nudges: the overlays; delivery itself is the engine's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zirv_dash.mail import mailbox as mail

if TYPE_CHECKING:
    from screens.host import DashboardHost


class MailActions:
    def __init__(self, screen: DashboardHost) -> None:
        self._screen = screen

    def action_mail(self) -> None:
        from screens.mail import MailScreen, MailTarget

        screen = self._screen
        dash = screen.dash
        titles = screen.engine.intake.titles
        targets = [
            MailTarget(p.short, p.agent, p.session_id, title=titles.get(p.short, ""))
            for p in dash.live_panes
        ]
        overlay = MailScreen(
            dash.slug,
            dash.settings.mail,
            from_session=dash.short,
            # What you compose in the dashboard is from you, not from the
            # orchestrator pane (and the dashboard's id is no pane's).
            from_agent=mail.OPERATOR,
            targets=targets,
        )
        screen.app.push_screen(overlay, lambda _: screen.engine.mail.sweep_soon())

    def action_nudge(self) -> None:
        from screens.nudge import NudgeScreen

        screen = self._screen
        pane = screen.dash.focused_pane
        target = pane if pane is not None and pane.alive else None

        def done(text: str | None) -> None:
            if text and target is not None:
                screen.engine.mail.nudge(target, text)

        screen.app.push_screen(NudgeScreen(target.short if target else None), done)
