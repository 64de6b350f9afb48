"""Hostile clients (garbage, a 100 MB frame, a frame cut off by a disconnect)
get an error frame or are dropped; the runtime, its sessions and every other
client keep going."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
from pathlib import Path

import pytest

from tests.sessionrig import connected, serving, short_state, start_cat
from zirv_dash.panes.ptysession import READ_CHUNK
from zirv_dash.session import admission
from zirv_dash.session.admission import MAX_CLIENTS, MAX_SILENT
from zirv_dash.session.client import Client
from zirv_dash.session.protocol import MAX_FRAME_BYTES
from zirv_dash.session.ptyhost import BACKLOG_MAX, PtyHost
from zirv_dash.session.server import Server

__all__ = ["short_state"]


async def raw(server: Server) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    assert server.path is not None
    reader, writer = await asyncio.open_unix_connection(os.fspath(server.path))
    hello = json.loads(await reader.readline())
    assert hello["hello"]["protocol"] == 1
    return reader, writer


async def clients_become(client: Client, count: int) -> None:
    async with asyncio.timeout(20):
        while (await client.call("session.snapshot"))["clients"] != count:
            await asyncio.sleep(0.02)


async def still_serving(client: Client, sid: str) -> None:
    assert (await client.call("server.ping"))["pong"]
    facts = (await client.call("session.get", {"session": sid}))["session"]
    assert facts["state"] == "running"
    os.kill(facts["pid"], 0)


async def test_garbage_gets_error_frames_and_the_connection_still_works(
    short_state: Path,
) -> None:
    async with serving() as server, connected(server) as good:
        sid = await start_cat(good)
        reader, writer = await raw(server)
        lines = [
            b"not json at all\n",
            b"\xff\xfe\x00\x01\n",
            b"[1, 2, 3]\n",
            b'{"id": 7, "method": 5}\n',
            b'{"id": true, "method": "server.ping"}\n',
            b'{"id": 8, "method": "server.ping", "params": "x"}\n',
        ]
        for line in lines:
            writer.write(line)
        answers = [json.loads(await reader.readline()) for _ in lines]
        assert all(a["ok"] is False and a["error"]["code"] == "bad_frame" for a in answers)
        assert answers[3]["id"] == 7 and answers[5]["id"] == 8  # matched to the sender when known
        writer.write(b'{"id": 9, "method": "server.ping", "future_field": {"x": 1}}\n')
        pong = json.loads(await reader.readline())
        assert pong["id"] == 9 and pong["ok"] is True  # unknown fields are ignored
        writer.close()
        await still_serving(good, sid)


async def test_a_100_mb_frame_is_refused_without_buffering_it(short_state: Path) -> None:
    async with serving() as server, connected(server) as good:
        sid = await start_cat(good)
        reader, writer = await raw(server)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        chunk = b"x" * (1024 * 1024)  # streamed: the test never holds more than this

        async def stream() -> None:
            writer.write(b'{"id": 1, "method": "server.ping", "params": {"pad": "')
            for _ in range(100):
                writer.write(chunk)
                await writer.drain()

        writing = asyncio.create_task(stream())
        answer = json.loads(await reader.readline())
        assert answer["ok"] is False and answer["error"]["code"] == "frame_too_large"
        writing.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionError, OSError):
            await writing
        with contextlib.suppress(ConnectionError, OSError):
            writer.write_eof()
        assert await reader.read() == b""  # and then dropped us
        grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        assert grown_kib < 16 * MAX_FRAME_BYTES // 1024, grown_kib
        writer.close()
        await still_serving(good, sid)
        await clients_become(good, 1)


async def test_a_frame_cut_off_by_a_disconnect_is_never_acted_on(short_state: Path) -> None:
    async with serving() as server, connected(server) as good:
        sid = await start_cat(good)
        reader, writer = await raw(server)
        request = {"id": 1, "method": "session.send_input", "params": {"session": sid}}
        whole = json.dumps({**request, "params": {"session": sid, "text": "PARTIAL\r"}})
        writer.write(whole.encode()[:-3])  # no newline: half a frame
        await writer.drain()
        writer.close()
        await clients_become(good, 1)
        await good.call("session.send_input", {"session": sid, "text": "marker\r"})
        await good.call("session.wait", {"session": sid, "text": "marker"})
        lines = (await good.call("session.read", {"session": sid}))["lines"]
        assert not any("PARTIAL" in line for line in lines)
        await still_serving(good, sid)


async def test_a_client_that_never_reads_cannot_stall_a_flooding_session(
    short_state: Path,
) -> None:
    async with serving() as server, connected(server) as good:
        flood = await good.call(
            "session.start", {"argv": ["/bin/sh", "-c", "yes flood-line-of-text"], "name": "flood"}
        )
        quiet = await start_cat(good, "quiet")
        stuck_reader, stuck = await raw(server)
        attach = {"id": 1, "method": "session.attach", "params": {"session": "flood"}}
        stuck.write(json.dumps(attach).encode() + b"\n")  # and never read again
        await stuck.drain()
        async with asyncio.timeout(20):  # the unread socket fills up: its output is dropped
            while not any(conn.lost for conn in server.connections.values()):
                await asyncio.sleep(0.02)
        host = server.host
        assert isinstance(host, PtyHost)
        for n in range(5):
            await good.call("session.send_input", {"session": quiet, "text": f"key{n}\r"})
            async with asyncio.timeout(10):
                await good.call("session.wait", {"session": quiet, "text": f"key{n}"})
            # The flood is parsed in slices and its PTY paused past the cap.
            assert host.backlog(flood["session"]["id"]) <= BACKLOG_MAX + READ_CHUNK
        await good.call("session.stop", {"session": flood["session"]["id"], "grace": 1.0})
        stuck.close()
        del stuck_reader
        await still_serving(good, quiet)


async def test_a_connection_flood_is_refused_past_the_limit_but_an_attach_is_not(
    short_state: Path,
) -> None:
    async with serving() as server, connected(server) as good:
        sid = await start_cat(good)
        await good.call("session.attach", {"session": sid, "mode": "observer"})
        held = [await speaking(server) for _ in range(MAX_CLIENTS - 1)]
        refused = await raw(server)
        refused[1].write(b'{"id": 1, "method": "server.ping"}\n')
        answer = json.loads(await refused[0].readline())
        assert answer["error"]["code"] == "busy" and await refused[0].read() == b""
        refused[1].close()
        # The owner's own attach still gets in: a connection holding no seat makes room.
        async with connected(server) as late:
            attached = await late.call("session.attach", {"session": sid, "mode": "observer"})
            assert attached["session"]["id"] == sid
            await clients_become(good, MAX_CLIENTS)
        for _, extra in held:
            extra.close()
        await clients_become(good, 1)
        assert good.supports("session.attach")
        await still_serving(good, sid)


async def speaking(server: Server) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A raw connection that has spoken (one ping answered) and then stays idle."""
    reader, writer = await raw(server)
    writer.write(b'{"id": 1, "method": "server.ping"}\n')
    assert json.loads(await reader.readline())["ok"]
    return reader, writer


async def test_silent_connections_lock_nobody_out_and_are_dropped(
    short_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(admission, "HELLO_SECS", 1.0)
    async with serving() as server, connected(server) as good:
        sid = await start_cat(good)
        silent = [await raw(server) for _ in range(MAX_CLIENTS + MAX_SILENT)]
        # Every newcomer is served while they are held: a client, and an attach.
        async with connected(server) as late:
            assert (await late.call("server.ping"))["pong"]
            attached = await late.call("session.attach", {"session": sid, "mode": "controller"})
            assert attached["mode"] == "controller"
        # The oldest were dropped for newcomers, the rest once their time ran out.
        async with asyncio.timeout(20):
            for reader, _writer in silent:
                while line := await reader.readline():
                    assert json.loads(line)["error"]["code"] in ("busy", "timeout")
        await clients_become(good, 1)
        await still_serving(good, sid)
