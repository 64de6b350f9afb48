"""The runtime's engine host: the protocol served over a real `Engine` (real
panes, registry records, the stop ladder), in-process and as `session serve`."""

from __future__ import annotations

import asyncio
import base64
import os
import shlex
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.sessionrig import (
    connected,
    descendants,
    engine_runtime,
    engine_serving,
    is_guard,
    run_script,
    short_state,
    wait_gone,
)
from zirv_dash import paths
from zirv_dash.mail import mailbox as mail
from zirv_dash.panes import registry
from zirv_dash.panes.procinfo import pid_exists
from zirv_dash.session import blocking, cli
from zirv_dash.session.client import Client, RemoteError
from zirv_dash.session.protocol import ErrorCode, EventKind
from zirv_dash.terminal import TerminalModel

__all__ = ["engine_runtime", "short_state"]
SENDER = "0b9f4a52-3c1d-4e8a-9f00-5b6c7d8e9f10"

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def repo(short_state: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = short_state / "repo"
    where.mkdir()
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")
    monkeypatch.setenv("ZIRV_HOME", str(short_state / "operator"))
    monkeypatch.setenv("ZIRV_DEMO_WORK_SECS", "0.3")
    monkeypatch.setenv("ZIRV_CTX_DASH_IDLE_QUIET_MS", "300")
    return where


def short_state_of(repo: Path) -> Path:
    return repo.parent


async def screen_shows(client: Client, session: str, text: str, timeout: float = 20.0) -> str:
    params = {"session": session, "text": text, "timeout": timeout}
    await client.call("session.wait", params)
    screen = await client.call("session.screen", {"session": session})
    return "\n".join(screen["lines"])


async def test_a_shell_session_on_the_engine_types_screens_and_stops(repo: Path) -> None:
    async with engine_serving(repo) as (server, host), connected(server) as client:
        started = await client.call("session.start", {"harness": "shell", "name": "work"})
        facts = started["session"]
        sid, pid = facts["id"], facts["pid"]
        assert facts["state"] == "running" and facts["harness"] == "shell"
        assert facts["name"] == "work" and facts["repo"] == "repo"
        pane = host.engine.pane(sid)
        assert pane is not None and pane.pty is not None and pane.pty.pid == pid
        # The engine filed the registry record a dashboard pane gets.
        record = registry.read_record(short_state_of(repo) / "sessions" / f"{sid}.json")
        assert record.pid == pid
        attached = await client.call(
            "session.attach", {"session": "work", "mode": "controller", "repaint": True}
        )
        assert attached["mode"] == "controller"
        await client.call("session.send_input", {"session": sid, "text": "echo hi-$((6*7))\r"})
        text = await screen_shows(client, sid, "hi-42")
        assert "hi-42" in text
        # A fresh model fed the repaint shows the same screen as the runtime's.
        shot = await client.call("session.screen", {"session": sid, "repaint": True})
        model = TerminalModel(shot["columns"], shot["rows"])
        model.feed(base64.b64decode(shot["repaint"]))
        assert model.lines() == shot["lines"]
        resized = await client.call("session.resize", {"session": sid, "columns": 90, "rows": 20})
        assert (resized["session"]["columns"], resized["session"]["rows"]) == (90, 20)
        assert (pane.model_view.columns, pane.model_view.rows) == (90, 20)
        stopped = await client.call("session.stop", {"session": sid, "grace": 1.0})
        assert stopped["session"]["state"] in ("stopped", "exited")
        assert not pid_exists(pid)
        listed = await client.call("session.list")
        assert [s["id"] for s in listed["sessions"]] == [sid]
        assert listed["not_resumed"] == []


async def test_output_reaches_an_attached_client_as_the_child_wrote_it(repo: Path) -> None:
    async with engine_serving(repo) as (server, _host), connected(server) as client:
        sid = (await client.call("session.start", {"harness": "shell"}))["session"]["id"]
        await client.call("session.attach", {"session": sid, "mode": "controller"})
        await client.call("session.send_input", {"session": sid, "text": "echo out-$((2*21))\r"})
        seen = b""
        async with asyncio.timeout(20):
            while b"out-42" not in seen:
                frame = await client.outputs.get()
                assert frame.output == sid
                seen += frame.data


async def test_a_bare_argv_start_is_refused_as_unsupported(repo: Path) -> None:
    async with engine_serving(repo) as (server, _host), connected(server) as client:
        with pytest.raises(RemoteError) as refused:
            await client.call("session.start", {"argv": ["/bin/sh"]})
        assert refused.value.code is ErrorCode.UNSUPPORTED
        with pytest.raises(RemoteError) as unknown:
            await client.call("session.start", {"harness": "no-such-harness"})
        assert unknown.value.code is ErrorCode.FAILED
        assert "unknown harness" in unknown.value.message
        assert (await client.call("session.list"))["sessions"] == []


async def test_an_exit_is_published_with_its_code_and_final_screen(repo: Path) -> None:
    async with engine_serving(repo) as (server, _host), connected(server) as client:
        await client.call("events.subscribe")
        sid = (await client.call("session.start", {"harness": "shell"}))["session"]["id"]
        await client.call("session.send_input", {"session": sid, "text": "echo bye; exit 3\r"})
        event = await client.next_event(EventKind.SESSION_EXITED, timeout=20)
        assert event.data.session is not None
        assert event.data.session.exit_code == 3 and event.data.session.state.value == "failed"
        screen = await client.call("session.read", {"session": sid})
        assert any("bye" in line for line in screen["lines"])


def test_serve_runs_the_engine_headless_without_any_ui_toolkit(repo: Path) -> None:
    """In a fresh interpreter: the runtime serves a real engine pane and never
    imports Textual or Rich."""
    script = textwrap.dedent(
        """
        import asyncio, os, signal, sys
        from zirv_dash.session import blocking, cli

        def ready(path):
            async def check():
                got = await asyncio.to_thread(
                    blocking.call, "session.start", {"harness": "shell"})
                assert got["session"]["pid"], got
                for name in ("textual", "rich"):
                    assert name not in sys.modules, name
                print("headless", flush=True)
                os.kill(os.getpid(), signal.SIGTERM)
            asyncio.get_running_loop().create_task(check())

        raise SystemExit(asyncio.run(cli.serve(cli.default_host, ready)))
        """
    )
    result = run_script(script, repo)
    assert result.returncode == 0, result.stderr
    assert "headless" in result.stdout


def test_mail_is_typed_into_a_detached_session_by_the_runtime(
    engine_runtime: subprocess.Popen[str], short_state: Path
) -> None:
    """Nobody attached: the runtime's own mail sweep delivers into the pane,
    session.screen shows it, and a reattach repaints it."""
    # The first session is the orchestrator, which is only advised of mail.
    blocking.call("session.start", {"harness": "shell", "name": "orch"})
    started = blocking.call("session.start", {"harness": "demo", "name": "worker"})["session"]
    sid, pid = started["id"], started["pid"]
    blocking.call("session.wait", {"session": sid, "text": "demo agent", "timeout": 30}, timeout=40)

    async def attach_then_drop() -> None:
        client = await Client.connect()
        await client.call("session.attach", {"session": sid, "mode": "controller"})
        await client.close()  # the client goes; the session stays

    asyncio.run(attach_then_drop())
    record = registry.read_record(short_state / "sessions" / f"{sid}.json")
    mail.store(
        paths.repo_slug(paths.repo_root(short_state / "repo")),
        "mail-while-detached-42",
        from_session=SENDER,
        from_agent="claude",
        to_session=record.session,
    )
    params = {"session": sid, "text": "mail-while-detached-42", "timeout": 45}
    blocking.call("session.wait", params, timeout=55)
    facts = blocking.call("session.get", {"session": sid})["session"]
    assert facts["controller"] is None and facts["observers"] == 0 and facts["pid"] == pid

    async def reattach() -> list[str]:
        client = await Client.connect()
        try:
            got = await client.call("session.attach", {"session": sid, "repaint": True})
        finally:
            await client.close()
        shot = got["screen"]
        model = TerminalModel(shot["columns"], shot["rows"])
        model.feed(base64.b64decode(shot["repaint"]))
        return model.lines()

    assert any("mail-while-detached-42" in line for line in asyncio.run(reattach()))


def test_stop_runtime_ends_every_session_and_leaves_no_process(
    engine_runtime: subprocess.Popen[str], short_state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shell = blocking.call("session.start", {"harness": "shell", "name": "jobs"})["session"]
    typed = {"session": shell["id"], "text": "sleep 300 & sleep 301 & echo jobs-$((1+1))\r"}
    blocking.call("session.send_input", typed)
    blocking.call("session.wait", {"session": shell["id"], "text": "jobs-2", "timeout": 20})
    blocking.call("session.start", {"harness": "demo", "name": "agent"})
    below = descendants(engine_runtime.pid)
    assert shell["pid"] in below and len(below) >= 5  # two children, two jobs, the guard
    assert cli.session_main(["stop", "--runtime"]) == 0
    assert "runtime stopped" in capsys.readouterr().out
    # The CLI returns once the runtime is gone, and it ended every pane and job first.
    assert [pid for pid in below if pid_exists(pid) and not is_guard(pid)] == []
    engine_runtime.wait(10)
    assert wait_gone(below) == []  # the guard follows its owner on its pipe's EOF
    log = (short_state / "s" / "runtime.log").read_text()
    assert "listening at" in log and "shutting down 2 pane(s)" in log  # the engine's own lines


async def test_hostile_clients_leave_the_engine_runtime_and_its_sessions_serving(
    repo: Path,
) -> None:
    async with engine_serving(repo) as (server, _host), connected(server) as good:
        sid = (await good.call("session.start", {"harness": "shell"}))["session"]["id"]
        assert server.path is not None
        reader, writer = await asyncio.open_unix_connection(os.fspath(server.path))
        await reader.readline()  # hello
        writer.write(b"not json at all\n\xff\xfe\n")
        for _ in range(2):
            assert b'"bad_frame"' in await reader.readline()
        writer.write(b'{"id": 1, "method": "server.ping", "params": {"pad": "')
        writer.write(b"x" * (3 * 1024 * 1024))  # over the frame limit, no newline yet
        assert b'"frame_too_large"' in await reader.readline()
        writer.close()
        _half_reader, half = await asyncio.open_unix_connection(os.fspath(server.path))
        half.write(b'{"id": 2, "method": "session.send_input", "params": {"session": "')
        await half.drain()
        half.close()  # cut off mid-frame: never acted on
        await good.call("session.send_input", {"session": sid, "text": "echo alive-$((5*5))\r"})
        assert "alive-25" in await screen_shows(good, sid, "alive-25")
        assert (await good.call("server.ping"))["pong"]


def test_a_spawn_request_from_inside_a_session_opens_a_pane_with_nobody_attached(
    engine_runtime: subprocess.Popen[str],
) -> None:
    """`zirv agent` typed in a runtime session reaches the runtime's own intake."""
    shell = blocking.call("session.start", {"harness": "shell", "name": "orch"})["session"]
    agent = f"{sys.executable} -m zirv_dash.cli.main agent demo 'write the notes'; echo agent-rc-$?"
    blocking.call("session.send_input", {"session": shell["id"], "text": agent + "\r"})
    deadline = time.monotonic() + 60
    while True:
        sessions = blocking.call("session.list")["sessions"]
        workers = [s for s in sessions if s["harness"] == "demo"]
        if workers:
            break
        assert time.monotonic() < deadline, blocking.call("session.read", {"session": shell["id"]})
        time.sleep(0.1)
    (worker,) = workers
    assert worker["state"] == "running" and pid_exists(worker["pid"])
    params = {"session": shell["id"], "text": "agent-rc-0", "timeout": 45}
    blocking.call("session.wait", params, timeout=55)


async def test_turn_signals_are_observed_with_nobody_attached(repo: Path) -> None:
    async with engine_serving(repo) as (server, host), connected(server) as client:
        await client.call("session.start", {"harness": "shell", "name": "orch"})
        sid = (await client.call("session.start", {"harness": "demo"}))["session"]["id"]
        pane = host.engine.pane(sid)
        assert pane is not None
        await screen_shows(client, sid, "demo agent")
        await client.call("session.send_input", {"session": sid, "text": "tidy the notes\r"})
        async with asyncio.timeout(30):
            while pane.turn_signal_at is None:  # the demo's Stop hook, on its socket
                await asyncio.sleep(0.02)
        assert server.seats.attached_clients(sid) == set()


async def test_stop_answers_once_the_pane_is_gone_even_when_it_writes_as_it_dies(
    repo: Path,
) -> None:
    # A child that answers its quit signal with output and exits at once: its
    # last bytes are often still unread when its exit is seen, which left the pane
    # running (and the stop unanswered) until some other pane's output.
    script = (
        'trap \'printf "bye-%s\\n" $((40+2)); exit 0\' HUP; echo arm""ed; while :; do sleep 1; done'
    )
    # `arm""ed` prints `armed`, which its command line does not show: waiting for
    # it waits for the trap, not for the echo of what was typed.
    async with engine_serving(repo) as (server, _host), connected(server) as client:
        for _ in range(6):
            sid = (await client.call("session.start", {"harness": "shell"}))["session"]["id"]
            await client.call(
                "session.send_input",
                {"session": sid, "text": f"exec sh -c {shlex.quote(script)}\r"},
            )
            await screen_shows(client, sid, "armed")
            async with asyncio.timeout(15):
                stopped = await client.call("session.stop", {"session": sid, "grace": 1.0})
            assert stopped["session"]["state"] in ("stopped", "exited")
            listed = {s["id"]: s["state"] for s in (await client.call("session.list"))["sessions"]}
            assert listed[sid] in ("stopped", "exited")
            last = await client.call("session.screen", {"session": sid})
            assert "bye-42" in "\n".join(last["lines"])  # its last words, parsed
