"""`zirv ctx mcp serve` end to end: a real subprocess spoken to with the MCP SDK's
stdio client, and the effects checked on disk (mail files, nudge markers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from zirv_dash import paths
from zirv_dash.cli import mcp_bridge
from zirv_dash.mail import mailbox as mail
from zirv_dash.mail import nudge
from zirv_dash.panes import registry

SESSION_A = "aaaa1111-0000-4000-8000-000000000001"
SESSION_B = "bbbb2222-0000-4000-8000-000000000002"
TOOLS = {"session_snapshot", "mail_send", "mail_inbox", "nudge", "delegation_list",
         "delegation_result"}  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc
    proc.kill()
    proc.wait()


def register(repo: Path, session: str, pid: int, agent: str = "claude") -> registry.SessionRecord:
    record = registry.SessionRecord.new(session, agent, repo, "dash", pid)
    registry.register(record)
    return record


@asynccontextmanager
async def serve(
    repo: Path, *extra: str, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    full_env = {k: v for k, v in os.environ.items() if k.startswith(("ZIRV_", "PATH", "HOME"))}
    full_env.update(env or {})
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "zirv_dash.cli.main", "ctx", "mcp", "serve", "--repo", str(repo), *extra],
        env=full_env,
        cwd=str(repo),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, name: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(name, arguments)
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    return data


async def test_lists_the_four_tools_and_snapshots_this_repo_only(
    repo: Path, tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    register(repo, SESSION_A, sleeper.pid)
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    register(other, SESSION_B, sleeper.pid, agent="codex")
    async with serve(repo) as session:
        tools = await session.list_tools()
        assert {t.name for t in tools.tools} == TOOLS
        data = await call(session, "session_snapshot")
    assert data["repository"] == str(repo.resolve())
    shorts = [row["short"] for row in data["data"]["sessions"]]
    assert shorts == ["aaaa1111"]
    assert data["data"]["sessions"][0]["liveness"] == "live"


async def test_mail_send_stores_a_file_and_a_directed_note_wakes_its_session(
    repo: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    register(repo, SESSION_A, sleeper.pid)
    slug = paths.repo_slug(repo)
    async with serve(repo) as session:
        sent = await call(session, "mail_send", message="hello any")
        directed = await call(session, "mail_send", message="for you", to_session="aaaa")
    box = paths.state_dir() / "mail" / slug
    stored = {p.name: p.read_text() for p in box.iterdir() if p.is_file()}
    assert sent["data"]["id"] in stored and "hello any" in stored[sent["data"]["id"]]
    assert "for you" in stored[directed["data"]["id"]]
    assert directed["data"]["woke"] is True
    assert nudge.has_marker("aaaa1111")


async def test_mail_inbox_respects_addressees_and_consumes_nothing(
    repo: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    register(repo, SESSION_A, sleeper.pid)
    register(repo, SESSION_B, sleeper.pid, agent="codex")
    slug = paths.repo_slug(repo)

    def store(body: str, to: str = "any", to_session: str | None = None) -> None:
        mail.store(
            slug,
            body,
            from_session=mail.OPERATOR,
            from_agent=mail.OPERATOR,
            to=to,
            to_session=to_session,
        )

    store("to anyone")
    store("to A", "claude", SESSION_A)
    store("to B", "codex", SESSION_B)
    store("to codex agents", "codex")

    async with serve(repo, env={"ZIRV_CTX_SESSION": SESSION_A}) as session:
        bound = await call(session, "mail_inbox")
    async with serve(repo) as session:
        unbound = await call(session, "mail_inbox")

    assert [m["body"] for m in bound["data"]["messages"]] == ["to anyone", "to A"]
    assert [m["body"] for m in unbound["data"]["messages"]] == ["to anyone"]
    assert len(mail.list_messages(slug)) == 4  # a peek: nothing consumed


async def test_nudge_stores_mail_then_writes_the_marker(
    repo: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    register(repo, SESSION_A, sleeper.pid)
    async with serve(repo, env={"ZIRV_CTX_SESSION": SESSION_A}) as session:
        short = await session.call_tool("nudge", {"prefix": "aa", "message": "x"})
        done = await call(session, "nudge", prefix="aaaa1111", message="look at the tests")
    assert short.is_error and "too short" in json.dumps(short.model_dump(mode="json"))
    assert done["data"]["nudged"] == "aaaa1111"
    assert nudge.marker_path("aaaa1111").read_text().strip() == "aaaa1111"
    bodies = [m.body for m in mail.list_messages(paths.repo_slug(repo))]
    assert any("look at the tests" in b for b in bodies)


async def test_tools_cannot_reach_another_repositorys_sessions(
    repo: Path, tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    register(other, SESSION_B, sleeper.pid, agent="codex")
    async with serve(repo) as session:
        result = await session.call_tool("nudge", {"prefix": "bbbb2222", "message": "hi"})
    assert result.is_error
    assert not nudge.has_marker("bbbb2222")


def test_a_foreign_binding_refuses_startup(
    repo: Path, tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    register(other, SESSION_B, sleeper.pid)
    with pytest.raises(mcp_bridge.BridgeError, match="belongs to repository"):
        mcp_bridge.open_bridge(repo, SESSION_B)
    with pytest.raises(mcp_bridge.BridgeError, match="not in the session registry"):
        mcp_bridge.open_bridge(repo, "ffff0000")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "zirv_dash.cli.main",
            "ctx",
            "mcp",
            "serve",
            "--repo",
            str(repo),
            "--session",
            SESSION_B,
        ],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 1
    assert "belongs to repository" in result.stderr
