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
import socket
import stat
from pathlib import Path

MAX_DATAGRAM = 256
MAX_PATH_BYTES = 107
"""`sun_path` holds 108 bytes including the terminating NUL on Linux."""
KNOWN_KINDS = ("stop",)


class TurnSignalError(OSError):
    """The socket could not be bound; the record should say `reachable: false`."""


class TurnSignalServer:
    """The pane side: a bound, non-blocking datagram socket."""

    def __init__(self, path: Path, sock: socket.socket, inode: int) -> None:
        self.path = path
        self._sock = sock
        self._inode = inode

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
            if _listening(path):
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
        try:
            inode = os.stat(path).st_ino
        except OSError:
            inode = 0
        return cls(path, sock, inode)

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
        """Close the socket and remove its file (only if it is still ours)."""
        try:
            self._sock.close()
        finally:
            try:
                st = os.lstat(self.path)
                if stat.S_ISSOCK(st.st_mode) and (self._inode == 0 or st.st_ino == self._inode):
                    self.path.unlink()
            except OSError:
                pass

    def __enter__(self) -> TurnSignalServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _parse(data: bytes) -> str:
    text = data.decode("ascii", errors="ignore").strip().lower()
    word = text.split()[0] if text.split() else ""
    return word if word.isalnum() and len(word) <= 32 else ""


def _listening(path: Path) -> bool:
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
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        sock.setblocking(False)
        sock.sendto(kind.encode("ascii", errors="ignore")[:MAX_DATAGRAM], os.fspath(socket_path))
    except (OSError, ValueError):
        return False
    finally:
        sock.close()
    return True
