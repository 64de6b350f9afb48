"""A native session under faults: a journal locked by another process or
damaged, a connection that drops mid-answer, steering typed mid-reply (the
request order both providers receive)."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fixtures.native.server import (
    ProviderServer,
    Reply,
    anthropic_stream,
    openai_text,
    serve,
)
from zirv_dash.native.demo_provider import NOTE_FILE, DemoProvider
from zirv_dash.native.engine import NativeSession
from zirv_dash.native.journal import Journal, JournalError
from zirv_dash.native.protocol import AssistantMessage, UserMessage
from zirv_dash.native.routes import Route, demo_route
from zirv_dash.native.transcript import STEERING_PREFIX, conversation
from zirv_dash.native.transport import Limits

server = pytest.fixture(serve)
FAST = Limits(connect=2.0, idle=2.0, total=10.0)

LOCKER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
db.execute("COMMIT")
"""


class Locker:
    """Another process holding the journal's write lock until `release`."""

    def __init__(self, path: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", LOCKER, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline() == "locked\n"

    def release(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.write("\n")
            self.proc.stdin.flush()
            self.proc.wait(10)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    wd = tmp_path / "wd"
    wd.mkdir()
    return wd


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("ZIRV_TEST_KEY", "sk-test-123")
    yield


async def until(check: Callable[[], bool], timeout: float = 15.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.01)


def errors(session: NativeSession) -> list[str]:
    return [i.text for i in session.snapshot().transcript.items if i.tone == "err"]


# ---- a journal locked by another process ---------------------------------------------


async def test_a_locked_journal_fails_the_submit_with_a_notice_and_the_session_goes_on(
    tmp_path: Path, workdir: Path
) -> None:
    path = tmp_path / "j.sqlite"
    session = NativeSession(demo_route(), Journal(path), workdir, provider=DemoProvider(delay=0))
    locker = Locker(path)
    try:
        assert session.submit("hello") == "failed"  # not an sqlite3 exception
    finally:
        locker.release()
    assert not session.busy and session.state == "failed"
    shown = errors(session)
    assert len(shown) == 1 and shown[0].startswith("journal error: native journal")
    assert "locked" in shown[0] and str(path) in shown[0]
    # The lock is gone: the same session takes the next line.
    assert session.submit("again") == "sent"
    await until(lambda: session.pending is not None)
    assert session.pending is not None
    session.answer(session.pending.call_id, "deny")
    await session.wait_idle()
    assert session.state == "completed"


async def test_a_journal_locked_mid_turn_fails_that_turn_and_runs_nothing_unjournaled(
    tmp_path: Path, workdir: Path
) -> None:
    path = tmp_path / "j.sqlite"
    session = NativeSession(demo_route(), Journal(path), workdir, provider=DemoProvider(delay=0))
    session.submit("tidy up")
    await until(lambda: session.pending is not None)
    assert session.pending is not None and session.pending.tool == "write_file"
    locker = Locker(path)
    try:
        assert session.answer(session.pending.call_id, "once")
        await session.wait_idle()  # the task ends: no exception escapes it
    finally:
        locker.release()
    assert session.state == "failed"
    assert any("journal error" in text for text in errors(session))
    # The approval could not be journaled, so the write never ran.
    assert not (workdir / NOTE_FILE).exists()
    await session.close()
    # Reopened, the journal reads cleanly and the call is settled, not re-run.
    again = NativeSession(demo_route(), Journal(path), workdir, provider=DemoProvider(delay=0))
    tools = [i for i in again.snapshot().transcript.items if i.kind == "tool"]
    assert tools[-1].outcome is not None and tools[-1].outcome.kind == "cancelled"
    assert not (workdir / NOTE_FILE).exists()


# ---- a damaged journal ---------------------------------------------------------------


def test_corrupt_rows_are_skipped_and_counted(tmp_path: Path, workdir: Path) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    journal.append("input", id="in-1", text="first", steering=False)
    journal.append("assistant", id="m-1", text="one")
    journal.close()
    db = sqlite3.connect(path)
    # Bytes that are not UTF-8 (sqlite3 raises reading them as text), and text
    # that is not a JSON object.
    insert = "INSERT INTO events (kind, data, at_ms) VALUES (?, {}, 0)"
    db.execute(insert.format("CAST(X'FFFE7B' AS TEXT)"), ("input",))
    db.execute(insert.format("'{not json'"), ("assistant",))
    db.execute(insert.format("'[1, 2]'"), ("assistant",))
    db.commit()
    db.close()
    journal = Journal(path)
    session = NativeSession(demo_route(), journal, workdir, provider=DemoProvider(delay=0))
    assert journal.skipped == 3
    items = session.snapshot().transcript.items
    assert [i.text for i in items if i.kind in ("user", "assistant")] == ["first", "one"]
    assert any("3 unreadable row(s)" in i.text for i in items if i.kind == "notice")
    # The count is shown, never journaled: reopening does not multiply it.
    assert not any(e.kind == "notice" for e in journal.events())


def test_a_journal_sqlite_cannot_read_is_a_journal_error(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    for n in range(400):
        journal.append("input", id=f"in-{n}", text="x" * 200, steering=False)
    journal.close()
    data = bytearray(path.read_bytes())
    assert len(data) > 5 * 4096
    data[2 * 4096 : 4 * 4096] = b"\xa5" * (2 * 4096)  # wreck two pages of the table
    path.write_bytes(bytes(data))
    with pytest.raises(JournalError, match=f"native journal {path}"):
        Journal(path).events()


# ---- a connection that drops mid-answer ----------------------------------------------


def route(srv: ProviderServer, provider: str = "openai-compatible") -> Route:
    anthropic = provider == "anthropic"
    return Route(
        name="t",
        provider=provider,
        vendor="anthropic" if anthropic else "vllm",
        base_url=srv.base_url,
        path="/v1/messages" if anthropic else "/v1/chat/completions",
        model="m1",
        account="a",
        billing="api",
        credential_ref="env:ZIRV_TEST_KEY",
    )


async def test_a_dropped_connection_is_recorded_as_dropped_not_as_the_operator(
    server: ProviderServer, tmp_path: Path, workdir: Path
) -> None:
    # The body is declared longer than what is sent: the server closes the
    # socket mid-answer.
    server.replies.append(Reply(chunks=openai_text("Half an ans")[:1], drop=64))
    session = NativeSession(route(server), Journal(tmp_path / "j.sqlite"), workdir)
    session.provider.limits = FAST  # type: ignore[union-attr]
    session.submit("hi")
    await session.wait_idle()
    assert session.state == "failed"
    history = conversation(session.events)
    assert history[-1] == AssistantMessage("Half an ans [the connection dropped]")
    assert "operator" not in str(history)
    notices = [i.text for i in session.snapshot().transcript.items if i.kind == "notice"]
    assert "cut short: the connection dropped" in notices


async def test_an_operator_interrupt_is_still_recorded_as_the_operator(
    tmp_path: Path, workdir: Path
) -> None:
    session = NativeSession(
        demo_route(), Journal(tmp_path / "j.sqlite"), workdir, provider=DemoProvider(delay=0.05)
    )
    session.submit("start")
    await until(lambda: bool(session.streaming))
    session.interrupt()
    await session.wait_idle()
    last = conversation(session.events)[-1]
    assert isinstance(last, AssistantMessage)
    assert last.text.endswith("[interrupted by the operator]")


# ---- steering typed while a reply is written -----------------------------------------


def openai_roles(body: dict[str, object]) -> list[tuple[str, str]]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [(m["role"], str(m.get("content") or "")) for m in messages if m["role"] != "system"]


def anthropic_roles(body: dict[str, object]) -> list[tuple[str, str]]:
    messages = body["messages"]
    assert isinstance(messages, list)
    out = []
    for m in messages:
        text = " ".join(b.get("text", "") for b in m["content"] if b.get("type") == "text")
        out.append((m["role"], text.strip()))
    return out


@pytest.mark.parametrize("provider", ["openai-compatible", "anthropic"])
async def test_a_steer_typed_mid_reply_is_sent_after_that_reply(
    server: ProviderServer, tmp_path: Path, workdir: Path, provider: str
) -> None:
    anthropic = provider == "anthropic"
    if anthropic:
        first = anthropic_stream("I will start with the tests now")
        second = anthropic_stream("Switching to the docs")
    else:
        first = openai_text("I will ", "start ", "with ", "the ", "tests ", "now")
        second = openai_text("Switching to the docs")
    server.replies.append(Reply(chunks=first, delay=0.15))
    server.replies.append(Reply(chunks=second))
    session = NativeSession(route(server, provider), Journal(tmp_path / "j.sqlite"), workdir)
    session.provider.limits = FAST  # type: ignore[union-attr]
    session.submit("fix the build")
    await until(lambda: bool(session.streaming))
    assert session.submit("do the docs first") == "steer"
    await session.wait_idle()
    assert session.state == "completed" and len(server.seen) == 2
    roles = (anthropic_roles if anthropic else openai_roles)(server.seen[1].body)
    steer = f"{STEERING_PREFIX} do the docs first"
    assert [role for role, _ in roles] == ["user", "assistant", "user"]
    assert roles[0][1] == "fix the build"
    assert roles[1][1].replace("  ", " ").startswith("I will start with the tests now")
    assert roles[2][1] == steer  # the request ends with the steer, never with the reply
    # The provider-neutral history says the same.
    history = conversation(session.events)
    assert history[2] == UserMessage(steer)


async def test_a_steer_whose_reply_never_came_is_still_sent(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    journal.append("open", route="demo", model="demo")
    journal.append("input", id="in-1", text="go", steering=False)
    journal.append("input", id="st-1", text="and docs", steering=True, after="m-never")
    journal.append("open", route="demo", model="demo")  # the process died mid-reply
    history = conversation(journal.events())
    assert history == (UserMessage("go"), UserMessage(f"{STEERING_PREFIX} and docs"))


async def test_a_journal_locked_during_compaction_fails_it_and_the_session_goes_on(
    tmp_path: Path, workdir: Path
) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    journal.append("input", id="in-1", text="earlier", steering=False)
    journal.append("assistant", id="m-1", text="an answer")
    session = NativeSession(demo_route(), journal, workdir, provider=DemoProvider(delay=0))
    locker = Locker(path)
    try:
        assert session.submit("/compact") == "command"
        await session.wait_idle()
    finally:
        locker.release()
    assert session.state == "failed" and not session.busy
    assert session.submit_mode() == "send"  # not left compacting
    assert any("journal error" in text for text in errors(session))


async def test_a_steer_typed_while_a_tool_call_streams_follows_the_calls_result(
    server: ProviderServer, tmp_path: Path, workdir: Path
) -> None:
    from tests.fixtures.native.server import openai_tool

    (workdir / "README.md").write_text("hello\n")
    server.replies.append(
        Reply(chunks=openai_tool("call_1", "read_file", {"path": "README.md"}), delay=0.15)
    )
    server.replies.append(Reply(chunks=openai_text("Read it.")))
    session = NativeSession(route(server), Journal(tmp_path / "j.sqlite"), workdir)
    session.provider.limits = FAST  # type: ignore[union-attr]
    session.submit("what is in the readme?")
    await until(lambda: bool(session.streaming))
    assert session.submit("then stop") == "steer"
    await session.wait_idle()
    assert session.state == "completed" and len(server.seen) == 2
    messages = server.seen[1].body["messages"]
    roles = [m["role"] for m in messages if m["role"] != "system"]
    # A tool call is answered before anything else is said; the steer comes next.
    assert roles == ["user", "assistant", "tool", "user"]
    assert messages[-1]["content"] == f"{STEERING_PREFIX} then stop"
    assert messages[-2]["tool_call_id"] == "call_1"
