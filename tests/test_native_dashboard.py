"""A native pane as a pane of the ordinary dashboard, on the offline demo route.

Keys are pressed through the real App: the key gate hands them to the
dashboard's router, which keeps Ctrl+A chords and leaves every other key to the
native pane's composer and dialog (forwarded through Textual, in order).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from screens.dashboard import DashboardScreen
from tests.apphelpers import burst, chars, dash_screen, make_app, screen_text, wait_for
from tests.fixtures.native.server import ProviderServer, Reply, openai_text, serve
from tests.test_native_pane_loopback import configure
from widgets.native_approval import NativeApproval
from widgets.native_composer import NativeComposer
from widgets.native_pane import NativePane
from widgets.native_transcript import TranscriptView
from widgets.sidebar import Sidebar
from zirv_dash.attention.states import PaneState
from zirv_dash.mail.delivery import DeliveryEngine
from zirv_dash.native.demo_provider import NOTE_FILE
from zirv_dash.runtime import events as ev
from zirv_dash.runtime.native_pane import NativeSessionPane

SESSION = "0000aaaa-1111-4222-8333-444455556666"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".zirv").mkdir(parents=True)
    return repo


def native_of(screen: DashboardScreen) -> tuple[NativeSessionPane, NativePane]:
    pane = screen.dash.panes[0]
    assert isinstance(pane, NativeSessionPane)
    return pane, screen.native_views[pane.short]


def sidebar_text(screen: DashboardScreen) -> str:
    return "\n".join(
        "".join(seg.text for seg in screen.query_one(Sidebar).render_line(y))
        for y in range(screen.query_one(Sidebar).size.height)
    )


async def test_a_native_first_pane_runs_a_turn_with_an_approval(repo: Path) -> None:
    app = make_app(repo, agent="native", session_ids=[SESSION])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        states: list[PaneState] = []
        screen.engine.subscribe(
            lambda e: states.append(e.new) if isinstance(e, ev.StateChanged) else None
        )
        await wait_for(pilot, lambda: bool(screen.native_views))
        pane, view = native_of(screen)
        assert pane.agent == "native" and pane.role == "orchestrator"
        assert pane.model == "zirv/demo" and pane.pty is None
        await wait_for(pilot, lambda: isinstance(app.focused, NativeComposer))
        assert screen.dash.state_of(pane) is PaneState.IDLE and pane.at_input_prompt()
        await wait_for(pilot, lambda: "orch" in sidebar_text(screen))
        # Typed through the App: every key reaches the composer, in order.
        await pilot.press(*"tidy up", "enter")
        dialog = view.query_one(NativeApproval)
        await wait_for(pilot, lambda: dialog.ready, timeout=20)
        assert screen.dash.state_of(pane) is PaneState.NEEDS_YOU
        # Announced by the time the dialog is on the glass: an operator who answers
        # at once still leaves a needs-you behind (no poll delay for exact states).
        assert states[-1] is PaneState.NEEDS_YOU
        assert pane.reason() == "approval: write_file" and not pane.at_input_prompt()
        transcript = view.query_one(TranscriptView)
        assert "> tidy up" in transcript.plain()
        assert app.focused is dialog
        await pilot.press("1")
        await wait_for(pilot, lambda: "Done." in transcript.plain(), timeout=20)
        await wait_for(pilot, lambda: not pane.session.busy)  # type: ignore[union-attr]
        assert (repo / NOTE_FILE).exists()
        await wait_for(pilot, lambda: screen.dash.state_of(pane) is PaneState.IDLE)
        # Seen while it finished (focused, live): idle, never ◆.
        assert PaneState.WORKING in states and PaneState.NEEDS_YOU in states
        assert PaneState.DONE_UNSEEN not in states
        assert states.index(PaneState.WORKING) < states.index(PaneState.NEEDS_YOU)
        # A chord still works while the native pane has the keyboard.
        await pilot.press("ctrl+a", "z")
        await wait_for(pilot, lambda: screen.dash.zoomed)
        assert "z" not in view.query_one(NativeComposer).text


async def test_a_native_state_change_is_announced_on_the_next_loop_turn(repo: Path) -> None:
    """A native session's state is exact: its change is announced at once, not
    at the engine's next poll, so an approval answered within a poll interval
    is still a needs-you in the roster's history (and mail waiting on it)."""
    app = make_app(repo, agent="native", session_ids=[SESSION])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: bool(screen.native_views))
        pane, _ = native_of(screen)
        await wait_for(pilot, lambda: screen.dash.state_of(pane) is PaneState.IDLE)
        states: list[PaneState] = []
        screen.engine.subscribe(
            lambda e: states.append(e.new) if isinstance(e, ev.StateChanged) else None
        )
        assert pane.wake is not None
        now = time.monotonic()
        pane.tracker.update(now, "blocked", "write_file", "")
        pane.wake(True)
        for _ in range(3):  # a few loop turns: far less than any poll interval
            await asyncio.sleep(0)
        assert states == [PaneState.NEEDS_YOU]
        pane.tracker.update(time.monotonic(), "idle", None, "")
        pane.wake(True)
        for _ in range(3):
            await asyncio.sleep(0)
        assert states == [PaneState.NEEDS_YOU, PaneState.IDLE]


async def test_keys_typed_right_after_a_native_pane_opens_reach_its_composer(
    repo: Path,
) -> None:
    """Typed while a just-opened native pane is not up yet (no view, no focus):
    kept and typed in order once it is (they used to vanish), a chord too."""
    app = make_app(repo, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: bool(screen.dash.panes))
        pane = screen.engine.spawn("native")
        assert pane is not None and screen.dash.focused_pane is pane
        view = screen.native_views.get(pane.short)
        assert view is None or not view.is_mounted  # it is mounted on a later turn
        burst(app, [*chars("hello"), "ctrl+a", "z", *chars(" world")])
        await wait_for(pilot, lambda: bool(screen.native_views[pane.short].query(NativeComposer)))
        composer = screen.native_views[pane.short].query_one(NativeComposer)
        await wait_for(pilot, lambda: composer.text == "hello world", what=lambda: composer.text)
        assert screen.dash.zoomed  # the chord ran between the words
        assert app.key_gate.pending == 0


async def test_ctrl_q_ends_only_the_native_pane_and_a_hidden_finish_is_done(
    repo: Path,
) -> None:
    app = make_app(repo, agent="native", extra=[("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.dash.panes) == 2 and bool(screen.native_views))
        pane, view = native_of(screen)
        ended: list[str] = []
        screen.engine.subscribe(
            lambda e: ended.append(e.short) if isinstance(e, ev.PaneEnded) else None
        )
        await wait_for(pilot, lambda: isinstance(app.focused, NativeComposer))
        # Mail goes through the submit path while the pane is hidden behind the shell.
        await pilot.press("ctrl+a", "2")
        await wait_for(pilot, lambda: screen.dash.focused_pane is screen.dash.panes[1])
        delivery = DeliveryEngine(screen.dash)
        assert delivery.injectable(pane)
        assert delivery.inject(pane, "[mail] say hi", kind="mail")
        session = pane.session
        assert session is not None
        await wait_for(pilot, lambda: session.pending is not None, timeout=20)
        assert screen.dash.state_of(pane) is PaneState.NEEDS_YOU
        assert session.answer(session.pending.call_id, "once")  # type: ignore[union-attr]
        await wait_for(pilot, lambda: session.state == "completed", timeout=20)
        # It finished off screen: ◆ until a frame shows it.
        assert screen.dash.state_of(pane) is PaneState.DONE_UNSEEN
        await pilot.press("ctrl+a", "1")
        await wait_for(pilot, lambda: screen.dash.state_of(pane) is PaneState.IDLE)
        await wait_for(pilot, lambda: isinstance(app.focused, NativeComposer))
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not pane.alive)
        # The engine reaped it like any pane: an ended row, announced once.
        await wait_for(pilot, lambda: pane.short in ended)
        assert screen.dash.panes[1].alive and app.is_running
        assert session.closed and pane.ended_words() == "session closed"


server = pytest.fixture(serve)


async def test_a_provider_error_goes_to_the_error_log_and_the_pane_stays_usable(
    repo: Path, server: ProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", "sk-loop")
    configure(server, "openai-compatible", "vllm")
    failure = b'{"error": {"message": "invalid key"}}'
    server.replies.append(Reply(status=401, content_type="application/json", chunks=[failure]))
    server.replies.append(Reply(chunks=openai_text("Back ", "again.")))
    app = make_app(repo, agent="native")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: bool(screen.native_views))
        pane, view = native_of(screen)
        await wait_for(pilot, lambda: isinstance(app.focused, NativeComposer))
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: screen.dash.state_of(pane) is PaneState.FAILED)
        assert pane.alive and "authentication failed" in (pane.reason() or "")
        await wait_for(pilot, lambda: bool(screen.dash.errors.unacked))
        logged = screen.dash.errors.unacked[0].text
        assert f"native pane {pane.short}" in logged and "invalid key" in logged
        assert "sk-loop" not in logged
        # The session is still usable: the next line starts a turn that works.
        assert pane.at_input_prompt()
        await pilot.press(*"again", "enter")
        transcript = view.query_one(TranscriptView)
        await wait_for(pilot, lambda: "Back again." in transcript.plain(), timeout=20)
        await wait_for(pilot, lambda: screen.dash.state_of(pane) is PaneState.IDLE)


async def test_a_locked_journal_fails_the_turn_into_the_error_log_and_the_dashboard_stays(
    repo: Path,
) -> None:
    from tests.test_native_faults import Locker
    from zirv_dash.native.journal import journal_path

    app = make_app(repo, agent="native")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: bool(screen.native_views))
        pane, view = native_of(screen)
        await wait_for(pilot, lambda: isinstance(app.focused, NativeComposer))
        locker = Locker(journal_path(pane.short))
        try:
            await pilot.press(*"hello", "enter")
            await wait_for(pilot, lambda: bool(screen.dash.errors.unacked))
        finally:
            locker.release()
        logged = screen.dash.errors.unacked[0].text
        assert f"native pane {pane.short}" in logged and "journal error" in logged
        assert "locked" in logged
        assert app.is_running and pane.alive
        assert screen.dash.state_of(pane) is PaneState.FAILED
        composer = view.query_one(NativeComposer)
        assert composer.text == "hello"  # what could not be journaled is not lost
        # The lock is gone: the same line now starts a turn.
        await pilot.press("enter")
        session = pane.session
        assert session is not None
        await wait_for(pilot, lambda: session.pending is not None, timeout=20)


async def test_a_nudge_reaches_the_native_pane_through_its_submit_path(repo: Path) -> None:
    app = make_app(repo, agent="native")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: bool(screen.native_views))
        pane, view = native_of(screen)
        await wait_for(pilot, lambda: isinstance(app.focused, NativeComposer))
        await pilot.press("ctrl+a", "o")  # handover: refused by name, no dialog
        await wait_for(
            pilot, lambda: "no harness to hand over" in (screen.dash.current_notice() or "")
        )
        assert app.screen is screen
        await pilot.press("ctrl+a", "n")
        await wait_for(pilot, lambda: app.screen is not screen)
        await pilot.press(*"check the logs", "enter")
        transcript = view.query_one(TranscriptView)
        await wait_for(pilot, lambda: "check the logs" in transcript.plain(), timeout=20)
        composer = view.query_one(NativeComposer)
        assert composer.text == ""  # delivered as a submitted line, never typed
        session = pane.session
        assert session is not None
        inputs = [e for e in session.events if e.kind == "input"]
        assert "check the logs" in str(inputs[0].data.get("text"))


async def test_a_burst_across_a_native_and_a_pty_pane_keeps_each_key_with_its_pane(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PS1", "$ ")
    app = make_app(repo, agent="native", extra=[("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.dash.panes) == 2 and bool(screen.native_views))
        pane, view = native_of(screen)
        shell = screen.dash.panes[1]
        await pilot.press("ctrl+a", "2")
        await wait_for(pilot, lambda: "$" in screen_text(shell))
        # One read's worth of keys, as a paste or tmux send-keys delivers them: the
        # focus moves twice inside the burst, and every key lands where it was typed.
        burst(app, ["ctrl+a", "1", *"hi", "tab", "ctrl+a", "2", *chars("echo OK")])
        await wait_for(pilot, lambda: "echo OK" in screen_text(shell))
        assert view.query_one(NativeComposer).text == "hi"
        assert "hi" not in screen_text(shell)
        # Tab moved the native pane's focus off its composer before the chord left it.
        assert not view.query_one(NativeComposer).has_focus
