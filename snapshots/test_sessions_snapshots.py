"""How mail and nudges look: sidebar badges, a header notice, both overlays."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from screens.app import ZirvApp
from screens.dashboard import DashboardScreen
from screens.mail import MailScreen
from screens.nudge import NudgeScreen
from snapshots.snaphelpers import press, quiet_demo, settled, snap_app
from tests.apphelpers import dash_screen, wait_for
from zirv_dash.attention.states import PaneState
from zirv_dash.mail import mailbox as mail
from zirv_dash.mail import nudge

__all__ = ["quiet_demo"]

THREE = [("demo", "add a login form"), ("demo", "fix the flaky test")]
QUICK = {"dash": {"idle_quiet_ms": 300}}
SENT = 1_800_000_000
ELSEWHERE = "ffff0000-0000-4000-8000-0000000000ff"
"""A session outside this dashboard: mail to it stays in the mailbox."""


def screen_of(pilot: Pilot[Any]) -> DashboardScreen:
    app = pilot.app
    assert isinstance(app, ZirvApp)
    return dash_screen(app)


def store(slug: str, body: str, agent: str, sender: str, to_session: str, n: int) -> None:
    mail.store(
        slug, body, from_session=sender, from_agent=agent, to_session=to_session, now=SENT + n
    )


def test_mail_badge_and_nudge_notice(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settled(3)(pilot)
        screen = screen_of(pilot)
        dash = screen.dash
        worker = dash.panes[2]
        # The worker shows an approval prompt, so mail to it waits (✉2).
        worker.send(b"/ask\r", typed=False)
        await wait_for(pilot, lambda: worker.state() is PaneState.NEEDS_YOU)
        # Its own notice first, so it cannot replace the nudge notice in the picture.
        await wait_for(pilot, lambda: (dash.current_notice() or "").startswith(f"▲ {worker.short}"))
        store(dash.slug, "the login form needs tests", "claude", "abcd1234", worker.session_id, 0)
        store(dash.slug, "ping", "codex", "bcde2345", worker.session_id, 1)
        await wait_for(pilot, lambda: screen.engine.mail.badge(worker) == "✉2")
        nudge.write_marker(worker.short, "abcd1234")
        notice = f"nudge received for {worker.short} -- see inbox"
        await wait_for(pilot, lambda: dash.current_notice() == notice)
        await pilot.pause(0.3)

    assert snap_compare(
        snap_app(extra=THREE, flags=QUICK), terminal_size=(120, 40), run_before=run_before
    )


def test_mail_overlay(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settled(3)(pilot)
        slug = screen_of(pilot).dash.slug
        body = "the login form is done; the flaky test was a race in the fixture\nsee the diff"
        store(slug, body, "claude", "abcd1234", ELSEWHERE, 0)
        store(slug, "please rebase onto main before you push", "codex", "bcde2345", ELSEWHERE, 1)
        await pilot.press("ctrl+a", "m")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, MailScreen))
        await pilot.pause(0.3)

    assert snap_compare(snap_app(extra=THREE), terminal_size=(120, 40), run_before=run_before)


def test_mail_compose(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settled(3)(pilot)
        await pilot.press("ctrl+a", "m")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, MailScreen))
        await pilot.press("c", *"status", "space", *"please", "shift+enter", *"thanks")
        await pilot.pause(0.3)

    assert snap_compare(snap_app(extra=THREE), terminal_size=(120, 40), run_before=run_before)


def test_nudge_overlay(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        # Settled: both workers have finished unseen before pane 2 is looked at.
        await settled(3)(pilot)
        await press(pilot, "ctrl+a", "2", "ctrl+a", "n")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, NudgeScreen))
        await pilot.press(*"rebase", "space", *"first", "shift+enter", *"then", "space")
        await pilot.press(*"run", "space", *"the", "space", *"tests")
        await pilot.pause(0.3)

    assert snap_compare(snap_app(extra=THREE), terminal_size=(120, 40), run_before=run_before)
