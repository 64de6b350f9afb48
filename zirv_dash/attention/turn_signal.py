"""Turn signals: a harness hook tells its pane "this turn is over".

The pane binds a unix *datagram* socket at ``<state>/s/<short>.sock`` and names
it to the child in ``ZIRV_CTX_SOCKET``. A hook (``zirv ctx hook stop``, run by
Claude Code's Stop hook) sends one short datagram such as ``stop``. Datagrams
keep the protocol trivial: no connection state, one message per send, and the
pane drains whatever arrived without ever blocking.

`TurnSignalServer.fileno()` is meant for ``loop.add_reader`` so an idle pane
costs nothing until a signal arrives.
"""

from __future__ import annotations

import errno
import os
import select
import socket
from collections.abc import Callable

TYPE_CHECKING = False  # a hook's one datagram needs neither typing nor pathlib
if TYPE_CHECKING:
    from pathlib import Path

MAX_DATAGRAM = 256
MAX_PATH_BYTES = 107
"""`sun_path` holds 108 bytes including the terminating NUL on Linux."""
KNOWN_KINDS = ("stop",)


class TurnSignalError(OSError):
    """The socket could not be bound; the record should say `reachable: false`."""


class TurnSignalServer:
    """The pane side: a bound, non-blocking datagram socket."""

    def __init__(self, path: Path, sock: socket.socket) -> None:
        self.path = path
        self._sock = sock

    @classmethod
    def bind(cls, path: Path) -> TurnSignalServer:
        """Bind at `path` (0600). A stale socket file there is replaced; a live
        one (another process listening) is left alone and TurnSignalError raised.
        """
        encoded = os.fsencode(path)
        if len(encoded) > MAX_PATH_BYTES:
            raise TurnSignalError(
                f"socket path {path} is {len(encoded)} bytes, over the {MAX_PATH_BYTES}-byte "
                "unix socket limit; set ZIRV_CTX_STATE_DIR to a shorter directory"
            )
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if path.exists() or path.is_symlink():
            if listening(path):
                raise TurnSignalError(f"socket {path} is already in use by another process")
            try:
                path.unlink()
            except OSError as exc:
                raise TurnSignalError(f"cannot replace stale socket {path}: {exc}") from exc
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            sock.bind(str(path))
        except OSError as exc:
            sock.close()
            raise TurnSignalError(f"cannot bind {path}: {exc}") from exc
        # chmod rather than umask: umask is process-wide and other threads may be
        # creating files. The 0700 directory already keeps others out meanwhile.
        try:
            os.chmod(path, 0o600)
        except OSError:
            pass
        sock.setblocking(False)
        return cls(path, sock)

    def fileno(self) -> int:
        return self._sock.fileno()

    def drain(self) -> list[str]:
        """Every signal received since the last drain (never blocks)."""
        signals: list[str] = []
        while True:
            try:
                data = self._sock.recv(MAX_DATAGRAM)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                break
            kind = _parse(data)
            if kind:
                signals.append(kind)
        return signals

    def close(self) -> None:
        """Close the socket and remove its file, unless a successor has bound
        the same path since (a rollover keeps the short id)."""
        ours = self._path_is_ours()
        self._sock.close()
        if ours:
            try:
                self.path.unlink()
            except OSError:
                pass

    def _path_is_ours(self) -> bool:
        # Inode numbers are reused at once after an unlink, so ask the socket at
        # the path itself: a nonce sent there must arrive on our own socket.
        # `secrets.token_hex(8)` is this (os.urandom), without `secrets`: it
        # imports hmac, hashlib and random on every `zirv ctx hook stop`.
        nonce = b"\x00zirv-close-" + os.urandom(8).hex().encode()
        if not send_turn_signal_bytes(self.path, nonce):
            return False
        for _ in range(4096):
            try:
                if self._sock.recv(MAX_DATAGRAM) == nonce:
                    return True
            except OSError:
                return False
        return False

    def __enter__(self) -> TurnSignalServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _parse(data: bytes) -> str:
    text = data.decode("ascii", errors="ignore").strip().lower()
    word = text.split()[0] if text.split() else ""
    return word if word.isalnum() and len(word) <= 32 else ""


def listening(path: Path) -> bool:
    """True if something is bound to the unix socket at `path`."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        probe.connect(str(path))
    except OSError as exc:
        return exc.errno == errno.EPROTOTYPE
    finally:
        probe.close()
    return True


def send_turn_signal(socket_path: str | os.PathLike[str], kind: str = "stop") -> bool:
    """Send one signal; True if it was delivered to a listening socket.

    Never raises and never blocks: a missing, stale or full socket returns False.
    """
    return send_turn_signal_bytes(socket_path, kind.encode("ascii", errors="ignore"))


def send_turn_signal_bytes(socket_path: str | os.PathLike[str], payload: bytes) -> bool:
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    except OSError:
        return False
    try:
        sock.setblocking(False)
        sock.sendto(payload[:MAX_DATAGRAM], os.fspath(socket_path))
    except (OSError, ValueError):
        return False
    finally:
        sock.close()
    return True


class TurnWatch:
    """Waits on a bound server in a thread and calls `on_stop()` for each "stop"
    signal until closed (inline headless runs end on one)."""

    def __init__(self, server: TurnSignalServer, on_stop: Callable[[], None]) -> None:
        self.server = server
        self.on_stop = on_stop
        import threading  # only a watch needs it, never the hook that sends

        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._run, name="turn-watch", daemon=True)

    def start(self) -> TurnWatch:
        self._thread.start()
        return self

    def _run(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.server.fileno(), self._wake_r], [], [])
            except (OSError, ValueError):
                return
            if self._wake_r in ready:
                return
            if "stop" in self.server.drain():
                self.on_stop()

    def close(self) -> None:
        """Stop the thread, then close and remove the socket."""
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass
        self._thread.join(5)
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        self.server.close()
