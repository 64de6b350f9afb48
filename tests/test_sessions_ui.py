"""Mail, nudges and badges in the running dashboard (Pilot, real demo panes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Label, OptionList

from screens.app import ZirvApp
from screens.dashboard import DashboardScreen
from screens.mail import MailScreen
from screens.nudge import DraftArea, NudgeScreen
from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from zirv_dash.attention.states import PaneState
from zirv_dash.mail import mailbox as mail
from zirv_dash.mail import nudge
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.registry import sessions_dir

pytestmark = pytest.mark.timeout(60)

SENDER = "abcd1234-0000-4000-8000-00000000beef"
QUICK = {"dash": {"idle_quiet_ms": 300}}


def sessions_app(repo: Path, **kw: Any) -> ZirvApp:
    app = make_app(repo, agent="demo", extra=[("demo", None)], flags=QUICK, **kw)
    app.options.manage_state = True  # registry records, markers and sockets
    return app


async def started(pilot: Pilot[Any]) -> tuple[DashboardScreen, Pane, Pane]:
    app = pilot.app
    assert isinstance(app, ZirvApp)
    screen = dash_screen(app)
    dash = screen.dash
    await wait_for(pilot, lambda: len(dash.panes) == 2 and all(p.is_idle() for p in dash.panes))
    return screen, dash.panes[0], dash.panes[1]


def store(slug: str, body: str, to_session: str | None = None) -> mail.Message:
    return mail.store(slug, body, from_session=SENDER, from_agent="claude", to_session=to_session)


async def test_mail_is_delivered_when_it_arrives_and_badges_count_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The demo holds its turn until the gate exists, so "busy" lasts until the
    # waiting message was counted, however slow the machine (a 0.2 s turn could
    # end before the sweep saw the second message).
    gate = tmp_path / "gate"
    monkeypatch.setenv("ZIRV_DEMO_GATE", str(gate))
    app = sessions_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, orch, worker = await started(pilot)
        assert screen.engine.watcher.watching
        store(screen.dash.slug, "look at the tests", to_session=worker.session_id)
        await wait_for(pilot, lambda: "Working on: [zirv ▸ mail from" in screen_text(worker))
        # While the worker is busy, the next message waits and shows as ✉1.
        await wait_for(pilot, lambda: worker.state() is PaneState.WORKING)
        waiting = store(screen.dash.slug, "and the docs", to_session=worker.session_id)
        await wait_for(pilot, lambda: screen.engine.mail.badge(worker) == "✉1")
        assert screen.engine.mail.badge(orch) == ""
        assert waiting.path.exists()
        # Its turn ends: delivered at the idle boundary, badge cleared.
        gate.touch()
        await wait_for(pilot, lambda: "and the docs" in screen_text(worker))
        await wait_for(pilot, lambda: screen.engine.mail.badge(worker) == "")
        assert not waiting.path.exists()
        # The orchestrator never sees bodies.
        assert "look at the tests" not in screen_text(orch)


async def test_markers_and_mail_are_picked_up_by_the_watcher_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import zirv_dash.runtime.mail_ctl as sessions

    monkeypatch.setattr(sessions, "WATCH_STARTUP_SECS", 0.0)
    app = sessions_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, _orch, worker = await started(pilot)
        shorts = frozenset(p.short for p in screen.dash.panes)
        # From here on the 1 s tick has nothing to sweep: only the watcher can.
        await wait_for(
            pilot,
            lambda: screen.engine.mail.known_panes == shorts and screen.engine.watcher.watching,
        )
        nudge.write_marker(worker.short, "abcd1234")
        notice = f"nudge received for {worker.short} -- see inbox"
        await wait_for(pilot, lambda: screen.dash.current_notice() == notice, timeout=20)
        assert not (sessions_dir() / f"{worker.short}.nudge").exists()
        store(screen.dash.slug, "via the watcher", to_session=worker.session_id)
        await wait_for(pilot, lambda: "via the watcher" in screen_text(worker), timeout=20)


async def test_sweeps_fall_back_to_the_tick_when_watching_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import watchfiles

    from zirv_dash.runtime import watch
    from zirv_dash.runtime.inotify import InotifyUnavailable

    def broken(*_a: Any, **_k: Any) -> Any:
        raise OSError("inotify limit reached")

    def refused(*_a: Any, **_k: Any) -> Any:
        raise InotifyUnavailable("inotify limit reached")

    # Neither watcher can start: the loop's inotify nor watchfiles after it.
    monkeypatch.setattr(watch, "TreeWatch", refused)
    monkeypatch.setattr(watchfiles, "awatch", broken)
    app = sessions_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, _orch, worker = await started(pilot)
        await wait_for(pilot, lambda: not screen.engine.watcher.watching)
        store(screen.dash.slug, "still delivered", to_session=worker.session_id)
        await wait_for(pilot, lambda: "Working on: [zirv ▸ mail" in screen_text(worker))


async def test_mail_overlay_reads_consumes_and_composes(tmp_path: Path) -> None:
    app = sessions_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, orch, worker = await started(pilot)
        slug = screen.dash.slug
        # Mail for someone else's session: nobody here consumes it.
        first = store(slug, "first note\nsecond line", to_session="ffff0000-other")
        second = store(slug, "another note", to_session="ffff0000-other")
        await pilot.press("ctrl+a", "m")
        await wait_for(pilot, lambda: isinstance(app.screen, MailScreen))
        overlay = app.screen
        assert isinstance(overlay, MailScreen)
        assert overlay.query_one("#mail-dialog").border_title == "mail · 2"
        rows = overlay.query_one("#mail-list", OptionList)
        # The sender is no live pane here: shown as its agent and short id.
        assert str(rows.get_option_at_index(0).prompt) == "claude/abcd1234: first note"
        await pilot.press("j")
        assert rows.highlighted == 1
        await pilot.press("k", "enter")
        await wait_for(pilot, lambda: not first.path.exists())
        assert (first.path.parent / "read" / first.path.name).exists()
        assert overlay.query_one("#mail-dialog").border_title == "mail · 1"
        assert second.path.exists()
        # Compose to the worker: Shift+Enter is a newline, Enter sends.
        await pilot.press("c")
        assert overlay.has_class("composing")
        await pilot.press(*"hello", "shift+enter", *"world")
        assert overlay.query_one(DraftArea).text == "hello\nworld"
        await pilot.press("shift+tab")
        targets = overlay.query_one("#mail-target", OptionList)
        assert targets.has_focus
        await pilot.press("down")
        assert targets.highlighted == 1
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: not overlay.has_class("composing"))
        status = overlay.query_one("#mail-status", Label)
        assert f"sent to pane {orch.short}" in str(status.render())
        sent = [m for m in mail.list_messages(slug) if m.body.startswith("hello")]
        assert len(sent) == 1 and sent[0].to_short == orch.short
        assert sent[0].body.strip() == "hello\nworld"
        assert sent[0].from_session == screen.dash.short
        # Esc cancels a draft, then closes.
        await pilot.press("c", *"draft", "escape")
        assert not overlay.has_class("composing")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        # The orchestrator is told about its mail, never given the body.
        await wait_for(pilot, lambda: "[zirv ▸ mail] 1 unread" in screen_text(orch))
        assert "world" not in screen_text(orch)
        assert "hello" not in screen_text(worker)


async def test_nudge_overlay_types_into_an_idle_pane(tmp_path: Path) -> None:
    app = sessions_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, _orch, worker = await started(pilot)
        await pilot.press("ctrl+a", "2")
        await wait_for(pilot, lambda: screen.dash.focused_pane is worker)
        await pilot.press("ctrl+a", "n")
        await wait_for(pilot, lambda: isinstance(app.screen, NudgeScreen))
        target = app.screen.query_one("#nudge-target", Label)
        assert str(target.render()) == f"to: pane {worker.short}"
        await pilot.press(*"check", "alt+enter", *"this")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        await wait_for(
            pilot,
            lambda: "Working on: [zirv ▸ nudge from operator] check this" in screen_text(worker),
        )
        # Blank text closes silently; Esc closes.
        await pilot.press("ctrl+a", "n")
        await wait_for(pilot, lambda: isinstance(app.screen, NudgeScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        await pilot.press("ctrl+a", "n")
        await wait_for(pilot, lambda: isinstance(app.screen, NudgeScreen))
        await pilot.press(*"nope", "escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert "nope" not in screen_text(worker)


async def test_nudge_to_a_busy_pane_is_queued_then_delivered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The demo holds its task until the gate file exists: busy however slow the
    # machine types, instead of racing a timed task.
    gate = tmp_path / "gate"
    monkeypatch.setenv("ZIRV_DEMO_GATE", str(gate))
    app = sessions_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, _orch, worker = await started(pilot)
        await pilot.press("ctrl+a", "2")
        await pilot.press(*"busy", "enter")
        await wait_for(pilot, lambda: "Working on: busy" in screen_text(worker))
        await pilot.press("ctrl+a", "n")
        await wait_for(pilot, lambda: isinstance(app.screen, NudgeScreen))
        await pilot.press(*"queued", "enter")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.dash.current_notice() == "nudge queued -- delivers when idle"
        gate.touch()
        await wait_for(pilot, lambda: "[zirv ▸ nudge from operator] queued" in screen_text(worker))
        await wait_for(pilot, lambda: not gate.exists())  # the first task took it
        gate.touch()  # and the nudge's turn may finish too
        await wait_for(pilot, lambda: worker.is_idle())
