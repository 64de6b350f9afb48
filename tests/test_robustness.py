"""Regressions found in review: each would have hurt a user in a real session."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from textual import events

from tests.apphelpers import dash_screen, make_app, screen_text, wait_for

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")


async def test_a_pane_opened_after_one_ends_still_shows_output(tmp_path: Path) -> None:
    # A child that exits with output still queued used to leave a reader on its
    # closed fd; the next pane got the same fd number and never showed anything.
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: bool(dash.panes) and "$" in screen_text(dash.panes[0]))
        first = screen.engine.spawn("shell", focus=False)
        assert first is not None
        await wait_for(pilot, lambda: "$" in screen_text(first))
        first.send(b"seq 1 500; exit 0\r")
        time.sleep(1.0)  # the loop is blocked: the reap races the reader, as under load
        screen.engine.reap()
        second = screen.engine.spawn("shell")
        assert second is not None
        second.send(b"echo HELLO-FROM-$((6*7))\r")
        await wait_for(pilot, lambda: "HELLO-FROM-42" in screen_text(second))
        await wait_for(pilot, lambda: not first.alive)


async def test_copy_mode_search_with_markup_characters(tmp_path: Path) -> None:
    from screens.copy_mode import CopyModeScreen

    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes) and "$" in screen_text(dash.panes[0]))
        await pilot.press("ctrl+a", "left_square_bracket")
        await wait_for(pilot, lambda: isinstance(app.screen, CopyModeScreen))
        await pilot.press("slash", "left_square_bracket", "slash", "b", "right_square_bracket")
        await pilot.pause(0.2)
        assert app.is_running and isinstance(app.screen, CopyModeScreen)


async def test_a_big_paste_reaches_a_slow_reader_without_more_keys(tmp_path: Path) -> None:
    child = (
        "import os, select, sys, time, tty\n"
        "tty.setraw(0)\n"
        "os.write(1, b'RAW-READY\\r\\n')\n"
        "n = 0\n"
        "while n < 200000:\n"
        "    r, _, _ = select.select([0], [], [], 5)\n"
        "    if not r: break\n"
        "    n += len(os.read(0, 65536)); time.sleep(0.005)\n"
        "os.write(1, f'GOT {n}\\r\\n'.encode())\n"
        "time.sleep(5)\n"
    )
    script = tmp_path / "reader.py"
    script.write_text(child)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: bool(dash.panes) and "$" in screen_text(dash.panes[0]))
        pane = dash.panes[0]
        pane.send(f"exec {sys.executable} {script}\r".encode())
        # setraw flushes what arrived before it: paste once the child says it is raw.
        await wait_for(pilot, lambda: "RAW-READY" in screen_text(pane), timeout=20)
        app.post_message(events.Paste("x" * 200_000))
        await wait_for(pilot, lambda: "GOT 200000" in screen_text(pane), timeout=20)


def test_a_turn_signal_does_not_hand_an_unsent_draft_to_delivery(tmp_path: Path) -> None:
    from zirv_dash.harnesses import adapters
    from zirv_dash.panes.pane import Pane
    from zirv_dash.panes.spec import PaneSpec

    spec = PaneSpec("shell", adapters.ADAPTERS["shell"], ["/bin/sh"], str(tmp_path))
    pane = Pane(spec, 80, 24, 1 << 20)
    assert pane.start({"PATH": "/usr/bin:/bin", "PS1": "$ "})
    try:
        pane.send(b"half a thought")  # typed, not submitted
        pane.turn_signal()
        assert pane.user_typed_since_turn, "an unsent draft must keep blocking injection"
        pane.send(b"\r")
        pane.turn_signal()
        assert not pane.user_typed_since_turn
    finally:
        pane.stop(grace=0.2)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain ascii", "plain ascii"),
        ("日本語 ok", "日本語 ok"),
        ("❤\ufe0f x", "❤ x"),  # VS16: one cell in tmux, two to Rich
        ("✔\ufe0f done", "✔ done"),
    ],
)
def test_runs_cover_exactly_the_cells_the_model_gave_them(text: str, shown: str) -> None:
    from rich.cells import cell_len

    from widgets.terminal_view import fit_run
    from zirv_dash.terminal import cell_width

    fitted = fit_run(text)
    assert fitted == shown
    assert cell_len(fitted) == cell_width(text)  # the rest of the row keeps its columns
