"""The asyncio protocol client over an ssh link: a `Client` whose stream is ssh's.

`connect(host)` runs `ssh … zirv session proxy` (remote/link.py) and speaks
protocol v1 over its stdin/stdout with the very `Client` a local attach uses, so
everything built on a client (an attach, a pane's output) works the same over
the link. The hello must arrive within the timeout; a remote that says nothing,
says something else first, or sends a line over the limit ends the link
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

STDERR_BYTES = 8192


class RemoteClient(Client):
    """A `Client` on an ssh child; closing it ends the child."""

    proc: asyncio.subprocess.Process
    host: Host
    broken = ""
    """Why the read loop stopped on the remote's bytes (a malformed frame, one
    over the limit), for the host's rows; empty when the stream just ended."""

    async def _read_loop(self) -> None:
        # The base loop, saying why it stopped: a remote is not trusted to be a
        # runtime, so a bad frame is a fault to name, not a quiet end.
        try:
            while True:
                line = await self._reader.readline()
                if not line.endswith(b"\n"):
                    return
                self._dispatch(decode_incoming(line))
        except ValueError:
            self.broken = f"{self.host.name} sent a frame over {CLIENT_LIMIT} bytes"
        except ProtocolError as exc:
            self.broken = f"{self.host.name} sent a malformed frame: {exc.message}"
        except ConnectionError:
            return
        finally:
            self.closed.set()
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("the link closed"))

    async def why_closed(self) -> LinkError:
        """Why the link ended: a bad frame, else the ssh child's exit and last words."""
        if self.broken:
            return LinkError(self.broken, "protocol")
        try:
            code = await asyncio.wait_for(self.proc.wait(), 3)
        except TimeoutError:
            return LinkError(f"{self.host.name}: the link closed", "broken")
        said = b""
        if self.proc.stderr is not None:
            with contextlib.suppress(Exception):
                said = await asyncio.wait_for(self.proc.stderr.read(STDERR_BYTES), 2)
        return classify(self.host, code, said.decode("utf-8", "replace"))

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
        raise LinkError(f"{host.name} sent a frame over {CLIENT_LIMIT} bytes", "protocol") from None
    if not first.endswith(b"\n"):
        code = await _end(proc, grace=3.0)  # it is ending: its own exit status says why
        said = b""
        if proc.stderr is not None:
            with contextlib.suppress(Exception):
                said = await asyncio.wait_for(proc.stderr.read(STDERR_BYTES), 2)
        raise classify(host, code, said.decode("utf-8", "replace"))
    try:
        hello = check_hello(decode_incoming(first))
    except ProtocolError as exc:
        await _end(proc)
        raise LinkError(f"{host.name} sent a malformed frame: {exc.message}", "protocol") from exc
    client = RemoteClient(proc.stdout, proc.stdin)
    client.proc, client.host = proc, host
    client.hello = hello
    client.revision = hello.revision
    client.start_reading()
    return client


async def _end(proc: asyncio.subprocess.Process, grace: float = 0.0) -> int:
    if grace and proc.returncode is None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), grace)
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
    try:
        return await asyncio.wait_for(proc.wait(), 5)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        return await proc.wait()
