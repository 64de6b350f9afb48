"""Protocol v1 clients: `Client` (asyncio) and, re-exported from `blocking`,
`call` (blocking, for small CLIs).

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
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from zirv_dash.session import endpoint
from zirv_dash.session.blocking import (
    CLIENT_LIMIT,
    CONNECT_TIMEOUT,
    NotRunning,
    RemoteError,
    call,
    check_hello,
    remote_error,
    server_credentials,
)
from zirv_dash.session.protocol import (
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

log = logging.getLogger("zirv.session.client")

__all__ = ["Client", "NotRunning", "RemoteError", "call", "server_credentials"]


class Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._ids = itertools.count(1)
        self._pending: dict[int | str, asyncio.Future[Incoming]] = {}
        self.hello = Hello()
        self.events: asyncio.Queue[Event] = asyncio.Queue()
        self.outputs: asyncio.Queue[Output] = asyncio.Queue()
        self.output_sink: Callable[[Output], None] | None = None
        """Given each output frame as it is read, in place of `outputs` (a terminal
        client writes it out at once: no queue and no task wake-up per frame)."""
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
        client.hello = check_hello(decode_incoming(first))
        client.revision = client.hello.revision
        client.start_reading()
        return client

    def start_reading(self) -> None:
        """Read frames from now on (the hello already read and checked): for a
        stream opened elsewhere too (`zirv_dash.remote.client_link`, over ssh)."""
        self._task = asyncio.create_task(self._read_loop())

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
            raise remote_error(frame.error)
        return frame.result

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send a request and wait for nothing: its answer is read and dropped. For
        typed keys, where a refusal (the session just ended) changes nothing the
        caller would do, and awaiting each answer would hold the next key back."""
        request = Request(id=next(self._ids), method=method, params=params)
        self._writer.write(encode(request))

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
            # A read loop that already ended on an error has nothing more to say.
            with contextlib.suppress(asyncio.CancelledError, Exception):
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
            out = Output(output=frame.output, seq=frame.seq, data=raw, lost=frame.lost)
            if self.output_sink is not None:
                try:
                    self.output_sink(out)
                except Exception:  # the sink's failure is its own: keep reading
                    log.exception("output sink failed on a frame of %s", out.output)
            else:
                self.outputs.put_nowait(out)
        elif frame.ok is not None:
            future = self._pending.get(frame.id) if frame.id is not None else None
            if future is not None and not future.done():
                future.set_result(frame)
