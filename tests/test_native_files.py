"""File tools that do not trust names: hard links, FIFOs, and a search that stops.

A hard link in the workdir to a file outside it must neither be overwritten
through (writes replace the name atomically) nor read without an approval that
says so; a FIFO in the searched tree must not hang the search; a cancelled
search must really stop.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import pytest

from tests.fixtures.native.server import ProviderServer, Reply, openai_text, openai_tool, serve
from zirv_dash.native import search
from zirv_dash.native.engine import NativeSession
from zirv_dash.native.files import FileRefused, replace_atomically
from zirv_dash.native.journal import Journal
from zirv_dash.native.routes import Route
from zirv_dash.native.tools import Workdir, execute

server = pytest.fixture(serve)
OUTSIDE = "outside secret: do not read\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    place = tmp_path / "outside"
    place.mkdir()
    secret = place / "secret.txt"
    secret.write_text(OUTSIDE)
    return secret


@pytest.fixture
def wd(tmp_path: Path, outside: Path) -> Workdir:
    root = tmp_path / "wd"
    root.mkdir()
    os.link(outside, root / "linked.txt")  # the same file, a second name inside the workdir
    (root / "plain.txt").write_text("plain needle\n")
    return Workdir(root, sandbox=False)


def loopback(srv: ProviderServer) -> Route:
    return Route(
        name="local",
        provider="openai-compatible",
        vendor="vllm",
        base_url=srv.base_url,
        path="/v1/chat/completions",
        model="m1",
        account="a",
        billing="api",
    )


async def until(check: object, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():  # type: ignore[operator]
            await asyncio.sleep(0.01)


@pytest.mark.parametrize("tool", ["write_file", "edit_file"])
async def test_a_write_through_a_hard_link_replaces_the_name_and_leaves_the_outside_file(
    wd: Workdir, outside: Path, tool: str
) -> None:
    inode = os.stat(outside).st_ino
    if tool == "write_file":
        args = {"path": "linked.txt", "content": "replaced\n"}
    else:
        args = {"path": "linked.txt", "old_text": "do not read", "new_text": "replaced"}
    result = await execute(wd, tool, args, links_ok=True)  # as after its approval
    assert result.ok, result.output
    assert outside.read_text() == OUTSIDE and os.stat(outside).st_nlink == 1
    linked = wd.root / "linked.txt"
    assert "replaced" in linked.read_text() and os.stat(linked).st_ino != inode
    assert not [p for p in wd.root.iterdir() if "zirv-tmp" in p.name]  # no temp file left


async def test_a_replaced_file_keeps_its_mode(wd: Workdir) -> None:
    script = wd.root / "run.sh"
    script.write_text("echo a\n")
    script.chmod(0o750)
    result = await execute(wd, "write_file", {"path": "run.sh", "content": "echo b\n"})
    assert result.ok and script.read_text() == "echo b\n"
    assert script.stat().st_mode & 0o777 == 0o750


async def test_a_hard_linked_file_is_not_read_without_an_approval(wd: Workdir) -> None:
    refused = await execute(wd, "read_file", {"path": "linked.txt"})
    assert not refused.ok and "hard links" in refused.output and OUTSIDE not in refused.output
    approved = await execute(wd, "read_file", {"path": "linked.txt"}, links_ok=True)
    assert approved.ok and approved.output == OUTSIDE


@pytest.mark.parametrize("answer", ["deny", "once"])
async def test_reading_a_hard_link_asks_and_the_approval_says_so(
    server: ProviderServer, tmp_path: Path, wd: Workdir, answer: str
) -> None:
    server.replies.append(Reply(chunks=openai_tool("call_r", "read_file", {"path": "linked.txt"})))
    server.replies.append(Reply(chunks=openai_text("Done.")))
    session = NativeSession(loopback(server), Journal(tmp_path / "s.sqlite"), wd.root)
    session.submit("read linked.txt")
    await until(lambda: session.pending is not None)
    request = session.pending
    assert request is not None and request.tool == "read_file"
    assert "linked.txt has 2 hard links" in request.note and "outside" in request.note
    session.answer(request.call_id, answer)  # type: ignore[arg-type]
    await session.wait_idle()
    tool_message = server.seen[1].body["messages"][-2 if answer == "deny" else -1]
    assert tool_message["role"] == "tool"
    assert (OUTSIDE in tool_message["content"]) is (answer == "once")


async def test_reading_a_file_with_one_name_asks_nothing(
    server: ProviderServer, tmp_path: Path, wd: Workdir
) -> None:
    server.replies.append(Reply(chunks=openai_tool("call_p", "read_file", {"path": "plain.txt"})))
    server.replies.append(Reply(chunks=openai_text("Done.")))
    session = NativeSession(loopback(server), Journal(tmp_path / "s.sqlite"), wd.root)
    session.submit("read plain.txt")
    await session.wait_idle()
    assert session.state == "completed"
    assert not [e for e in session.events if e.kind == "approval_request"]


async def test_a_fifo_in_the_tree_neither_hangs_a_search_nor_a_read(wd: Workdir) -> None:
    os.mkfifo(wd.root / "pipe")
    os.mkfifo(wd.root / "pipe-needle.txt")
    async with asyncio.timeout(10):
        found = await execute(wd, "search_text", {"pattern": "needle"})
        read = await execute(wd, "read_file", {"path": "pipe"})
    assert found.ok and "plain.txt:1: plain needle" in found.output
    assert "pipe" not in found.output.replace("hard-linked", "")
    assert not read.ok and "not a regular file" in read.output


async def test_a_search_skips_hard_linked_files_and_says_so(wd: Workdir) -> None:
    found = await execute(wd, "search_text", {"pattern": "secret"})
    assert "linked.txt" not in found.output and "1 hard-linked file(s) not searched" in found.output


async def test_a_cancelled_search_really_stops(
    wd: Workdir, monkeypatch: pytest.MonkeyPatch
) -> None:
    for index in range(300):
        (wd.root / f"f{index:03}.txt").write_text("needle\n")
    reads: list[float] = []
    running = threading.Event()
    real = search.read_regular

    def slow(path: Path, limit: int, **kw: object) -> bytes:
        running.set()
        reads.append(time.monotonic())
        time.sleep(0.02)  # a slow disk: the walk takes seconds
        try:
            return real(path, limit, **kw)  # type: ignore[arg-type]
        finally:
            running.clear()

    monkeypatch.setattr(search, "read_regular", slow)
    task = asyncio.ensure_future(execute(wd, "search_text", {"pattern": "needle"}))
    await until(lambda: len(reads) >= 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not running.is_set()  # the worker thread had finished when the cancel returned
    stopped_at = len(reads)
    await asyncio.sleep(0.3)
    assert len(reads) == stopped_at < 300


async def test_a_directory_swapped_for_a_symlink_after_the_check_is_refused(
    wd: Workdir, outside: Path
) -> None:
    from zirv_dash.native import tools

    (wd.root / "sub").symlink_to(outside.parent)  # as if swapped in after `inside()` ran
    swapped = wd.root / "sub" / "secret.txt"
    with pytest.raises(tools.ToolFailure, match="no longer inside the workdir"):
        tools._read_text(wd, swapped)
    with pytest.raises(FileRefused, match="no longer inside the workdir"):
        replace_atomically(wd.root, swapped, "overwritten")
    assert outside.read_text() == OUTSIDE
