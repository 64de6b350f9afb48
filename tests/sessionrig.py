"""Shared parts of the runtime protocol tests: a short private state dir (a unix
socket path must fit in 107 bytes, pytest's tmp paths may not) and a real server
over real PTY children."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from zirv_dash.session.client import Client
from zirv_dash.session.dash_session import DashFactory
from zirv_dash.session.engine_host import EngineHost
from zirv_dash.session.ptyhost import PtyHost
from zirv_dash.session.runtime import open_host
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


def run_script(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -c script` in a fresh interpreter (what it imports is its own), in `cwd`."""
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=dict(os.environ),
    )


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


def engine_env(state: Path) -> dict[str, str]:
    """A private HOME and operator dir, /bin/sh for the shell harness, a quick
    demo agent and a short idle window (mail is typed only into an idle pane)."""
    from tests.tmuxharness import base_env

    env = base_env(state, state / "operator")
    env["ZIRV_CTX_DASH_IDLE_QUIET_MS"] = "300"
    return env


@pytest.fixture
def engine_runtime(short_state: Path) -> Iterator[subprocess.Popen[str]]:
    """`zirv session serve` (the real engine) in its own process, for the
    repository `<state>/repo`, listening once this returns."""
    repo = short_state / "repo"
    repo.mkdir(exist_ok=True)
    proc = spawn_runtime(ENGINE_SERVE, cwd=repo, env=engine_env(short_state))
    yield proc
    end_runtime(proc)


def descendants(pid: int) -> set[int]:
    """Every live process below `pid` (from /proc), e.g. a runtime's panes and guard."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def is_guard(pid: int) -> bool:
    """The child-cleanup guard (zirv_dash/panes/guard.py) a runtime starts."""
    try:
        return b"guard.py" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def wait_gone(pids: set[int], timeout: float = 10.0) -> list[int]:
    """Those of `pids` still alive after `timeout` seconds ([] once all are gone)."""
    from zirv_dash.panes.procinfo import pid_exists

    deadline = time.monotonic() + timeout
    while True:
        alive = sorted(p for p in pids if pid_exists(p))
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


@contextlib.asynccontextmanager
async def engine_serving(
    repo: Path, dashboard: DashFactory | None = None
) -> AsyncIterator[tuple[Server, EngineHost]]:
    """The runtime's engine host for `repo` (hosting the dashboard with a factory),
    served on the state dir's socket in this process."""
    host = open_host(repo, dashboard=dashboard)
    server = Server(host)
    await server.start()
    try:
        yield server, host
    finally:
        await server.stop()


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
