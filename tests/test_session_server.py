"""The runtime protocol server over real sockets and real PTY children."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import stat
import threading
from pathlib import Path

import pytest

from tests.sessionrig import connected, serving, short_state, start_cat
from zirv_dash.panes.procinfo import pid_exists
from zirv_dash.session import endpoint
from zirv_dash.session.client import Client, RemoteError
from zirv_dash.session.host import HostEvent, SessionOutput, on_loop
from zirv_dash.session.protocol import ErrorCode, EventData, EventKind, SessionState
from zirv_dash.session.ptyhost import PtyHost
from zirv_dash.session.server import EVENT_LOG, Server

__all__ = ["short_state"]


async def test_hello_first_then_ping_and_capabilities(short_state: Path) -> None:
    async with serving() as server, connected(server) as client:
        assert client.hello.protocol == 1
        assert "session.attach" in client.hello.capabilities
        assert client.client_id
        assert await client.call("server.ping") == {"pong": True, "protocol": 1}
        caps = await client.call("server.capabilities")
        assert "session.takeover" in caps["methods"]


async def test_socket_is_private_and_derived_from_the_state_dir(short_state: Path) -> None:
    async with serving() as server:
        assert server.path == short_state / "s" / "api.sock"
        assert stat.S_IMODE(os.stat(server.path).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(server.path.parent).st_mode) == 0o700
        # A second runtime for the same state dir is refused, the first keeps serving.
        with pytest.raises(endpoint.EndpointError, match="another runtime"):
            await serving().__aenter__()
        async with connected(server) as client:
            assert (await client.call("server.ping"))["pong"]
    assert not (short_state / "s" / "api.sock").exists()


async def test_a_stale_socket_left_by_a_killed_runtime_is_replaced(short_state: Path) -> None:
    directory = endpoint.prepare_dir()
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(os.fspath(directory / "api.sock"))
    stale.close()  # the file stays, nothing listens: what a kill -9 leaves behind
    assert (directory / "api.sock").exists()
    async with serving() as server, connected(server) as client:
        assert (await client.call("server.ping"))["pong"]


async def test_a_peer_of_another_uid_is_refused(short_state: Path) -> None:
    # The server reads the peer's uid from the kernel; pretending to be owned
    # by another uid makes our own (real) connection the foreign one.
    async with serving(owner_uid=os.getuid() + 1) as server:
        assert server.path is not None
        reader, writer = await asyncio.open_unix_connection(os.fspath(server.path))
        line = await reader.readline()
        assert b'"forbidden"' in line and b"hello" not in line
        assert await reader.read() == b""
        writer.close()


async def test_type_into_a_real_child_and_wait_for_its_echo(short_state: Path) -> None:
    async with serving() as server, connected(server) as client:
        sid = await start_cat(client)
        facts = (await client.call("session.get", {"session": "cat"}))["session"]
        assert facts["id"] == sid and facts["state"] == "running" and facts["pid"] > 1
        os.kill(facts["pid"], 0)  # a real process
        sent = await client.call("session.send_input", {"session": sid, "text": "hello pty\r"})
        assert sent["bytes"] == 10
        waited = await client.call("session.wait", {"session": sid, "text": "hello pty"})
        assert waited["matched"] == "hello pty"
        read = await client.call("session.read", {"session": sid})
        assert "hello pty" in read["lines"]
        screen = await client.call("session.screen", {"session": sid})
        assert screen["columns"] == 80 and screen["rows"] == 24
        stopped = await client.call("session.stop", {"session": sid, "grace": 1.0})
        assert stopped["session"]["state"] == SessionState.STOPPED.value
        with pytest.raises(ProcessLookupError):
            os.kill(facts["pid"], 0)


async def test_wait_for_exit_and_a_timeout(short_state: Path) -> None:
    async with serving() as server, connected(server) as client:
        sid = await start_cat(client)
        with pytest.raises(RemoteError) as refused:
            await client.call("session.wait", {"session": sid, "text": "never", "timeout": 0.2})
        assert refused.value.code is ErrorCode.TIMEOUT
        await client.call("session.send_input", {"session": sid, "data": "BA=="})  # Ctrl+D
        done = await client.call("session.wait", {"session": sid, "timeout": 20})
        assert done["session"]["state"] == "exited" and done["session"]["exit_code"] == 0


async def test_observers_one_controller_busy_and_takeover(short_state: Path) -> None:
    async with serving() as server, connected(server) as a, connected(server) as b:
        sid = await start_cat(a)
        got = await a.call("session.attach", {"session": sid, "mode": "controller"})
        assert got["mode"] == "controller" and got["session"]["controller"] == a.client_id
        with pytest.raises(RemoteError) as busy:
            await b.call("session.attach", {"session": sid, "mode": "controller"})
        assert busy.value.code is ErrorCode.BUSY
        await b.call("session.attach", {"session": sid})  # an observer is always welcome
        with pytest.raises(RemoteError) as refused:
            await b.call("session.send_input", {"session": sid, "text": "x"})
        assert refused.value.code is ErrorCode.NOT_CONTROLLER
        taken = await b.call("session.takeover", {"session": sid})
        assert taken["mode"] == "controller"
        for client in (a, b):
            moved = await client.next_event(EventKind.CONTROLLER_CHANGED)
            while moved.data.controller != b.client_id:
                moved = await client.next_event(EventKind.CONTROLLER_CHANGED)
            assert moved.data.previous == a.client_id
        facts = (await a.call("session.get", {"session": sid}))["session"]
        assert facts["controller"] == b.client_id and facts["observers"] == 1
        with pytest.raises(RemoteError):
            await a.call("session.send_input", {"session": sid, "text": "x"})
        await b.call("session.send_input", {"session": sid, "text": "typed by b\r"})
        await a.call("session.wait", {"session": sid, "text": "typed by b"})


async def test_a_controller_that_disconnects_frees_the_seat(short_state: Path) -> None:
    async with serving() as server, connected(server) as watcher:
        sid = await start_cat(watcher)
        await watcher.call("session.attach", {"session": sid})
        async with connected(server) as gone:
            await gone.call("session.attach", {"session": sid, "mode": "controller"})
        freed = await watcher.next_event(EventKind.CONTROLLER_CHANGED)
        while freed.data.controller is not None:
            freed = await watcher.next_event(EventKind.CONTROLLER_CHANGED)
        assert (await watcher.call("session.attach", {"session": sid, "mode": "controller"}))[
            "mode"
        ] == "controller"
        pid = (await watcher.call("session.get", {"session": sid}))["session"]["pid"]
        os.kill(pid, 0)  # detaching (or vanishing) stops nothing


async def test_attach_returns_the_screen_then_streams_output(short_state: Path) -> None:
    async with serving() as server, connected(server) as client:
        script = 'read line; echo "got $line"; exec cat'
        started = await client.call("session.start", {"argv": ["/bin/sh", "-c", script]})
        sid = started["session"]["id"]
        await client.call("session.send_input", {"session": sid, "text": "before\r"})
        await client.call("session.wait", {"session": sid, "text": "got before"})  # the last
        got = await client.call("session.attach", {"session": sid, "mode": "controller"})
        assert "got before" in got["screen"]["lines"]
        await client.call("session.send_input", {"session": sid, "text": "after\r"})
        seen = b""
        async with asyncio.timeout(10):
            while seen.count(b"after") < 2:  # the terminal's echo and cat's copy
                out = await client.outputs.get()
                assert out.output == sid and out.seq > got["screen"]["seq"]
                seen += out.data
        assert b"before" not in seen  # nothing the screen already held is sent twice


async def test_revision_grows_by_one_per_event_and_a_gap_refreshes(short_state: Path) -> None:
    async with serving() as server, connected(server) as client:
        await client.call("events.subscribe")
        start = client.revision
        sid = await start_cat(client)
        await client.call("session.stop", {"session": sid, "grace": 1.0})
        revisions = []
        while not client.events.empty():
            revisions.append(client.events.get_nowait().revision)
        assert revisions == list(range(start + 1, start + 1 + len(revisions)))
        assert len(revisions) >= 3 and client.gaps == 0
        assert await client.snapshot_if_gap() is None
        client.revision -= 1  # as if one event had been missed
        await start_cat(client, "again")
        assert client.gaps == 1
        snapshot = await client.snapshot_if_gap()
        assert snapshot is not None and snapshot["revision"] == server.revision
        replay = await client.call("events.subscribe", {"since": start})
        assert [e["revision"] for e in replay["replayed"]][:3] == [start + 1, start + 2, start + 3]


async def test_a_replayed_idempotency_key_starts_one_session(short_state: Path) -> None:
    async with serving() as server, connected(server) as client:
        params = {"argv": ["/bin/cat"], "name": "once"}
        first = await client.call("session.start", params, idempotency_key="k-1")
        again = await client.call("session.start", params, idempotency_key="k-1")
        assert first == again
        assert len((await client.call("session.list"))["sessions"]) == 1
        async with connected(server) as other:  # a retry after a reconnect too
            assert await other.call("session.start", params, idempotency_key="k-1") == first
        await client.call("session.start", params, idempotency_key="k-2")
        assert len((await client.call("session.list"))["sessions"]) == 2


async def test_snapshots_are_redacted(short_state: Path) -> None:
    secret_dir = short_state / "private-repo"
    secret_dir.mkdir()
    async with serving() as server, connected(server) as client:
        await client.call(
            "session.start",
            {"argv": ["/bin/cat", "-", "--token=sk-secret"], "cwd": str(secret_dir)},
        )
        text = repr(await client.call("session.snapshot"))
        assert "sk-secret" not in text and str(short_state) not in text
        assert "/bin/cat" not in text and "'private-repo'" in text


async def test_bad_params_unknown_method_and_unknown_session(short_state: Path) -> None:
    async with serving() as server, connected(server) as client:
        cases: list[tuple[str, dict[str, object], ErrorCode]] = [
            ("session.get", {"session": 3}, ErrorCode.BAD_PARAMS),
            ("session.get", {"session": "nope"}, ErrorCode.NOT_FOUND),
            ("session.fly", {}, ErrorCode.UNKNOWN_METHOD),
            ("session.start", {"argv": ["/no/such/program"]}, ErrorCode.FAILED),
            ("session.attach", {"session": "nope"}, ErrorCode.NOT_FOUND),
        ]
        for method, params, code in cases:
            with pytest.raises(RemoteError) as refused:
                await client.call(method, params)
            assert refused.value.code is code, (method, refused.value.message)
        assert (await client.call("server.ping"))["pong"]


async def test_resize_reaches_the_child(short_state: Path) -> None:
    async with serving() as server, connected(server) as client:
        started = await client.call("session.start", {"argv": ["/bin/sh"], "name": "sh"})
        sid = started["session"]["id"]
        resized = await client.call("session.resize", {"session": sid, "columns": 100, "rows": 30})
        assert resized["session"]["columns"] == 100
        await client.call("session.send_input", {"session": sid, "text": "stty size\r"})
        await client.call("session.wait", {"session": sid, "text": "30 100"})


def test_client_reports_a_runtime_that_is_not_running(short_state: Path) -> None:
    from zirv_dash.session import client as blocking
    from zirv_dash.session.client import NotRunning

    with pytest.raises(NotRunning):
        blocking.call("server.ping")
    with pytest.raises(NotRunning):
        asyncio.run(Client.connect())


async def test_a_server_without_terminals_does_not_offer_attach(short_state: Path) -> None:
    server = Server(PtyHost(), capabilities=("core", "events"))
    await server.start()
    try:
        async with connected(server) as client:
            assert not client.supports("session.attach")
            offered = (await client.call("server.capabilities"))["methods"]
            assert "session.list" in offered and "session.attach" not in offered
            sid = await start_cat(client)
            with pytest.raises(RemoteError) as refused:
                await client.call("session.attach", {"session": sid})
            assert refused.value.code is ErrorCode.UNSUPPORTED
    finally:
        await server.stop()


async def test_a_subscriber_too_far_behind_is_told_to_refresh(short_state: Path) -> None:
    async with serving() as server, connected(server) as client:
        for _ in range(EVENT_LOG + 5):
            server.publish(EventKind.UNKNOWN, EventData())
        behind = await client.call("events.subscribe", {"since": 1})
        assert behind["gap"] is True and behind["replayed"] == []
        recent = await client.call("events.subscribe", {"since": server.revision - 2})
        assert [e["revision"] for e in recent["replayed"]] == [
            server.revision - 1,
            server.revision,
        ]


async def test_a_host_emitting_from_another_thread_is_relayed_on_the_loop() -> None:
    loop = asyncio.get_running_loop()
    seen: list[tuple[HostEvent, bool]] = []
    done = asyncio.Event()

    def listener(event: HostEvent) -> None:
        seen.append((event, threading.current_thread() is threading.main_thread()))
        done.set()

    relay = on_loop(loop, listener)
    event = SessionOutput("s1", b"x")
    worker = threading.Thread(target=relay, args=(event,))
    worker.start()
    await asyncio.wait_for(done.wait(), 10)
    worker.join()
    assert seen == [(event, True)]


async def test_detach_all_releases_every_client_and_stops_nothing(short_state: Path) -> None:
    async with serving() as server, connected(server) as a, connected(server) as b:
        sid = await start_cat(a)
        await a.call("session.attach", {"session": sid, "mode": "controller"})
        await b.call("session.attach", {"session": sid})
        async with connected(server) as operator:
            released = await operator.call("session.detach", {"session": sid, "all": True})
        assert released == {"session": sid, "detached": True, "clients": 2}
        for client in (a, b):
            freed = await client.next_event(EventKind.CONTROLLER_CHANGED)
            while freed.data.previous != a.client_id:
                freed = await client.next_event(EventKind.CONTROLLER_CHANGED)
            assert freed.data.controller is None
        facts = (await b.call("session.get", {"session": sid}))["session"]
        assert facts["controller"] is None and facts["observers"] == 0
        assert facts["state"] == "running"
        await a.call("session.send_input", {"session": sid, "text": "unattached\r"})
        await a.call("session.wait", {"session": sid, "text": "unattached"})


async def test_an_exit_is_published_when_it_happens_even_if_a_job_keeps_the_pty(
    short_state: Path,
) -> None:
    # HUP is ignored before the fork: the job inherits it, so the session's end
    # cannot kill it before it has set that up itself (a race on a loaded machine).
    script = "trap '' HUP; sleep 300 & echo job=$!; echo last-words; exit 3"
    async with serving() as server, connected(server) as client:
        started = await client.call("session.start", {"argv": ["/bin/sh", "-c", script]})
        sid = started["session"]["id"]
        job = 0
        try:
            waited = await client.call("session.wait", {"session": sid, "timeout": 20})
            assert waited["session"]["state"] == "failed"
            assert waited["session"]["exit_code"] == 3
            screen = "\n".join((await client.call("session.screen", {"session": sid}))["lines"])
            assert "last-words" in screen
            job = int(screen.split("job=")[1].split()[0])
            assert pid_exists(job)  # it kept the PTY open: the exit gave no EOF
        finally:
            if job and pid_exists(job):
                os.kill(job, signal.SIGKILL)
