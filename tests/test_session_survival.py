"""Sessions outlive their clients: `kill -9` a controlling client, reattach, and
find the same screen and the same processes (nothing relaunched)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from tests.sessionrig import runtime, short_state
from zirv_dash.session import client
from zirv_dash.session.client import Client

__all__ = ["runtime", "short_state"]

CONTROLLER = textwrap.dedent(
    """
    import asyncio
    from zirv_dash.session.client import Client

    async def main() -> None:
        c = await Client.connect()
        await c.call("session.attach", {"session": "work", "mode": "controller"})
        await c.call("session.send_input", {"session": "work", "text": "echo by-$((6*7))\\r"})
        await c.call("session.wait", {"session": "work", "text": "by-42"})
        print("attached", flush=True)
        await asyncio.sleep(3600)

    asyncio.run(main())
    """
)


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


PROMPT = "ready> "


def settled() -> bool:
    lines = client.call("session.read", {"session": "work"})["lines"]
    return len(lines) >= 2 and lines[-2] == "by-42" and lines[-1].startswith(PROMPT.strip())


def test_kill_9_the_client_then_reattach_to_the_same_screen_and_pids(
    runtime: subprocess.Popen[str], short_state: Path
) -> None:
    shell = ["/usr/bin/env", f"PS1={PROMPT}", "/bin/sh", "-i"]
    started = client.call("session.start", {"argv": shell, "name": "work"})["session"]
    pid = started["pid"]
    controller = subprocess.Popen(
        [sys.executable, "-c", CONTROLLER], stdout=subprocess.PIPE, text=True
    )
    try:
        assert controller.stdout is not None
        assert controller.stdout.readline().strip() == "attached"
        held = client.call("session.get", {"session": "work"})["session"]
        assert held["controller"] and held["pid"] == pid
        wait_for(settled, "the prompt after the echo")  # nothing more is on its way
        before = client.call("session.screen", {"session": "work"})
        os.kill(controller.pid, signal.SIGKILL)
        controller.wait(10)
    finally:
        if controller.poll() is None:
            controller.kill()
    wait_for(
        lambda: client.call("session.get", {"session": "work"})["session"]["controller"] is None,
        "the dead client's seat to be freed",
    )

    async def reattach() -> None:
        again = await Client.connect()
        try:
            got = await again.call("session.attach", {"session": "work", "mode": "controller"})
            assert got["mode"] == "controller"
            assert got["screen"]["lines"] == before["lines"]
            assert got["screen"]["cursor"] == before["cursor"]
            assert got["session"]["pid"] == pid
            await again.call("session.send_input", {"session": "work", "text": "echo $$\r"})
            await again.call("session.wait", {"session": "work", "text": str(pid)})
        finally:
            await again.close()

    asyncio.run(reattach())
    sessions = client.call("session.list")["sessions"]
    assert [(s["id"], s["pid"], s["state"]) for s in sessions] == [(started["id"], pid, "running")]
    os.kill(pid, 0)
    assert runtime.poll() is None
