"""The conversation engine over the demo route and a real loopback provider."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fixtures.native.server import ProviderServer, Reply, openai_text, openai_tool, serve
from zirv_dash.native.demo_provider import NOTE_FILE, DemoProvider
from zirv_dash.native.engine import NativeSession
from zirv_dash.native.journal import Journal
from zirv_dash.native.openai_compat import OpenAICompatProvider
from zirv_dash.native.routes import Route, demo_route
from zirv_dash.native.transcript import build_transcript, conversation
from zirv_dash.native.transport import Limits

server = pytest.fixture(serve)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    wd = tmp_path / "wd"
    wd.mkdir()
    (wd / "README.md").write_text("hello\n")
    return wd


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    j = Journal(tmp_path / "s.sqlite")
    yield j


async def until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.01)


def demo(journal: Journal, workdir: Path, **kw: object) -> NativeSession:
    return NativeSession(demo_route(), journal, workdir, provider=DemoProvider(delay=0), **kw)  # type: ignore[arg-type]


async def test_demo_turn_streams_lists_asks_and_writes_after_approval(
    journal: Journal, workdir: Path
) -> None:
    session = demo(journal, workdir)
    assert session.submit("tidy up") == "sent"
    await until(lambda: session.pending is not None)
    pending = session.pending
    assert pending is not None and pending.tool == "write_file"
    assert pending.scope == f"write_file {NOTE_FILE}"
    assert not (workdir / NOTE_FILE).exists()
    assert session.submit("queued while blocked") == "queued"
    assert session.pending is pending  # a queued line never answers the dialog
    assert session.answer(pending.call_id, "once")
    await until(lambda: (workdir / NOTE_FILE).exists())
    assert "You asked: tidy up" in (workdir / NOTE_FILE).read_text()
    # The queued line became the next turn once this one ended: it asks again.
    await until(lambda: session.pending is not None and session.pending.call_id != pending.call_id)
    assert session.pending is not None and not session.queued
    session.answer(session.pending.call_id, "deny")
    await session.wait_idle()
    kinds = [e.kind for e in journal.events()]
    assert kinds.count("input") >= 2 and "approval" in kinds and "usage" in kinds
    items = build_transcript(journal.events()).items
    tools = [i for i in items if i.kind == "tool"]
    assert [t.name for t in tools[:2]] == ["list_dir", "write_file"]
    assert tools[1].outcome is not None and tools[1].outcome.kind == "diff"
    assert any(i.kind == "user" and i.text == "queued while blocked" for i in items)


async def test_deny_refuses_with_guidance_and_steers(journal: Journal, workdir: Path) -> None:
    session = demo(journal, workdir)
    session.submit("go")
    await until(lambda: session.pending is not None)
    assert session.pending is not None
    session.answer(session.pending.call_id, "deny", "write nothing")
    await session.wait_idle()
    assert not (workdir / NOTE_FILE).exists()
    steer = [e for e in journal.events() if e.kind == "input" and e.data["steering"]]
    assert "The operator denied write_file zirv-demo.txt" in steer[0].data["text"]
    assert "write nothing" in steer[0].data["text"]


async def test_session_grant_covers_the_exact_scope_only(journal: Journal, workdir: Path) -> None:
    session = demo(journal, workdir)
    session.submit("one")
    await until(lambda: session.pending is not None)
    assert session.pending is not None
    session.answer(session.pending.call_id, "session")
    await session.wait_idle()
    session.submit("two")  # the same write_file zirv-demo.txt: no dialog this time
    await session.wait_idle()
    assert "You asked: two" in (workdir / NOTE_FILE).read_text()
    assert session.policy.needs_approval("write_file", {"path": "other.txt"})


async def test_a_headless_worker_is_offered_the_same_three_choices(
    journal: Journal, workdir: Path
) -> None:
    session = demo(journal, workdir, headless=True)
    session.submit("go")
    await until(lambda: session.pending is not None)
    pending = session.pending
    assert pending is not None
    options = pending.options()
    assert [a for a, _ in options] == ["once", "session", "deny"]
    # The first choice runs it: never a `1` that means no.
    assert options[0][1] == "Yes" and options[-1][1].startswith("No")
    assert session.answer(pending.call_id, "once")
    await until(lambda: (workdir / NOTE_FILE).exists())
    await session.wait_idle()


async def test_interrupt_while_blocked_fails_closed(journal: Journal, workdir: Path) -> None:
    session = demo(journal, workdir)
    session.submit("go")
    await until(lambda: session.pending is not None)
    assert session.pending is not None
    call_id = session.pending.call_id
    assert session.interrupt()
    await session.wait_idle()
    assert session.state == "cancelled"
    assert not session.answer(call_id, "once")  # a late answer releases nothing
    assert not (workdir / NOTE_FILE).exists()
    items = build_transcript(journal.events()).items
    tool = [i for i in items if i.kind == "tool"][-1]
    assert tool.outcome is not None and tool.outcome.kind == "cancelled"


async def test_steering_mid_turn_is_journaled_and_sent_next(
    journal: Journal, workdir: Path
) -> None:
    session = NativeSession(demo_route(), journal, workdir, provider=DemoProvider(delay=0.05))
    session.submit("start")
    await until(lambda: session.state == "generating" and bool(session.streaming))
    assert session.submit("also check docs") == "steer"
    await until(lambda: session.pending is not None)
    history = conversation(journal.events())
    assert any("also check docs" in getattr(m, "text", "") for m in history)
    session.interrupt()
    await session.wait_idle()


async def test_restart_replays_started_call_as_unknown_and_never_reruns(
    tmp_path: Path, workdir: Path
) -> None:
    path = tmp_path / "r.sqlite"
    first = Journal(path)
    first.append("open", route="demo", model="demo")
    first.append("input", id="in-1", text="run it", steering=False)
    first.append("assistant", id="m-1", text="Running.")
    args = {"command": "echo ran >> marker"}
    first.append("tool_call", id="c-1", message_id="m-1", name="run_command", arguments=args)
    first.append("tool_start", id="c-1")
    first.close()  # the process died here
    again = Journal(path)
    session = NativeSession(demo_route(), again, workdir, provider=DemoProvider(delay=0))
    items = session.snapshot().transcript.items
    tool = [i for i in items if i.kind == "tool"][0]
    assert tool.outcome is not None and tool.outcome.kind == "unknown"
    history = conversation(session.events)
    assert "outcome unknown" in getattr(history[-1], "content", "")
    assert not (workdir / "marker").exists()
    assert "1 tool call(s) were running when the session stopped" in items[-1].text


def test_replay_is_deterministic_byte_for_byte(tmp_path: Path, workdir: Path) -> None:
    from zirv_dash.native.render import render_plain

    async def run() -> None:
        session = demo(Journal(tmp_path / "d.sqlite"), workdir)
        session.submit("hello")
        await until(lambda: session.pending is not None)
        assert session.pending is not None
        session.answer(session.pending.call_id, "once")
        await session.wait_idle()
        session.journal.close()

    asyncio.run(run())
    once = render_plain(build_transcript(Journal(tmp_path / "d.sqlite").events()), 80)
    twice = render_plain(build_transcript(Journal(tmp_path / "d.sqlite").events()), 80)
    assert once == twice and "⏺ write_file(" in once and "> hello" in once


async def test_slash_commands(journal: Journal, workdir: Path) -> None:
    session = demo(journal, workdir)
    assert session.submit("/help") == "command"
    assert session.submit("/status") == "command"
    notices = [e.data["text"] for e in session.events if e.kind == "notice"]
    assert "esc interrupts" in notices[0] and "zirv/demo · demo · idle · –" in notices[1]
    assert session.submit("/nonsense here") == "sent"  # unknown: ordinary text
    await until(lambda: session.pending is not None)
    session.submit("later")
    assert session.submit("/clear") == "command" and session.queued == []
    session.interrupt()
    await session.wait_idle()


async def test_compact_offline_is_a_structural_summary(journal: Journal, workdir: Path) -> None:
    session = demo(journal, workdir)
    session.submit("first job")
    await until(lambda: session.pending is not None)
    assert session.pending is not None
    session.answer(session.pending.call_id, "once")
    await session.wait_idle()
    session.submit("/compact")
    await session.wait_idle()
    event = [e for e in journal.events() if e.kind == "compaction"][0]
    assert "the operator asked: first job" in event.data["summary"]
    assert "called write_file" in event.data["summary"]
    history = conversation(journal.events())
    assert len(history) == 1 and "first job" in getattr(history[0], "text", "")


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
        context_window=1000,
    )


async def test_loopback_turn_runs_a_read_tool_and_answers(
    server: ProviderServer, journal: Journal, workdir: Path
) -> None:
    server.replies.append(Reply(chunks=openai_tool("call_1", "read_file", {"path": "README.md"})))
    server.replies.append(Reply(chunks=openai_text("It says ", "hello.", usage=(400, 100))))
    session = NativeSession(loopback(server), journal, workdir)
    session.submit("what is in the readme?")
    await session.wait_idle()
    assert session.state == "completed"
    second = server.seen[1].body["messages"]
    assert second[-1] == {"role": "tool", "tool_call_id": "call_1", "content": "hello\n"}
    snap = session.snapshot()
    assert snap.context_left == 50
    assert [i.text for i in snap.transcript.items if i.kind == "assistant"][-1] == "It says hello."


async def test_provider_error_is_shown_and_the_session_stays_usable(
    server: ProviderServer, journal: Journal, workdir: Path
) -> None:
    server.replies.append(Reply(chunks=openai_text("cut")[:1]))  # ends mid-stream
    server.replies.append(Reply(chunks=openai_text("back")))
    route = loopback(server)
    session = NativeSession(route, journal, workdir)
    session.provider.limits = Limits(idle=2.0, total=5.0)  # type: ignore[union-attr]
    session.submit("hi")
    await session.wait_idle()
    assert session.state == "failed"
    errors = [i for i in session.snapshot().transcript.items if i.tone == "err"]
    assert "bad response" in errors[0].text
    session.submit("again")
    await session.wait_idle()
    assert session.state == "completed"


async def test_a_shell_line_goes_through_the_approval_gate(journal: Journal, workdir: Path) -> None:
    session = demo(journal, workdir)
    assert session.submit("!echo from-the-shell > shell.txt; cat shell.txt") == "sent"
    await until(lambda: session.pending is not None)
    assert session.pending is not None and session.pending.tool == "run_command"
    assert not (workdir / "shell.txt").exists()
    session.answer(session.pending.call_id, "once")
    await session.wait_idle()
    assert (workdir / "shell.txt").read_text() == "from-the-shell\n"
    history = conversation(journal.events())
    assert len(history) == 1 and "from-the-shell" in getattr(history[0], "text", "")
    session.submit("!rm -rf shell.txt")
    await until(lambda: session.pending is not None)
    assert session.pending is not None
    session.answer(session.pending.call_id, "deny")
    await session.wait_idle()
    assert (workdir / "shell.txt").exists()
    assert not [e for e in journal.events() if e.kind == "input" and e.data.get("steering")]
    assert session.submit("!echo mail", commands=False) == "sent"  # mail is never a shell line
    await until(lambda: session.pending is not None)
    assert session.pending is not None and session.pending.tool == "write_file"
    session.interrupt()
    await session.wait_idle()


async def test_interrupting_a_running_command_kills_it(journal: Journal, workdir: Path) -> None:
    session = demo(journal, workdir)
    session.submit("!sleep 30; echo late > late.txt")
    await until(lambda: session.pending is not None)
    assert session.pending is not None
    session.answer(session.pending.call_id, "once")
    await until(lambda: session.state == "executing")
    await asyncio.sleep(0.2)
    session.interrupt()
    async with asyncio.timeout(5):
        await session.wait_idle()
    tool = [i for i in session.snapshot().transcript.items if i.kind == "tool"][-1]
    assert tool.outcome is not None and tool.outcome.kind == "cancelled"
    await asyncio.sleep(0.3)
    assert not (workdir / "late.txt").exists()


async def test_a_file_reference_reaches_the_model(journal: Journal, workdir: Path) -> None:
    session = demo(journal, workdir)
    session.submit("summarize @README.md")
    await until(lambda: session.pending is not None)
    first = conversation(journal.events())[0]
    assert '<file path="README.md">\nhello\n\n</file>' in getattr(first, "text", "")
    session.interrupt()
    await session.wait_idle()


async def test_compact_goes_through_the_route_and_falls_back_offline(
    server: ProviderServer, journal: Journal, workdir: Path
) -> None:
    server.replies.append(Reply(chunks=openai_text("Hi there.")))
    server.replies.append(Reply(chunks=openai_text("The operator said hi; ", "nothing is open.")))
    server.replies.append(Reply(status=503, content_type="text/plain", chunks=[b"down"]))
    session = NativeSession(loopback(server), journal, workdir)
    session.submit("hi")
    await session.wait_idle()
    session.submit("/compact")
    await session.wait_idle()
    request = server.seen[1].body
    assert "tools" not in request and "Summarize this conversation" in str(request["messages"])
    first = [e.data for e in journal.events() if e.kind == "compaction"][0]
    assert first == {"summary": "The operator said hi; nothing is open.", "method": "route"}
    session.submit("/compact")  # the route is down now: a structural summary instead
    await session.wait_idle()
    second = [e.data for e in journal.events() if e.kind == "compaction"][1]
    assert second["method"] == "structural" and "nothing is open" in second["summary"]
    assert "compaction through the route failed" in session.snapshot().transcript.items[-2].text


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (Reply(chunks=openai_text("slow")[:1], hang=True), "no data for"),
        (Reply(huge=100 * 1024 * 1024), "exceeded"),
        (Reply(chunks=[b"data: {broken\n\n"]), "not JSON"),
    ],
)
async def test_a_misbehaving_server_ends_the_turn_in_bounded_time_and_the_session_goes_on(
    server: ProviderServer,
    journal: Journal,
    workdir: Path,
    bad: Reply,
    words: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", "sk-never-in-the-journal")
    server.replies.extend([bad, Reply(chunks=openai_text("recovered"))])
    route = Route(
        name="local",
        provider="openai-compatible",
        vendor="vllm",
        base_url=server.base_url,
        path="/v1/chat/completions",
        model="m1",
        account="a",
        billing="api",
        credential_ref="env:ZIRV_LOOPBACK_KEY",
    )
    limits = Limits(connect=2.0, idle=1.0, total=10.0, max_bytes=8 * 1024 * 1024)
    session = NativeSession(route, journal, workdir, provider=OpenAICompatProvider(route, limits))
    session.submit("hi")
    async with asyncio.timeout(15):
        await session.wait_idle()
    assert session.state == "failed"
    assert words in session.snapshot().transcript.items[-1].text
    session.submit("again")
    await session.wait_idle()
    assert session.state == "completed"
    assert b"sk-never" not in journal.path.read_bytes()
    assert not any(b"sk-never" in p.read_bytes() for p in journal.path.parent.glob("*-wal"))


async def test_input_during_compaction_is_queued_and_interrupt_keeps_history(
    journal: Journal, workdir: Path
) -> None:
    session = NativeSession(demo_route(), journal, workdir, provider=DemoProvider(delay=0.05))
    session.submit("!true")
    await until(lambda: session.pending is not None)
    assert session.pending is not None
    session.answer(session.pending.call_id, "once")
    await session.wait_idle()
    session.submit("/compact")
    await until(lambda: session.state == "generating")
    assert session.submit("after the summary") == "queued"
    session.interrupt()
    await until(lambda: session.state != "generating" or session.pending is not None)
    assert not [e for e in journal.events() if e.kind == "compaction"]
    assert "compaction interrupted" in str([e.data for e in journal.events()])
    # the queued line was sent as its own turn once compaction ended
    await until(lambda: session.pending is not None)
    assert [e.data["text"] for e in journal.events() if e.kind == "input"][-1] == (
        "after the summary"
    )
    session.interrupt()
    await session.wait_idle()
