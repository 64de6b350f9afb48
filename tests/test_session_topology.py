"""`kill -9` of the runtime loses no topology: the roster is written at every
change, the next runtime reports exactly what it could not resume, once, and an
older topology is never replayed."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.sessionrig import (
    ENGINE_SERVE,
    descendants,
    end_runtime,
    engine_env,
    engine_serving,
    short_state,
    spawn_runtime,
    wait_gone,
)
from zirv_dash.session import blocking, cli, topology

__all__ = ["short_state"]

pytestmark = pytest.mark.timeout(120)


def serve(state: Path) -> subprocess.Popen[str]:
    repo = state / "repo"
    repo.mkdir(exist_ok=True)
    return spawn_runtime(ENGINE_SERVE, cwd=repo, env=engine_env(state))


def kill_9(proc: subprocess.Popen[str]) -> None:
    """SIGKILL the runtime: no quit path runs; its guard ends the panes."""
    below = descendants(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    assert wait_gone(below, 20) == []  # the panes, then the guard itself


def not_resumed() -> list[tuple[str, str]]:
    listed = blocking.call("session.list")
    return sorted((e["predecessor"], e["name"]) for e in listed["not_resumed"])


def test_after_kill_9_exactly_the_last_topology_is_reported_once(short_state: Path) -> None:
    first = serve(short_state)
    try:
        old = blocking.call("session.start", {"harness": "shell", "name": "old"})["session"]
        assert cli.stop_runtime() == 0  # a clean stop: its roster names `old`
        first.wait(30)
    finally:
        end_runtime(first)

    second = serve(short_state)
    try:
        assert not_resumed() == [(old["id"], "old")]
        work = blocking.call("session.start", {"harness": "shell", "name": "work"})["session"]
        agent = blocking.call("session.start", {"harness": "demo", "name": "agent"})["session"]
        gone = blocking.call("session.start", {"harness": "shell", "name": "gone"})["session"]
        blocking.call("session.stop", {"session": gone["id"], "grace": 1.0}, timeout=30)
        kill_9(second)
    finally:
        end_runtime(second)

    third = serve(short_state)
    try:
        listed = blocking.call("session.list")
        assert listed["sessions"] == []  # nothing relaunched under an old identity
        # The topology at the kill, not the older one: `old` is not replayed, and
        # the pane stopped before the kill is no longer part of it.
        assert not_resumed() == sorted([(work["id"], "work"), (agent["id"], "agent")])
        reasons = {e["predecessor"]: e["reason"] for e in listed["not_resumed"]}
        assert "no conversation to resume" in reasons[work["id"]]
        kill_9(third)  # it holds nothing now
    finally:
        end_runtime(third)

    fourth = serve(short_state)
    try:
        assert not_resumed() == []  # reported once
        assert blocking.call("session.list")["sessions"] == []
    finally:
        end_runtime(fourth)


async def test_a_quiet_runtime_writes_its_topology_again_before_it_ages_out(
    short_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(topology, "REFRESH_SECS", 0.2)
    repo = short_state / "repo"
    repo.mkdir()
    async with engine_serving(repo) as (_server, host):
        writer = host.topology
        assert writer is not None
        before = writer.writes
        async with asyncio.timeout(20):
            while writer.writes < before + 2:  # no change happened: the timer wrote
                await asyncio.sleep(0.05)
