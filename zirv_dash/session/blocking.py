"""The blocking half of the protocol v1 client, for small CLIs that do one thing.

No asyncio here (it costs a CLI's start-up): a plain socket, the server's
`Hello` checked first, one request, its response.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from typing import Any

from zirv_dash.session import endpoint
from zirv_dash.session.protocol import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    ErrorCode,
    ErrorInfo,
    Hello,
    Incoming,
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


def check_hello(frame: Incoming) -> Hello:
    if frame.hello is None:
        raise ProtocolError(ErrorCode.BAD_FRAME, "the server did not say hello first")
    if frame.hello.protocol != PROTOCOL_VERSION:
        raise ProtocolError(
            ErrorCode.UNSUPPORTED,
            f"the runtime speaks protocol {frame.hello.protocol}, this client {PROTOCOL_VERSION}",
        )
    return frame.hello


def remote_error(info: ErrorInfo | None) -> RemoteError:
    if info is None:
        return RemoteError(ErrorCode.UNKNOWN, "the server refused without saying why")
    return RemoteError(info.code, info.message)


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
        check_hello(decode_incoming(_readline(stream)))
        request = Request(id=1, method=method, params=params or {}, idempotency_key=idempotency_key)
        sock.sendall(encode(request))
        while True:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            frame = decode_incoming(_readline(stream))
            if frame.ok is not None and frame.id == 1:
                if not frame.ok:
                    raise remote_error(frame.error)
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
