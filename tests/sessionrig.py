"""Shared parts of the runtime protocol tests: a short private state dir (a unix
socket path must fit in 107 bytes, pytest's tmp paths may not) and a real server
over real PTY children."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
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


PTY_SERVE = [
    sys.executable,
    "-c",
    "from zirv_dash.session.cli import pty_host, session_main;"
    "raise SystemExit(session_main(['serve'], pty_host))",
]
"""A runtime over bare PTY children (the protocol tests start argv commands)."""
ENGINE_SERVE = [sys.executable, "-m", "zirv_dash.session.cli", "session", "serve"]
"""The product's runtime: the real engine, headless."""


def spawn_runtime(
    command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """`command` in its own process, returned once it says it is listening."""
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=cwd,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # printed once the socket answers
    assert "listening at" in line, proc.stderr.read() if proc.stderr else line
    return proc


def end_runtime(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture
def runtime(short_state: Path) -> Iterator[subprocess.Popen[str]]:
    """A PTY-host runtime in its own process, listening once this returns."""
    proc = spawn_runtime(PTY_SERVE)
    yield proc
    end_runtime(proc)


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
