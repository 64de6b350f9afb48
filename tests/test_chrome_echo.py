"""A chrome redraw (a spinner frame) waits for the echo of a key just typed,
so the echo's frame is drawn first; never for long."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from screens.app import ZirvApp
from screens.chrome import DEFER_MAX, ECHO_FRAME, ECHO_WAIT
from screens.dashboard import DashboardScreen
from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime import events as ev

TICK = 1e-6
"""Far less than any wait, far more than the rounding of a clock reading."""

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")


async def _at_prompt(pilot: Pilot[Any]) -> tuple[DashboardScreen, Pane]:
    """The dashboard, once its one shell pane shows its prompt."""
    assert isinstance(pilot.app, ZirvApp)
    screen = dash_screen(pilot.app)
    dash = screen.dash
    await wait_for(pilot, lambda: len(dash.panes) == 1 and "$" in screen_text(dash.panes[0]))
    return screen, dash.panes[0]


async def test_a_redraw_waits_for_the_typed_keys_echo_and_no_longer(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, pane = await _at_prompt(pilot)
        chrome = screen.chrome
        await pilot.pause(0.1)
        assert chrome._echo_wait(time.monotonic()) == 0  # nothing typed lately
        screen.engine.send_input(b"x")
        typed = pane.last_input_at
        assert typed is not None
        # Before the echo: up to ECHO_WAIT after the key (compared with a
        # tolerance: `typed + ECHO_WAIT - typed` is ECHO_WAIT only to within the
        # rounding of a clock reading that has been running for hours).
        assert chrome._echo_wait(typed) == pytest.approx(ECHO_WAIT)
        assert 0 < chrome._echo_wait(typed + ECHO_WAIT / 2) == pytest.approx(ECHO_WAIT / 2)
        assert chrome._echo_wait(typed + ECHO_WAIT + TICK) == 0
        # A redraw an event asks for is put off, then runs.
        chrome._refresh_after_echo()
        assert chrome._deferred is not None
        await wait_for(pilot, lambda: chrome._deferred is None)
        # The echo parsed: only until its frame is drawn.
        chrome.on_event(ev.PaneOutput(pane.short))
        assert chrome._echo_at >= typed
        echoed = chrome._echo_at = typed + 0.002
        assert chrome._echo_wait(echoed) == pytest.approx(ECHO_FRAME)
        # Keys typed faster than echoes come back do not hold the chrome forever:
        # a key just typed, no echo yet, but the redraw put off since long ago.
        chrome._echo_at, chrome._deferred_since = 0.0, typed
        pane.last_input_at = typed + DEFER_MAX
        now = typed + DEFER_MAX + TICK
        assert chrome._echo_wait(now) == 0
        chrome._deferred_since = typed + DEFER_MAX / 2  # not put off that long
        assert chrome._echo_wait(now) == pytest.approx(ECHO_WAIT - TICK)


async def test_a_spinner_frame_moves_the_glyphs_without_a_full_redraw(tmp_path: Path) -> None:
    from widgets.glyphs import SPINNER
    from widgets.sidebar import Sidebar
    from zirv_dash.attention.states import PaneState

    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash, chrome = screen.dash, screen.chrome
        await wait_for(pilot, lambda: len(dash.panes) == 1 and "$" in screen_text(dash.panes[0]))
        screen.engine.send_input(b"while :; do echo busy; sleep 0.05; done\r")
        await wait_for(pilot, lambda: dash.state_of(dash.panes[0]) is PaneState.WORKING)
        await wait_for(pilot, lambda: chrome._spinner is not None)
        chrome.refresh()
        full: list[float] = []
        refresh = chrome.refresh
        chrome.refresh = lambda: full.append(time.monotonic()) or refresh()  # type: ignore[method-assign]
        sidebar = screen.query_one(Sidebar)
        ticks = iter(range(1000, 1010))
        chrome.tick = lambda: next(ticks)  # type: ignore[method-assign]
        chrome._full_due = time.monotonic() + 60
        chrome._echo_at = chrome._deferred_since = 0.0
        pane = dash.panes[0]
        pane.last_input_at = None  # no key on its way
        seen = set()
        for _ in range(3):
            chrome._spin()
            seen.add(sidebar.render_line(1).text)
        assert not full  # no state, row or header was computed again
        assert sidebar.tick == 1002 and screen.query_one("#pane-header").facts.tick == 1002
        assert len(seen) == 3 and all(any(c in t for c in SPINNER) for t in seen)
        # When the age text changes, the frame is a full redraw.
        chrome._full_due = time.monotonic() - 1
        chrome._spin()
        assert full


@pytest.mark.serial  # counts frames against the spinner timer: not beside another worker
async def test_while_typing_the_spinner_moves_just_after_each_echo(tmp_path: Path) -> None:
    """Typed into a working pane, the spinner's frames come right after a key's
    echo is drawn, none on the spinner's own timer (where one landing as a key
    arrived made the key wait); it keeps moving, and once typing stops its
    timer draws again."""
    from screens.chrome import SPIN_STARVE, TYPING_SPIN

    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, pane = await _at_prompt(pilot)
        chrome = screen.chrome
        screen.engine.send_input(b"cat\r")  # a foreground job: the pane works
        await wait_for(pilot, lambda: chrome._spinner is not None)
        draws: list[str] = []
        after_echo = [False]
        draw, spin_after_echo = chrome._draw_spin, chrome._spin_after_echo

        def counted_draw() -> None:
            draws.append("echo" if after_echo[0] else "timer")
            draw()

        def counted_after_echo() -> None:
            after_echo[0] = True
            try:
                spin_after_echo()
            finally:
                after_echo[0] = False

        chrome._draw_spin = counted_draw  # type: ignore[method-assign]
        chrome._spin_after_echo = counted_after_echo  # type: ignore[method-assign]
        await pilot.pause(0.3)
        draws.clear()
        start = time.monotonic()
        while time.monotonic() - start < 1.0:
            screen.engine.send_input(b"k")
            await pilot.pause(0.04)
        assert draws.count("echo") >= 4, draws  # the spinner moved all along
        # The timer drew only when no echo had for SPIN_STARVE (a loaded machine).
        assert draws.count("timer") <= draws.count("echo") // 2, draws
        typed = pane.last_input_at
        assert typed is not None
        await wait_for(pilot, lambda: time.monotonic() - typed > TYPING_SPIN + SPIN_STARVE)
        draws.clear()
        await wait_for(pilot, lambda: draws.count("timer") >= 2)
        assert "echo" not in draws
