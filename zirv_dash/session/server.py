"""The protocol v1 server: one unix socket, many clients, one host.

Each connection gets a `Hello`, then its lines are read with a bounded reader
(a line longer than MAX_FRAME_BYTES is answered `frame_too_large` and the
connection dropped, having buffered at most that much); a line that is not a
request is answered `bad_frame`; a connection that ends mid-line is dropped
without acting on the fragment. None of it touches another connection, the
host or its sessions.

Who gets a place, and for how long a connection may stay silent, is
`session.admission`'s (connections that never send a byte lock nobody out).

Writes never block the loop: a client that stops reading first loses `Output`
frames (the next one says `lost`, so it refreshes `session.screen`), and past a
hard limit it is dropped, so a slow client cannot hold a flooding session's
bytes in our memory or delay anyone else.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import fcntl
import logging
import os
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

from zirv_dash import paths
from zirv_dash.session import admission as admission_rules
from zirv_dash.session import endpoint, handlers
from zirv_dash.session.admission import Admission, error_line
from zirv_dash.session.host import Host, HostEvent, SessionEvent, SessionOutput
from zirv_dash.session.idempotency import IdempotencyCache
from zirv_dash.session.protocol import (
    MAX_FRAME_BYTES,
    ErrorCode,
    Event,
    EventData,
    EventKind,
    Hello,
    HelloFrame,
    Output,
    ProtocolError,
    Response,
    SessionFacts,
    best_effort_id,
    decode_request,
    encode,
)
from zirv_dash.session.seats import SeatChange, Seats

log = logging.getLogger("zirv.session.server")

OUTPUT_BUDGET = 1024 * 1024
"""Unsent bytes to one client above which its `Output` frames are dropped."""
HARD_LIMIT = 4 * 1024 * 1024
"""Unsent bytes to one client above which it is disconnected."""
LINGER_SECS = 2.0
"""How long a dropped client's remaining input is discarded before the hang-up."""
EVENT_LOG = 1024
"""Events kept for `events.subscribe {since}` replays."""

_HOST_KINDS = {
    "started": EventKind.SESSION_STARTED,
    "changed": EventKind.SESSION_CHANGED,
    "exited": EventKind.SESSION_EXITED,
}


class Connection:
    def __init__(self, writer: asyncio.StreamWriter, client_id: str) -> None:
        self.writer = writer
        self.client_id = client_id
        self.subscribed = False
        self.attached: set[str] = set()
        self.lost: set[str] = set()
        self.closed = False
        self.spoke = False
        """It sent its first complete request (until then it is held apart)."""
        self.tasks: set[asyncio.Task[None]] = set()

    def pending(self) -> int:
        return self.writer.transport.get_write_buffer_size()

    def send(self, line: bytes) -> None:
        if self.closed:
            return
        if self.writer.transport.is_closing():
            self.closed = True  # the peer is gone; its read loop will clean up
            return
        if self.pending() > HARD_LIMIT:
            log.warning("client %s stopped reading; dropping it", self.client_id)
            self.close()
            return
        self.writer.write(line)

    def send_output(self, session_id: str, seq: int, data: bytes) -> None:
        if self.closed:
            return
        if self.pending() > OUTPUT_BUDGET:
            self.lost.add(session_id)
            return
        lost = session_id in self.lost
        self.lost.discard(session_id)
        self.send(encode(Output(output=session_id, seq=seq, data=data, lost=lost)))

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.pending() > HARD_LIMIT:
            self.writer.transport.abort()  # a graceful close would first send all of it
        else:
            self.writer.close()


class Server:
    def __init__(
        self,
        host: Host,
        *,
        owner_uid: int | None = None,
        capabilities: Sequence[str] | None = None,
    ) -> None:
        self.host = host
        self.capabilities = tuple(host.capabilities if capabilities is None else capabilities)
        """What `hello` advertises; a method of another capability is refused
        `unsupported` (a server owning no terminals leaves out `session.attach`)."""
        self.seats = Seats()
        self.revision = 0
        self.events: collections.deque[Event] = collections.deque(maxlen=EVENT_LOG)
        self.connections: dict[str, Connection] = {}
        self.admission = Admission()
        self.seq: dict[str, int] = {}
        self.changed: dict[str, asyncio.Event] = {}
        self.idempotent = IdempotencyCache()
        self.path: Path | None = None
        self._owner_uid = os.getuid() if owner_uid is None else owner_uid
        self._server: asyncio.AbstractServer | None = None
        self._lock_fd: int | None = None
        self._unsubscribe = host.subscribe(self._on_host_event)
        self._stopped = asyncio.Event()
        self._stopping = False
        self._handlers: set[asyncio.Task[None]] = set()
        self.on_client: Callable[[], None] | None = None
        """Called when a client is accepted (the runtime record's last-client time)."""
        host.bind_detach(self.detach_controller)  # a hosted UI can release its controller

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self, state: Path | None = None, *, lock_fd: int | None = None) -> Path:
        """Bind `<state>/s/api.sock` and start accepting. `lock_fd`: the state
        dir's lock, already taken by `claim` (before a host was built)."""
        directory = endpoint.prepare_dir(state)
        self._lock_fd = lock_fd if lock_fd is not None else claim(state)
        path = directory / endpoint.SOCKET_NAME
        sock = endpoint.bind_listener(path)
        self._server = await asyncio.start_unix_server(
            self._serve_connection, sock=sock, limit=MAX_FRAME_BYTES
        )
        self.path = path
        log.info("listening at %s", path)
        return path

    async def wait_stopped(self) -> None:
        await self._stopped.wait()

    async def stop(self, *, close_host: bool = True) -> None:
        if self._stopped.is_set() or self._stopping:
            return
        self._stopping = True
        if self._server is not None:
            self._server.close()
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()
        for conn in list(self.connections.values()):
            conn.close()
            for task in list(conn.tasks):
                task.cancel()
        if self._handlers:
            # Closed writers end their read loops; let each finish its cleanup.
            await asyncio.wait(list(self._handlers), timeout=5.0)
        self._unsubscribe()
        if close_host:
            await self.host.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None
        self._stopped.set()

    # -- events -------------------------------------------------------------------------

    def publish(self, kind: EventKind, data: EventData) -> Event:
        """Emit one event: the revision grows by exactly one."""
        self.revision += 1
        event = Event(event=kind, revision=self.revision, data=data)
        self.events.append(event)
        line = encode(event)
        for conn in list(self.connections.values()):
            if conn.subscribed:
                conn.send(line)
        return event

    def facts(self, facts: SessionFacts) -> SessionFacts:
        """Host facts with the seat fields filled in."""
        return msgspec.structs.replace(
            facts,
            controller=self.seats.controller(facts.id),
            observers=self.seats.observers(facts.id),
        )

    def publish_seat(self, change: SeatChange, kind: EventKind | None) -> None:
        if kind is not None:
            self.publish(kind, EventData(session_id=change.session_id, client_id=change.client_id))
        if change.controller_changed:
            self.publish(
                EventKind.CONTROLLER_CHANGED,
                EventData(
                    session_id=change.session_id,
                    controller=change.controller,
                    previous=change.previous,
                ),
            )

    def _on_host_event(self, event: HostEvent) -> None:
        try:
            self._relay(event)
        except Exception:  # never let a publishing bug break the host's own loop
            log.exception("could not publish %r", type(event).__name__)

    def _relay(self, event: HostEvent) -> None:
        if isinstance(event, SessionOutput):
            sid = event.session_id
            seq = self.seq.get(sid, 0) + 1
            self.seq[sid] = seq
            for client_id in self.seats.attached_clients(sid):
                conn = self.connections.get(client_id)
                if conn is not None:
                    conn.send_output(sid, seq, event.data)
            self._wake(sid)
        elif isinstance(event, SessionEvent):
            kind = _HOST_KINDS.get(event.kind, EventKind.UNKNOWN)
            self.publish(kind, EventData(session=self.facts(event.facts)))
            self._wake(event.facts.id)

    def _wake(self, session_id: str) -> None:
        changed = self.changed.pop(session_id, None)
        if changed is not None:
            changed.set()

    def next_change(self, session_id: str) -> asyncio.Event:
        """An event set at the session's next output or fact change."""
        return self.changed.setdefault(session_id, asyncio.Event())

    def detach_controller(self, session_id: str) -> None:
        """Release the client holding `session_id`'s controller seat, as its own
        `session.detach` would (the session itself is untouched)."""
        client_id = self.seats.controller(session_id)
        if client_id is None:
            return
        change = self.seats.detach(session_id, client_id)
        holder = self.connections.get(client_id)
        if holder is not None:
            holder.attached.discard(session_id)
        if change is not None:
            self.publish_seat(change, EventKind.CLIENT_DETACHED)

    # -- connections ---------------------------------------------------------------------

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        if not self._peer_allowed(writer):
            writer.write(error_line(None, ErrorCode.FORBIDDEN, "not the runtime's owner"))
            writer.close()
            return
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)
        conn = Connection(writer, uuid.uuid4().hex[:12])
        if self.on_client is not None:
            try:
                self.on_client()
            except Exception:  # bookkeeping must never refuse a client
                log.exception("on_client")
        self.connections[conn.client_id] = conn
        self.admission.arrived(conn)
        hello = Hello(capabilities=list(self.capabilities), client_id=conn.client_id)
        conn.send(encode(HelloFrame(hello=msgspec.structs.replace(hello, revision=self.revision))))
        try:
            await self._read_loop(conn, reader)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._drop(conn)

    def _peer_allowed(self, writer: asyncio.StreamWriter) -> bool:
        sock = writer.get_extra_info("socket")
        try:
            _pid, uid, _gid = endpoint.peer_credentials(sock)
        except (OSError, endpoint.EndpointError):
            return False
        if uid != self._owner_uid:
            log.warning("refused a client of uid %d", uid)
            return False
        return True

    async def _read_loop(self, conn: Connection, reader: asyncio.StreamReader) -> None:
        while not conn.closed:
            try:
                if conn.spoke:
                    line = await reader.readline()
                else:
                    async with asyncio.timeout(admission_rules.HELLO_SECS):
                        line = await reader.readline()
            except TimeoutError:
                quiet = admission_rules.HELLO_SECS
                log.warning("client %s said nothing for %gs; dropped", conn.client_id, quiet)
                conn.send(error_line(None, ErrorCode.TIMEOUT, f"no request within {quiet:g}s"))
                return
            except ValueError:  # asyncio's limit overrun: the line outgrew MAX_FRAME_BYTES
                conn.send(
                    error_line(
                        None,
                        ErrorCode.FRAME_TOO_LARGE,
                        f"a frame longer than {MAX_FRAME_BYTES} bytes; disconnecting",
                    )
                )
                await _linger(conn, reader)
                return
            if not line or not line.endswith(b"\n"):
                return  # closed, possibly mid-frame: the fragment is never acted on
            if not line.strip():
                continue
            if not conn.spoke and not self.admission.spoke(conn, line, self.connections.values()):
                return
            await self._handle_line(conn, line)

    async def _handle_line(self, conn: Connection, line: bytes) -> None:
        try:
            request = decode_request(line)
        except ProtocolError as exc:
            conn.send(error_line(best_effort_id(line), exc.code, exc.message, self.revision))
            return
        if handlers.runs_long(request.method):
            # A wait or a stop must not hold up this client's next request.
            task = asyncio.create_task(self._answer(conn, request))
            conn.tasks.add(task)
            task.add_done_callback(conn.tasks.discard)
        else:
            await self._answer(conn, request)

    async def _answer(self, conn: Connection, request: handlers.Request) -> None:
        ok, result, error = await handlers.handle(self, conn, request)
        response = Response(
            id=request.id, ok=ok, revision=self.revision, result=result, error=error
        )
        conn.send(encode(response))

    def _drop(self, conn: Connection) -> None:
        self.connections.pop(conn.client_id, None)
        self.admission.left(conn)
        for task in list(conn.tasks):
            task.cancel()
        for change in self.seats.detach_all(conn.client_id):
            self.publish_seat(change, EventKind.CLIENT_DETACHED)
        conn.close()


def claim(state: Path | None = None) -> int:
    """Take the state dir's runtime lock (held for the process's life, released
    by the kernel if it dies); EndpointError if another runtime holds it."""
    lock_path = endpoint.prepare_dir(state) / endpoint.LOCK_NAME
    paths.ensure_private_file(lock_path)
    fd = os.open(lock_path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        raise endpoint.EndpointError("another runtime owns this state dir") from exc
    return fd


async def _linger(conn: Connection, reader: asyncio.StreamReader) -> None:
    """Half-close and discard what the client still sends, for a bounded time.
    Closing a unix socket with unread input resets it, and the peer would then
    never read the error frame; discarded chunks are never kept."""
    with contextlib.suppress(OSError, RuntimeError):
        conn.writer.write_eof()
    with contextlib.suppress(TimeoutError, ConnectionError):
        async with asyncio.timeout(LINGER_SECS):
            while await reader.read(65536):
                pass
