"""Protocol v1 clients: `Client` (asyncio) and `call` (blocking, for small CLIs).

Both read the server's `Hello` first and refuse a server speaking another
protocol version. `Client` matches responses to requests by id, queues events
and output frames, and tracks the revision: `gaps` counts the times an event's
revision was not the last one plus one (the caller then refreshes with
`session.snapshot`, see `Client.snapshot_if_gap`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import socket
import time
from pathlib import Path
from typing import Any

import msgspec

from zirv_dash.session import endpoint
from zirv_dash.session.protocol import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    ErrorCode,
    ErrorInfo,
    Event,
    EventData,
    EventKind,
    Hello,
    Incoming,
    Output,
    ProtocolError,
    Request,
    decode_incoming,
    encode,
)

CONNECT_TIMEOUT = 5.0
CLIENT_LIMIT = 8 * MAX_FRAME_BYTES
"""The server is trusted and a full screen at the largest size can exceed one
request frame; its lines are still bounded."""


class RemoteError(ProtocolError):
    """The server answered with an error frame."""


class NotRunning(Exception):
    """Nothing listens at the runtime's socket."""


def _check_hello(frame: Incoming) -> Hello:
    if frame.hello is None:
        raise ProtocolError(ErrorCode.BAD_FRAME, "the server did not say hello first")
    if frame.hello.protocol != PROTOCOL_VERSION:
        raise ProtocolError(
            ErrorCode.UNSUPPORTED,
            f"the runtime speaks protocol {frame.hello.protocol}, this client {PROTOCOL_VERSION}",
        )
    return frame.hello


def _error(info: ErrorInfo | None) -> RemoteError:
    if info is None:
        return RemoteError(ErrorCode.UNKNOWN, "the server refused without saying why")
    return RemoteError(info.code, info.message)


class Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._ids = itertools.count(1)
        self._pending: dict[int | str, asyncio.Future[Incoming]] = {}
        self.hello = Hello()
        self.events: asyncio.Queue[Event] = asyncio.Queue()
        self.outputs: asyncio.Queue[Output] = asyncio.Queue()
        self.revision = 0
        self.gaps = 0
        self.closed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @classmethod
    async def connect(cls, path: Path | None = None) -> Client:
        path = path or endpoint.socket_path()
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_unix_connection(os.fspath(path), limit=CLIENT_LIMIT),
                CONNECT_TIMEOUT,
            )
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise NotRunning(f"no runtime is listening at {path}") from exc
        client = cls(reader, writer)
        first = await asyncio.wait_for(reader.readline(), CONNECT_TIMEOUT)
        client.hello = _check_hello(decode_incoming(first))
        client.revision = client.hello.revision
        client._task = asyncio.create_task(client._read_loop())
        return client

    @property
    def client_id(self) -> str:
        return self.hello.client_id

    def supports(self, capability: str) -> bool:
        """Whether the server advertised `capability`: a client disables locally
        what the server lacks instead of calling it and being refused."""
        return capability in self.hello.capabilities

    async def call(
        self, method: str, params: dict[str, Any] | None = None, idempotency_key: str | None = None
    ) -> Any:
        """The method's result (plain JSON values), or RemoteError."""
        rid = next(self._ids)
        future: asyncio.Future[Incoming] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        request = Request(
            id=rid, method=method, params=params or {}, idempotency_key=idempotency_key
        )
        try:
            self._writer.write(encode(request))
            await self._writer.drain()
            frame = await future
        finally:
            self._pending.pop(rid, None)
        if not frame.ok:
            raise _error(frame.error)
        return frame.result

    async def snapshot_if_gap(self) -> dict[str, Any] | None:
        """A fresh `session.snapshot` when an event gap was seen (and reset it)."""
        if not self.gaps:
            return None
        self.gaps = 0
        snapshot: dict[str, Any] = await self.call("session.snapshot")
        self.revision = max(self.revision, int(snapshot["revision"]))
        return snapshot

    async def next_event(self, kind: EventKind | None = None, timeout: float = 10.0) -> Event:
        """The next event (of `kind`, skipping others)."""
        async with asyncio.timeout(timeout):
            while True:
                event = await self.events.get()
                if kind is None or event.event is kind:
                    return event

    async def close(self) -> None:
        self._writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self._writer.wait_closed()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _read_loop(self) -> None:
        try:
            while True:
                line = await self._reader.readline()
                if not line.endswith(b"\n"):
                    return
                self._dispatch(decode_incoming(line))
        except (ConnectionError, ValueError, ProtocolError):
            return
        finally:
            self.closed.set()
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("the runtime closed the connection"))

    def _dispatch(self, frame: Incoming) -> None:
        if frame.event is not None:
            if frame.revision != self.revision + 1:
                self.gaps += 1
            self.revision = max(self.revision, frame.revision)
            facts = msgspec.convert(frame.data or {}, EventData)
            self.events.put_nowait(Event(event=frame.event, revision=frame.revision, data=facts))
        elif frame.output is not None:
            raw = msgspec.convert(frame.data or "", bytes)
            self.outputs.put_nowait(
                Output(output=frame.output, seq=frame.seq, data=raw, lost=frame.lost)
            )
        elif frame.ok is not None:
            future = self._pending.get(frame.id) if frame.id is not None else None
            if future is not None and not future.done():
                future.set_result(frame)


# -- blocking ----------------------------------------------------------------------------


def call(
    method: str,
    params: dict[str, Any] | None = None,
    *,
    path: Path | None = None,
    timeout: float = 30.0,
    idempotency_key: str | None = None,
) -> Any:
    """One request on a fresh connection, blocking: for CLIs that do one thing."""
    path = path or endpoint.socket_path()
    deadline = time.monotonic() + timeout
    with _connect(path, timeout) as sock, sock.makefile("rb") as stream:
        _check_hello(decode_incoming(_readline(stream)))
        request = Request(id=1, method=method, params=params or {}, idempotency_key=idempotency_key)
        sock.sendall(encode(request))
        while True:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            frame = decode_incoming(_readline(stream))
            if frame.ok is not None and frame.id == 1:
                if not frame.ok:
                    raise _error(frame.error)
                return frame.result


def server_credentials(path: Path | None = None, timeout: float = 5.0) -> tuple[int, int]:
    """(pid, uid) of the process listening at the socket, from the kernel."""
    with _connect(path or endpoint.socket_path(), timeout) as sock:
        pid, uid, _gid = endpoint.peer_credentials(sock)
        return pid, uid


def _connect(path: Path, timeout: float) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(min(timeout, CONNECT_TIMEOUT))
    try:
        sock.connect(os.fspath(path))
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        sock.close()
        raise NotRunning(f"no runtime is listening at {path}") from exc
    except OSError:
        sock.close()
        raise
    sock.settimeout(timeout)
    return sock


def _readline(stream: Any) -> bytes:
    line: bytes = stream.readline(CLIENT_LIMIT + 1)
    if not line.endswith(b"\n"):
        raise ConnectionError("the runtime closed the connection")
    return line
