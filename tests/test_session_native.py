"""Protocol v1's native half over the runtime's engine: a native conversation
(the offline demo route) started, submitted to, its approval found and answered
by call id, interrupted; and refused the terminal-only methods."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.sessionrig import connected, engine_serving, short_state
from zirv_dash.session.client import Client, RemoteError
from zirv_dash.session.protocol import ErrorCode

__all__ = ["short_state"]

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def repo(short_state: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = short_state / "repo"
    where.mkdir()
    # No ~/.zirv/native.toml: the built-in offline demo route.
    monkeypatch.setenv("ZIRV_HOME", str(short_state / "operator"))
    monkeypatch.setenv("ZIRV_CTX_AGENT", "shell")
    return where


async def open_approval(client: Client, sid: str) -> dict[str, Any]:
    while True:
        pending: dict[str, Any] = await client.call("session.pending", {"session": sid})
        if pending["call_id"]:
            return pending
        await asyncio.sleep(0.05)


async def test_a_native_conversation_is_driven_over_the_protocol(repo: Path) -> None:
    async with engine_serving(repo) as (server, _host), connected(server) as client:
        hello = client.hello
        assert hello is not None and "native" in hello.capabilities
        shell = await client.call("session.start", {"harness": "shell"})  # the orchestrator
        started = (await client.call("session.start", {"harness": "native", "name": "talk"}))[
            "session"
        ]
        sid = started["id"]
        assert started["harness"] == "native" and started["pid"] is None
        assert started["state"] == "running"
        with pytest.raises(RemoteError) as typed:
            await client.call("session.send_input", {"session": sid, "text": "hi"})
        assert typed.value.code is ErrorCode.UNSUPPORTED
        assert "session.submit" in typed.value.message
        with pytest.raises(RemoteError) as not_native:
            await client.call("session.submit", {"session": shell["session"]["id"], "text": "x"})
        assert not_native.value.code is ErrorCode.UNSUPPORTED

        sent = await client.call("session.submit", {"session": sid, "text": "make a note"})
        assert sent["outcome"] == "sent"
        pending = await asyncio.wait_for(open_approval(client, sid), 30)
        assert pending["tool"] == "write_file" and "zirv-demo.txt" in pending["scope"]
        assert pending["answers"] == ["once", "session", "deny"]
        # Text submitted while it waits is queued, never taken as the answer.
        queued = await client.call("session.submit", {"session": sid, "text": "yes"})
        assert queued["outcome"] == "queued"
        stale = {"session": sid, "call_id": "not-the-open-one", "answer": "once"}
        assert (await client.call("session.approve", stale))["answered"] is False
        assert not (repo / "zirv-demo.txt").exists()
        answer = {"session": sid, "call_id": pending["call_id"], "answer": "once"}
        assert (await client.call("session.approve", answer))["answered"] is True
        wait = {"session": sid, "text": "Done. I listed the workdir", "timeout": 30}
        await client.call("session.wait", wait)
        assert "You asked: make a note" in (repo / "zirv-demo.txt").read_text()
        read = await client.call("session.read", {"session": sid})
        assert any("zirv-demo.txt" in line for line in read["lines"])


async def test_a_native_turn_is_interrupted_and_a_denial_carries_guidance(repo: Path) -> None:
    async with engine_serving(repo) as (server, _host), connected(server) as client:
        await client.call("session.start", {"harness": "shell"})
        sid = (await client.call("session.start", {"harness": "native"}))["session"]["id"]
        assert (await client.call("session.interrupt", {"session": sid}))["interrupted"] is False
        await client.call("session.submit", {"session": sid, "text": "first"})
        pending = await asyncio.wait_for(open_approval(client, sid), 30)
        denial = {
            "session": sid,
            "call_id": pending["call_id"],
            "answer": "deny",
            "guidance": "no files today",
        }
        assert (await client.call("session.approve", denial))["answered"] is True
        await client.call(
            "session.wait", {"session": sid, "text": "I did not write", "timeout": 30}
        )
        assert not (repo / "zirv-demo.txt").exists()
        # The turn has ended (its status word), so the next text starts a turn.
        await client.call("session.wait", {"session": sid, "text": "completed", "timeout": 30})
        second = await client.call("session.submit", {"session": sid, "text": "second"})
        assert second["outcome"] == "sent"
        await asyncio.wait_for(open_approval(client, sid), 30)
        # Interrupting cancels the call waiting on its approval: it fails closed.
        assert (await client.call("session.interrupt", {"session": sid}))["interrupted"] is True
        while (await client.call("session.pending", {"session": sid}))["call_id"]:
            await asyncio.sleep(0.05)
        assert not (repo / "zirv-demo.txt").exists()
