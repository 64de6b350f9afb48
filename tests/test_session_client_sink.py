"""A client's output sink: frames are handed over as they are read, and a sink
that fails on one frame neither ends the connection nor the next frames."""

from __future__ import annotations

import asyncio
import errno
import socket

from zirv_dash.session.client import Client
from zirv_dash.session.protocol import Output


async def test_a_failing_sink_does_not_end_the_read_loop() -> None:
    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_unix_connection(sock=ours)
    client = Client(reader, writer)
    client._task = asyncio.create_task(client._read_loop())  # noqa: SLF001 (no hello here)
    seen: list[Output] = []

    def sink(out: Output) -> None:
        seen.append(out)
        if out.seq == 1:  # what os.write raises on a terminal left non-blocking
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")

    client.output_sink = sink
    theirs.sendall(
        b'{"output":"s1","seq":1,"data":"aGk="}\n{"output":"s1","seq":2,"data":"aGk="}\n'
    )
    async with asyncio.timeout(10):
        while len(seen) < 2:
            await asyncio.sleep(0.01)
    assert [o.seq for o in seen] == [1, 2] and seen[1].data == b"hi"
    assert not client.closed.is_set() and client.outputs.empty()
    theirs.close()
    await asyncio.wait_for(client.closed.wait(), 10)
    await client.close()  # the ended loop's outcome is not raised here
