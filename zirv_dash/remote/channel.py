"""Protocol v1 over an ssh channel, blocking: `zirv remote check` and the CLIs.

The ssh child's stdout carries the remote runtime's frames, unchanged (the remote
end is `zirv session proxy`). Nothing from the remote is trusted: every line is
bounded (a frame over the limit ends the link), must decode as a server frame,
and must arrive within the deadline — a host that stalls costs its caller the
timeout, never a hang.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import time
from typing import Any

from zirv_dash.remote.hosts import Host
from zirv_dash.remote.link import proxy_argv
from zirv_dash.session.protocol import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    Hello,
    Incoming,
    ProtocolError,
    Request,
    decode_incoming,
    encode,
)

LINK_TIMEOUT_S = 20.0
NO_RUNTIME = 3
"""`zirv session proxy`'s exit code for "no runtime runs there" (session/proxy.py)."""
RUNTIME_ENDED = 4
"""... and for "the runtime ended the link": it stopped while we were attached."""


class LinkError(Exception):
    """The link could not be used; the message says why, in the user's words."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind
        """unreachable, permission, host_key, no_zirv, no_runtime, runtime_stopped,
        protocol, stalled, broken"""


class Channel:
    """One `ssh … zirv session proxy`, its hello read and checked."""

    def __init__(self, host: Host, timeout: float = LINK_TIMEOUT_S) -> None:
        self.host = host
        self.timeout = timeout
        self.proc = subprocess.Popen(
            proxy_argv(host),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # a Ctrl+C here is ours to handle, not ssh's
        )
        self._buffer = bytearray()
        self._ids = 0
        try:
            frame = self._frame(time.monotonic() + timeout)
        except LinkError:
            self.close()
            raise
        if frame.hello is None:
            self.close()
            raise LinkError(f"{host.name}: the remote did not say hello first", "protocol")
        if frame.hello.protocol != PROTOCOL_VERSION:
            self.close()
            raise LinkError(
                f"{host.name}: the remote runtime speaks protocol {frame.hello.protocol},"
                f" this zirv {PROTOCOL_VERSION}: install the same zirv there",
                "protocol",
            )
        self.hello: Hello = frame.hello

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        self._ids += 1
        rid = self._ids
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(encode(Request(id=rid, method=method, params=params or {})))
            self.proc.stdin.flush()
        except OSError as exc:
            raise self._ended(f"the link broke: {exc}") from exc
        deadline = time.monotonic() + self.timeout
        while True:
            frame = self._frame(deadline)
            if frame.ok is not None and frame.id == rid:
                if not frame.ok:
                    message = frame.error.message if frame.error else "refused"
                    raise LinkError(f"{self.host.name}: {method}: {message}", "broken")
                return frame.result

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> Channel:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _frame(self, deadline: float) -> Incoming:
        line = self._line(deadline)
        try:
            return decode_incoming(line)
        except ProtocolError as exc:
            message = f"{self.host.name}: a malformed frame: {exc.message}"
            raise LinkError(message, "protocol") from exc

    def _line(self, deadline: float) -> bytes:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        limit = 8 * MAX_FRAME_BYTES  # as the local client allows the trusted runtime
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[: end + 1])
                del self._buffer[: end + 1]
                return line
            if len(self._buffer) > limit:
                raise LinkError(f"{self.host.name}: a frame over {limit} bytes", "protocol")
            left = deadline - time.monotonic()
            if left <= 0:
                raise LinkError(
                    f"{self.host.name}: no answer within {self.timeout:.0f} s", "stalled"
                )
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise self._ended("the link closed")
            self._buffer += chunk

    def _ended(self, what: str) -> LinkError:
        """Why the ssh child ended, from its exit status and last words."""
        try:
            code = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            return LinkError(f"{self.host.name}: {what}", "broken")
        said = ""
        if self.proc.stderr is not None:
            with contextlib.suppress(OSError, ValueError):
                said = self.proc.stderr.read(8192).decode("utf-8", "replace").strip()
        return classify(self.host, code, said, what)


def classify(host: Host, code: int, stderr: str, what: str = "the link closed") -> LinkError:
    """An ssh child's exit (status, stderr) as a LinkError saying what is wrong."""
    last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    lowered = stderr.lower()
    if code == 255:
        if "host key verification failed" in lowered or "remote host identification" in lowered:
            return LinkError(
                f"{host.name}: ssh refused the host key ({last}); check it with"
                f" `ssh {host.dest}` first",
                "host_key",
            )
        if "permission denied" in lowered:
            return LinkError(f"{host.name}: ssh was refused ({last})", "permission")
        return LinkError(
            f"{host.name}: cannot reach {host.dest}: {last or 'ssh failed'}", "unreachable"
        )
    if code == 127 or "command not found" in lowered or "no such file" in lowered:
        return LinkError(
            f"{host.name}: no `{host.zirv}` there; install it with: {install_hint(host)}",
            "no_zirv",
        )
    if code == RUNTIME_ENDED:
        return LinkError(f"{host.name}: the runtime there stopped", "runtime_stopped")
    if code == NO_RUNTIME:
        return LinkError(f"{host.name}: {_strip_prog(last)}", "no_runtime")
    return LinkError(f"{host.name}: {what} (exit {code}){': ' + last if last else ''}", "broken")


def install_hint(host: Host) -> str:
    """The one command that installs zirv on `host`, run from here (remote/install.py)."""
    return f"zirv remote install {host.name}"


def _strip_prog(line: str) -> str:
    prefix = "zirv session proxy: "
    return line[len(prefix) :] if line.startswith(prefix) else line
