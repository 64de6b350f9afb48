"""While a key or chord is on its way, hidden panes' PTYs are left unread (their
children block, as on a slow terminal); nothing is lost or reordered, and
holds renewed back to back still give hidden panes their turn."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.test_engine import make_engine, screen_text, until
from zirv_dash.dash.selection import ModelLines
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime import Engine

pytestmark = pytest.mark.timeout(60)

LINES = 40_000


def all_text(pane: Pane) -> list[str]:
    src = ModelLines(pane.model_view)
    return ["".join(src.cells(n)).rstrip() for n in range(src.line_count)]


def reading(engine: Engine, pane: Pane) -> bool:
    fds = engine._fds
    assert fds is not None and pane.pty is not None
    return fds.reads_for(pane.pty.fd, pane.pty)


async def two_panes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Engine, Pane, Pane]:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")
    engine, _seen = make_engine(tmp_path)
    engine.start()
    shown = engine.spawn("shell")
    hidden = engine.spawn("shell", focus=False)
    assert shown is not None and hidden is not None
    await until(lambda: "$" in screen_text(shown) and "$" in screen_text(hidden))
    return engine, shown, hidden


async def test_a_hold_leaves_hidden_panes_unread_and_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, shown, hidden = await two_panes(tmp_path, monkeypatch)
    try:
        engine.send_input(f"seq 1 {LINES}; echo seq-done\r".encode(), short=hidden.short)
        # Under way (a backlog waiting in the inbox is a moment a fast parser
        # may skip between two looks: not waited for).
        await until(lambda: hidden.bytes_in > 20_000)
        engine.pump.hold_background(30.0)  # a hold longer than the test
        assert not reading(engine, hidden) and reading(engine, shown)
        # Nothing more is taken from the hidden pane's PTY while the hold lasts,
        # even when something else asks for it to be watched again.
        taken = hidden.bytes_in + hidden.inbox_bytes
        engine.watch(hidden)
        assert not reading(engine, hidden)
        # Typed once the pump waits out the hold with the hidden backlog: the
        # echo is parsed when it is read, not when the hold ends.
        await asyncio.sleep(0.05)
        engine.send_input(b"echo shown-$((6*7))\r")
        await until(lambda: "shown-42" in screen_text(shown))
        assert hidden.bytes_in + hidden.inbox_bytes == taken
        # The hold ends: the child carries on where it blocked.
        engine.pump.release_hold()
        assert reading(engine, hidden)
        await until(lambda: "seq-done" in screen_text(hidden), timeout=40)
        numbers = [line for line in all_text(hidden) if line.isdigit()]
        assert numbers == [str(n) for n in range(1, LINES + 1)]
    finally:
        engine.close()


async def test_focus_moving_to_a_paused_pane_reads_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _shown, hidden = await two_panes(tmp_path, monkeypatch)
    try:
        engine.pump.hold_background(30.0)
        assert not reading(engine, hidden)
        engine.focus(engine.dash.panes.index(hidden))
        assert reading(engine, hidden)
        engine.send_input(b"echo now-$((6*7))\r")
        await until(lambda: "now-42" in screen_text(hidden))
    finally:
        engine.close()


async def test_holds_renewed_back_to_back_still_let_hidden_panes_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _shown, hidden = await two_panes(tmp_path, monkeypatch)
    typing = True

    async def type_forever() -> None:
        # A key every 10 ms, each holding the hidden panes for 30 ms.
        while typing:
            engine.pump.hold_background(0.03)
            await asyncio.sleep(0.01)

    typist = asyncio.create_task(type_forever())
    try:
        await asyncio.sleep(0.05)
        engine.send_input(b"echo hidden-$((6*7))\r", short=hidden.short)
        await until(lambda: "hidden-42" in screen_text(hidden))
    finally:
        typing = False
        await typist
        engine.close()


@pytest.mark.serial  # follows a state through time: not beside another worker
async def test_a_hidden_pane_working_through_a_hold_is_still_working(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its quiet while unread is ours: the hold ends, what it wrote is parsed,
    and its state (and how long it has been in it) carries on unbroken."""
    from zirv_dash.attention.states import PaneState

    engine, shown, hidden = await two_panes(tmp_path, monkeypatch)
    try:
        hidden.tracker.idle_quiet = 0.6  # shorter than the hold below
        engine.send_input(b"while :; do printf ..........; sleep 0.05; done\r", short=hidden.short)
        await until(lambda: hidden.state() is PaneState.WORKING and hidden.bytes_in > 200)
        since = hidden.state_since()
        engine.pump.hold_background(1.2)
        assert not reading(engine, hidden)
        await until(lambda: reading(engine, hidden))  # the hold ended by itself
        before = hidden.bytes_in
        await until(lambda: hidden.bytes_in > before)
        assert hidden.state() is PaneState.WORKING
        assert hidden.state_since() == since  # no quiet was entered inside the hold
    finally:
        engine.close()
