"""Focus reporting (mode 1004): a child that asked is told CSI I / CSI O when
its pane gains or loses the focus -- moving between panes, zirv's own window
gaining or losing the terminal's focus, and around overlays -- and a child
that did not ask hears nothing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual import events

from screens.open_link import OpenLinkScreen
from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from tests.test_review_ui import plain_shell

__all__ = ["plain_shell"]  # the fixture, used by name

pytestmark = pytest.mark.timeout(60)

FOCUS_CHILD = r"""
import os, sys, tty
tty.setraw(0)
os.write(1, b"\x1b[?1004hFOCUS READY\r\n")
seen = b""
while True:
    data = os.read(0, 1024)
    if data == b"q":
        break
    seen += data
    names = seen.replace(b"\x1b[I", b"in ").replace(b"\x1b[O", b"out ")
    os.write(1, b"\r\x1b[K" + b"got " + names + b"|")
"""


def events_of(pane: object) -> str:
    text = screen_text(pane)  # type: ignore[arg-type]
    line = next((li for li in text.splitlines() if li.startswith("got ")), "got |")
    return line[4:].split("|")[0].strip()


async def test_focus_moves_report_in_and_out(tmp_path: Path, plain_shell: Path) -> None:
    child = tmp_path / "focus.py"
    child.write_text(FOCUS_CHILD)
    app = make_app(tmp_path, extra=[("shell", None)])
    async with app.run_test(size=(120, 30)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 2)
        first, second = dash.panes
        await wait_for(pilot, lambda: all("$" in screen_text(p) for p in dash.panes))
        screen.engine.focus(0)
        await pilot.pause()
        first.send(f"{sys.executable} {child}\r".encode())
        await wait_for(pilot, lambda: "FOCUS READY" in screen_text(first))
        assert screen.focus_report.holder == first.short
        # To the other pane and back.
        screen.engine.focus(1)
        await wait_for(pilot, lambda: events_of(first) == "out")
        screen.engine.focus(0)
        await wait_for(pilot, lambda: events_of(first) == "out in")
        # An overlay covers the dashboard, then goes.
        app.push_screen(OpenLinkScreen("https://a.example/"))
        await wait_for(pilot, lambda: events_of(first) == "out in out")
        app.pop_screen()
        await wait_for(pilot, lambda: events_of(first) == "out in out in")
        # zirv's own window loses and regains the terminal's focus.
        app.post_message(events.AppBlur())
        await wait_for(pilot, lambda: events_of(first) == "out in out in out")
        app.post_message(events.AppFocus())
        await wait_for(pilot, lambda: events_of(first) == "out in out in out in")
        # The shell in the other pane never asked: it was sent nothing.
        assert "\x1b" not in "".join(second.model_view.lines())
        assert "[I" not in screen_text(second) and "[O" not in screen_text(second)
        first.send(b"q")
