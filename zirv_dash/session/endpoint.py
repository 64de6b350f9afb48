"""Where the runtime listens, and who may talk to it.

The socket path is derived from the operator's state dir and nothing else: no
flag, config key or environment variable of its own can point a server or a
client elsewhere, so a checkout cannot name or redirect it. The directory is
0700 and owned by us, the socket 0600, and each peer's uid is read from the
kernel (SO_PEERCRED) and must be ours.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
from pathlib import Path

from zirv_dash import paths

SOCKET_NAME = "api.sock"
LOCK_NAME = "api.lock"
MAX_UNIX_PATH = 107
"""sun_path holds 108 bytes with its terminating NUL on Linux (104 on the BSDs)."""


class EndpointError(Exception):
    """The endpoint cannot be used; the message says why in plain words."""


def socket_dir(state: Path | None = None) -> Path:
    return (state or paths.state_dir()) / "s"


def socket_path(state: Path | None = None) -> Path:
    return socket_dir(state) / SOCKET_NAME


def prepare_dir(state: Path | None = None) -> Path:
    """The socket directory, created 0700; refused if it is a symlink or another
    user's, because whoever owns it could swap the socket under us."""
    directory = socket_dir(state)
    paths.ensure_private_dir(directory)
    info = os.lstat(directory)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise EndpointError(f"{directory} is not a directory")
    if info.st_uid != os.getuid():
        raise EndpointError(f"{directory} belongs to uid {info.st_uid}, not to us")
    if info.st_mode & 0o077:
        os.chmod(directory, 0o700)
    return directory


def check_length(path: Path) -> None:
    if len(os.fsencode(path)) > MAX_UNIX_PATH:
        raise EndpointError(
            f"socket path {path} is longer than {MAX_UNIX_PATH} bytes; use a shorter state dir"
        )


def peer_credentials(sock: socket.socket) -> tuple[int, int, int]:
    """(pid, uid, gid) of the process at the other end, from the kernel."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        raise EndpointError("this platform cannot tell who is connecting (no SO_PEERCRED)")
    size = struct.calcsize("3i")
    pid, uid, gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, size))
    return pid, uid, gid


def bind_listener(path: Path) -> socket.socket:
    """A listening socket at `path`, 0600. A stale socket (nothing answers) is
    replaced; a live one means another runtime owns this state dir."""
    check_length(path)
    if path.exists() or path.is_symlink():
        info = os.lstat(path)
        if not stat.S_ISSOCK(info.st_mode):
            raise EndpointError(f"{path} exists and is not a socket")
        if _answers(path):
            raise EndpointError(f"a runtime is already listening at {path}")
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(os.fspath(path))
        # The directory is 0700, so the moment between bind and chmod exposes nothing.
        os.chmod(path, 0o600)
        sock.listen(64)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def _answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(os.fspath(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True
