"""Child exits are noticed when they happen, whoever owns SIGCHLD: the engine
watches each child with a pidfd (`runtime.childwatch`)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from pathlib import Path

import pytest

from tests.test_engine import make_engine, screen_text, until
from zirv_dash.panes.procinfo import pid_exists
from zirv_dash.runtime import childwatch
from zirv_dash.runtime import engine as engine_module
from zirv_dash.runtime import events as ev

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(not childwatch.ChildWatch.available(), reason="no pidfd_open"),
]


def exit_leaving_a_job(tmp_path: Path) -> tuple[int, int, float]:
    """In a loop of another thread (where no SIGCHLD handler can be installed,
    as when another loop of the process holds it) and with the fallback tick an
    hour away: a shell leaves a job holding its PTY open (so no EOF either) and
    exits. Returns (the shell's pid, the job's pid, seconds until PaneEnded)."""

    async def scenario() -> tuple[int, int, float]:
        engine, seen = make_engine(tmp_path)
        engine.start()
        assert not engine._sigchld  # this thread cannot own the signal
        try:
            pane = engine.spawn("shell")
            assert pane is not None and pane.pty is not None
            engine.send_input(b"sh -c 'trap \"\" HUP; exec sleep 300' & echo job=$!\r")
            await until(lambda: re.search(r"job=\d+", screen_text(pane)) is not None)
            found = re.search(r"job=(\d+)", screen_text(pane))
            assert found is not None
            job = int(found.group(1))
            loop = asyncio.get_running_loop()
            engine.send_input(b"exit\r")
            began = loop.time()
            await until(lambda: any(isinstance(e, ev.PaneEnded) for e in seen), 20)
            return pane.pty.pid, job, loop.time() - began
        finally:
            engine.close()

    return asyncio.run(scenario())


async def test_an_exit_with_no_eof_and_no_sigchld_handler_is_reaped_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine_module, "TICK_SECS", 3600.0)
    shell, job = 0, 0
    try:
        shell, job, took = await asyncio.to_thread(exit_leaving_a_job, tmp_path)
        assert not pid_exists(shell)
        assert pid_exists(job)  # its PTY stayed open: the exit gave no EOF
        assert took < 15  # the pidfd, not the hour-long tick
    finally:
        if job and pid_exists(job):
            os.kill(job, signal.SIGKILL)


async def test_a_pane_exiting_is_watched_and_released(tmp_path: Path) -> None:
    engine, seen = make_engine(tmp_path)
    engine.start()
    try:
        pane = engine.spawn("shell")
        assert pane is not None and engine.children is not None
        assert engine.children.watching(pane)
        engine.send_input(b"exit 4\r")
        await until(lambda: ev.PaneEnded(pane.short, 4) in seen)
        assert not engine.children.watching(pane)
    finally:
        engine.close()


async def test_an_exit_whose_last_output_the_reap_drained_still_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine_module, "TICK_SECS", 3600.0)
    engine, seen = make_engine(tmp_path)
    engine.start()
    try:
        pane = engine.spawn("shell")
        assert pane is not None and pane.pty is not None
        engine.send_input(b"echo ready-$((1+1))\r")
        await until(lambda: "ready-2" in screen_text(pane))
        # As when the reap runs before the reader callback: the child's last
        # output is still in the kernel when its exit is seen, so the reap reads
        # it (Pane.poll_exit) and must wait for it to be parsed.
        engine.unwatch(pane)
        engine.send_input(b"echo bye-$((2+3)); exit 5\r")
        await until(lambda: ev.PaneEnded(pane.short, 5) in seen, 20)
        assert "bye-5" in screen_text(pane)
        assert not [e for e in seen if isinstance(e, ev.ErrorRaised) and "handling" in e.text]
    finally:
        engine.close()
