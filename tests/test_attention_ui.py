"""States in the running dashboard (Pilot, real demo panes): `◆` done-unseen,
our own resizes, time in state, the demo's single-key question, ended panes."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from screens.app import ZirvApp
from screens.dashboard import DashboardScreen
from screens.help import HelpScreen
from screens.quit_confirm import QuitConfirmScreen
from tests.apphelpers import (
    dash_screen,
    demo_worker,
    gated_demo_app,
    make_app,
    screen_text,
    wait_for,
)
from widgets.footer_bar import FooterBar
from widgets.glyphs import glyph
from widgets.header_bar import HeaderBar
from widgets.pane_header import PaneHeader
from widgets.sidebar import Sidebar
from zirv_dash.attention.states import PaneState
from zirv_dash.panes.pane import Pane
from zirv_dash.textfmt import age_text

# Timing of states (quiet periods, frames) is what these tests measure: serial.
pytestmark = [pytest.mark.timeout(60), pytest.mark.serial]


def row_glyph(screen: DashboardScreen, pane: Pane) -> str:
    row = next(r for r in screen.query_one(Sidebar).rows if r.key == pane.short)
    return glyph(row.state, 0)[0]


async def two_panes(pilot: Pilot[Any]) -> tuple[DashboardScreen, Pane, Pane]:
    app = pilot.app
    assert isinstance(app, ZirvApp)
    screen = dash_screen(app)
    dash = screen.dash
    await wait_for(pilot, lambda: len(dash.panes) == 2 and all(p.pty for p in dash.panes))
    return screen, dash.panes[0], dash.panes[1]


async def test_a_hidden_demo_pane_that_finished_shows_done_until_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = tmp_path / "gate"
    monkeypatch.setenv("ZIRV_DEMO_GATE", str(gate))
    app = make_app(tmp_path, extra=[("demo", "write the tests")], flags=QUICK)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, orch, worker = await two_panes(pilot)
        dash = screen.dash
        await wait_for(pilot, lambda: "Working on: write the tests" in screen_text(worker))
        assert dash.focused_pane is orch  # the worker runs hidden
        assert worker.state() is PaneState.WORKING
        gate.touch()  # let its turn finish
        await wait_for(pilot, lambda: worker.state() is PaneState.DONE_UNSEEN)
        await wait_for(pilot, lambda: row_glyph(screen, worker) == "◆")
        assert dash.current_notice() == f"◆ {worker.short} done"
        # Refresh after refresh it stays unseen while hidden, and our resize
        # (zoom in and out) makes it redraw, which is neither work nor a look.
        await pilot.pause(0.5)
        assert worker.state() is PaneState.DONE_UNSEEN
        for _ in range(2):
            before = worker.bytes_in
            await pilot.press("ctrl+a", "z")
            await wait_for(pilot, lambda b=before: worker.bytes_in > b)
            assert worker.state() is PaneState.DONE_UNSEEN
        # Focused under a dialog: no completed frame has shown it live yet.
        await pilot.press("ctrl+a", "question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        screen.panes.action_focus(1)
        await pilot.pause(0.3)
        assert worker.state() is PaneState.DONE_UNSEEN
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        # Now a frame shows it at the live view: acknowledged.
        await wait_for(pilot, lambda: worker.state() is PaneState.IDLE)
        await wait_for(pilot, lambda: row_glyph(screen, worker) == "●")
        # Looking at it away again does not bring the `◆` back.
        screen.panes.action_focus(0)
        await pilot.pause(0.5)
        assert worker.state() is PaneState.IDLE


async def test_a_scrolled_back_view_does_not_acknowledge_done(tmp_path: Path) -> None:
    app = make_app(tmp_path, extra=[("demo", "first")], flags=QUICK)
    async with app.run_test(size=(120, 20)) as pilot:
        screen, _orch, worker = await two_panes(pilot)
        await wait_for(pilot, lambda: worker.last_screen_line() == ">")
        for task in ("second", "third"):  # enough lines to scroll back through
            worker.send(task.encode() + b"\r")
        await wait_for(pilot, lambda: "Working on: third" in screen_text(worker))
        await wait_for(pilot, lambda: worker.state() is PaneState.DONE_UNSEEN, timeout=15)
        assert worker.model_view.history_size > 3
        worker.scroll_by(3)
        screen.panes.action_focus(1)  # shown, but scrolled back: not the live view
        await pilot.pause(0.4)
        assert worker.state() is PaneState.DONE_UNSEEN
        await pilot.press("ctrl+a", "end")
        await wait_for(pilot, lambda: worker.state() is PaneState.IDLE)


QUICK = {"dash": {"idle_quiet_ms": 500}}


async def test_our_resizes_are_not_work_and_quit_does_not_ask(tmp_path: Path) -> None:
    # No turn-signal socket here: the demo goes idle by quiet alone, the way
    # Codex, Gemini CLI or a shell do, so a redraw would count for the full quiet.
    app = make_app(tmp_path, agent="demo", flags={"dash": {"idle_quiet_ms": 2_000}})
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        pane = dash.panes[0]
        await wait_for(pilot, lambda: pane.last_screen_line() == ">")
        await wait_for(pilot, lambda: pane.state() is PaneState.IDLE, timeout=15)
        for chord in ("z", "z", "b", "b"):  # zoom in and out, sidebar off and on
            before = pane.bytes_in
            columns = pane.model_view.columns
            await pilot.press("ctrl+a", chord)
            await wait_for(pilot, lambda c=columns: pane.model_view.columns != c)
            # The demo redraws its prompt for the new size (SIGWINCH) ...
            await wait_for(pilot, lambda b=before: pane.bytes_in > b)
            # ... and that is not work.
            assert pane.state() is PaneState.IDLE, chord
            assert pane.repaint_bytes > 0
        assert not dash.working_panes()
        await pilot.press("ctrl+a", "q")
        for _ in range(20):
            assert not isinstance(app.screen, QuitConfirmScreen)
            if not app.is_running:
                break
            await pilot.pause(0.05)
        await wait_for(pilot, lambda: not app.is_running, timeout=15)


async def test_a_working_pane_resized_goes_on_working(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its spinner ticking after our resize is the work it was doing, not a
    redraw: with a quiet period shorter than the redraw window, a pane whose
    output after a zoom were all taken for a redraw would read as unknown."""
    app, gate = gated_demo_app(tmp_path, monkeypatch, "a long task", idle_quiet_ms=1_000)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = await demo_worker(pilot, app, "a long task")
        await wait_for(pilot, lambda: pane.state() is PaneState.WORKING)
        await pilot.press("ctrl+a", "2")  # the worker takes the focus: the zoom is its
        for _ in range(2):  # zoom in, and out again
            columns = pane.model_view.columns
            await pilot.press("ctrl+a", "z")
            await wait_for(pilot, lambda c=columns: pane.model_view.columns != c)
            resized = time.monotonic()
            seen = []
            # Past the 1 s quiet period, inside the 1.5 s a redraw may take.
            while time.monotonic() - resized < 1.4:
                seen.append(pane.state())
                await pilot.pause(0.05)
            assert set(seen) == {PaneState.WORKING}
        gate.touch()
        await wait_for(pilot, lambda: pane.state() is not PaneState.WORKING, timeout=20)


async def test_typing_after_a_resize_is_still_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = tmp_path / "gate"  # the turn's last step waits for it: still working when looked at
    monkeypatch.setenv("ZIRV_DEMO_GATE", str(gate))
    app = make_app(tmp_path, agent="demo", flags={"dash": {"idle_quiet_ms": 2_000}})
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        pane = dash.panes[0]
        await wait_for(pilot, lambda: pane.state() is PaneState.IDLE, timeout=15)
        await pilot.press("ctrl+a", "z")
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: "Working on: go" in screen_text(pane))
        assert pane.state() is PaneState.WORKING
        gate.touch()


async def test_the_timer_is_time_in_state(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="demo", flags=QUICK)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        pane = dash.panes[0]
        await wait_for(pilot, lambda: pane.state() is PaneState.IDLE, timeout=15)
        await wait_for(pilot, lambda: time.time() - pane.created_at > 4, timeout=10)
        pane.send(b"again\r")
        await wait_for(pilot, lambda: pane.state() is PaneState.WORKING)
        screen.chrome.refresh()
        now = time.monotonic()
        facts = screen.query_one(PaneHeader).facts
        assert facts.state is PaneState.WORKING
        assert pane.state_since(now) > pane.started_mono + 3
        assert facts.age in {age_text(now - pane.state_since(now)), age_text(0), age_text(1)}
        assert facts.age != age_text(time.time() - pane.created_at)


async def test_demo_question_takes_one_key_and_states_are_exact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = tmp_path / "gate"
    monkeypatch.setenv("ZIRV_DEMO_GATE", str(gate))
    app = make_app(tmp_path, agent="demo", flags={"dash": {"idle_quiet_ms": 300}})
    app.options.manage_state = True  # the turn-signal socket the demo reports on
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        pane = dash.panes[0]
        await wait_for(pilot, lambda: pane.state() is PaneState.IDLE, timeout=15)
        await pilot.press(*"/ask", "enter")
        await wait_for(pilot, lambda: pane.state() is PaneState.NEEDS_YOU)
        await pilot.pause(0.6)  # twice the quiet: still waiting for you, not idle
        assert pane.state() is PaneState.NEEDS_YOU
        await pilot.press("enter")  # not an answer to a (y/n) question
        await pilot.pause(0.6)
        assert pane.state() is PaneState.NEEDS_YOU
        await pilot.press("y")  # one key, no Enter
        await wait_for(pilot, lambda: "approved" in screen_text(pane))
        await wait_for(pilot, lambda: "Working on: the approved step" in screen_text(pane))
        await wait_for(pilot, lambda: pane.state() is PaneState.WORKING)
        await pilot.pause(0.6)
        assert pane.state() is PaneState.WORKING  # held at its last step: working
        gate.touch()
        await wait_for(pilot, lambda: pane.last_screen_line() == ">")
        await wait_for(pilot, lambda: pane.state() is PaneState.IDLE)
        # Declining takes one key too.
        await pilot.press(*"/ask", "enter")
        await wait_for(pilot, lambda: pane.state() is PaneState.NEEDS_YOU)
        await pilot.press("n")
        await wait_for(pilot, lambda: "declined" in screen_text(pane))
        await wait_for(pilot, lambda: pane.state() is PaneState.IDLE)


async def test_ended_panes_say_how_they_ended(tmp_path: Path) -> None:
    app = make_app(
        tmp_path, extra=[("demo", "doomed"), ("demo", None), ("demo", None)], flags=QUICK
    )
    async with app.run_test(size=(140, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 4 and all(p.pty for p in dash.panes))
        failing, clean, stopped = dash.panes[1:]
        for pane in dash.panes[1:]:
            await wait_for(pilot, lambda p=pane: p.last_screen_line() == ">")
        failing.send(b"/fail\r")
        clean.send(b"/quit\r")
        assert stopped.pty is not None
        stopped.pty.signal_group(signal.SIGTERM)
        await wait_for(pilot, lambda: not any(p.alive for p in dash.panes[1:]), timeout=15)
        expected = {
            failing: (
                PaneState.FAILED,
                "✗ exit 3",
                "✗ failed with exit code 3",
                "exit 3  ✗ Failed",
            ),
            clean: (PaneState.EXITED, "✓ exit 0", "✓ exited cleanly", "exit 0  ✓ Exited"),
            stopped: (PaneState.STOPPED, "■ TERM", "■ stopped by SIGTERM", "SIGTERM  ■ Stopped"),
        }
        for index, (pane, (state, row, footer, header)) in enumerate(expected.items(), 1):
            screen.panes.action_focus(index)
            await wait_for(pilot, lambda p=pane, s=state: dash.state_of(p) is s)
            screen.chrome.refresh()
            char, note = row.split()[0], row.split(maxsplit=1)[1]
            assert row_glyph(screen, pane) == char
            sidebar = screen.query_one(Sidebar)
            line = sidebar._render_row(
                next(r for r in sidebar.rows if r.key == pane.short), 40
            ).plain
            assert line.split()[0] == char and line.rstrip().endswith(note), line
            assert footer in screen.query_one(FooterBar).segments
            assert header in screen.query_one(PaneHeader).render().plain
            hints = [label for _chord, label in screen.query_one(HeaderBar).facts.hints]
            # Only the failed pane launched with a prompt kept a request to retry.
            assert ("retry" in hints) is (pane is failing), hints
            assert "restore" not in hints


def test_a_quiet_pane_at_an_unrecognised_screen_is_unknown_never_idle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real child on a real PTY: quiet at a screen that is not the harness's
    prompt reads `unknown`; once it draws its prompt it is idle."""
    import sys

    from zirv_dash.config.layers import load_settings
    from zirv_dash.dash.dashboard import Dashboard

    gate = tmp_path / "gate"
    child = (
        "import os, sys, time\n"
        "sys.stdout.write('Continue? anything could be here\\r\\n'); sys.stdout.flush()\n"
        f"while not os.path.exists({str(gate)!r}): time.sleep(0.02)\n"
        "sys.stdout.write('demo> '); sys.stdout.flush(); sys.stdin.read()\n"
    )
    settings = load_settings(tmp_path, flags={"dash": {"idle_quiet_ms": 200}})
    dash = Dashboard(settings, tmp_path, manage_state=False)
    try:
        pane = dash.spawn("demo", argv=[sys.executable, "-c", child])
        deadline = time.monotonic() + 15

        def settle(want: PaneState) -> None:
            while pane.state() is not want:
                assert time.monotonic() < deadline, (pane.state(), pane.model_view.lines()[:3])
                pane.read_available()
                pane.pump(1 << 16)
                time.sleep(0.02)

        settle(PaneState.UNKNOWN)
        assert not pane.is_idle()
        gate.touch()
        settle(PaneState.IDLE)
    finally:
        dash.shutdown_all(grace=0.5)
