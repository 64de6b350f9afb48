"""Shared parts of the runtime protocol tests: a short private state dir (a unix
socket path must fit in 107 bytes, pytest's tmp paths may not) and a real server
over real PTY children."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from zirv_dash.session.client import Client
from zirv_dash.session.ptyhost import PtyHost
from zirv_dash.session.server import Server

CAT = ["/bin/cat"]
"""A real child that echoes what it is sent (the PTY echoes it too) and waits."""


@pytest.fixture
def short_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    state = Path(tempfile.mkdtemp(prefix="zs-", dir="/tmp"))
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(state))
    yield state
    shutil.rmtree(state, ignore_errors=True)


@contextlib.asynccontextmanager
async def serving(owner_uid: int | None = None) -> AsyncIterator[Server]:
    server = Server(PtyHost(), owner_uid=owner_uid)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@contextlib.asynccontextmanager
async def connected(server: Server) -> AsyncIterator[Client]:
    assert server.path is not None
    client = await Client.connect(server.path)
    try:
        yield client
    finally:
        await client.close()


async def start_cat(client: Client, name: str = "cat") -> str:
    result = await client.call("session.start", {"argv": CAT, "name": name, "harness": "shell"})
    session_id: str = result["session"]["id"]
    return session_id
