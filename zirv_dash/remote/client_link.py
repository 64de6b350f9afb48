"""The asyncio protocol client over an ssh link: a `Client` whose stream is ssh's.

`connect(host)` runs `ssh … zirv session proxy` (remote/link.py) and speaks
protocol v1 over its stdin/stdout with the very `Client` a local attach uses, so
everything built on a client (an attach, a pane's output) works the same over
the link. The hello must arrive within the timeout; a remote that says nothing,
says something else first, or sends a line over the client's limit ends the link
(the client's read loop stops and `closed` is set), never the caller.
"""

from __future__ import annotations

import asyncio
import contextlib

from zirv_dash.remote.channel import LINK_TIMEOUT_S, LinkError, classify
from zirv_dash.remote.hosts import Host
from zirv_dash.remote.link import proxy_argv
from zirv_dash.session.blocking import CLIENT_LIMIT, check_hello
from zirv_dash.session.client import Client
from zirv_dash.session.protocol import ProtocolError, decode_incoming


class RemoteClient(Client):
    """A `Client` on an ssh child; closing it ends the child."""

    proc: asyncio.subprocess.Process
    host: Host

    async def close(self) -> None:
        await super().close()
        proc = self.proc
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 5)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()


async def connect(host: Host, timeout: float = LINK_TIMEOUT_S) -> RemoteClient:
    proc = await asyncio.create_subprocess_exec(
        *proxy_argv(host),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=CLIENT_LIMIT,
        start_new_session=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        first = await asyncio.wait_for(proc.stdout.readline(), timeout)
    except TimeoutError:
        await _end(proc)
        raise LinkError(f"{host.name}: no answer within {timeout:.0f} s", "stalled") from None
    except ValueError:  # a line over the limit
        await _end(proc)
        raise LinkError(f"{host.name}: a frame over {CLIENT_LIMIT} bytes", "protocol") from None
    if not first.endswith(b"\n"):
        code = await _end(proc)
        said = b""
        if proc.stderr is not None:
            with contextlib.suppress(Exception):
                said = await asyncio.wait_for(proc.stderr.read(8192), 2)
        raise classify(host, code, said.decode("utf-8", "replace"))
    try:
        hello = check_hello(decode_incoming(first))
    except ProtocolError as exc:
        await _end(proc)
        raise LinkError(f"{host.name}: {exc.message}", "protocol") from exc
    client = RemoteClient(proc.stdout, proc.stdin)
    client.proc, client.host = proc, host
    client.hello = hello
    client.revision = hello.revision
    client.start_reading()
    return client


async def _end(proc: asyncio.subprocess.Process) -> int:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
    try:
        return await asyncio.wait_for(proc.wait(), 5)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        return await proc.wait()
