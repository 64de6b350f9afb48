"""Reading and replacing workdir files without trusting their names.

Path containment (`Workdir.inside`) checks names; a name can still lead
somewhere else. A FIFO blocks whoever opens it, a hard link is a second name
for a file outside the workdir, and a file swapped in after the check is not
the one checked. So a read opens without following a symlink and without
blocking (`O_NONBLOCK`), then checks what it opened (`fstat`): only a regular
file is read, up to a bound, and one with more than one link only when the
operator approved it. A write never writes through the existing name: it makes a
new file beside it and renames it into place, so the other names of a hard link
keep their content.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


class FileRefused(Exception):
    """The file is not one a tool may read or replace; the message says why."""


def links_note(path: Path, shown: str) -> str:
    """Why reading `path` needs the operator ('' for a file with one name)."""
    try:
        info = os.lstat(path)
    except OSError:
        return ""
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        return (
            f"{shown} has {info.st_nlink} hard links: the same file has another name, "
            "which may be outside the working directory"
        )
    return ""


def read_regular(
    path: Path,
    limit: int,
    *,
    links_ok: bool,
    stop: threading.Event | None = None,
    root: Path | None = None,
) -> bytes:
    """At most `limit` bytes of the regular file at `path` (FileRefused for
    anything else, one larger than `limit`, a hard-linked one unless `links_ok`,
    or, given `root`, one that is not really inside it once opened)."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        raise FileRefused(f"{path.name}: cannot open ({exc.strerror or exc})") from exc
    try:
        if root is not None and not _fd_inside(fd, root):
            raise FileRefused(f"{path.name}: no longer inside the workdir")
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"{path.name}: not a regular file")
        if info.st_nlink > 1 and not links_ok:
            raise FileRefused(
                f"{path.name}: has {info.st_nlink} hard links; "
                "reading it needs the operator's approval"
            )
        if info.st_size > limit:
            raise FileRefused(f"{path.name}: larger than {limit} bytes")
        chunks: list[bytes] = []
        size = 0
        while size <= limit and (stop is None or not stop.is_set()):
            chunk = os.read(fd, min(65536, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise FileRefused(f"{path.name}: larger than {limit} bytes")
    return data


def _fd_inside(fd: int, root: Path) -> bool:
    """What is open at `fd` is `root` or inside it (where it really is, whatever
    name led there: a directory swapped for a symlink since the check)."""
    real = Path(os.readlink(f"/proc/self/fd/{fd}"))
    return real == root or real.is_relative_to(root)


def replace_atomically(root: Path, path: Path, text: str) -> None:
    """Make `path` hold `text`: a new file in the same directory, renamed over
    the name. The directory is opened first and checked to be inside `root`, and
    every step is relative to it, so a directory swapped for a symlink since the
    name was checked cannot redirect the write. An existing file's permission
    bits are kept."""
    path.parent.mkdir(parents=True, exist_ok=True)
    dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        if not _fd_inside(dfd, root):
            raise FileRefused(f"{path.name}: its directory is no longer inside the workdir")
        mode = 0o644
        try:
            info = os.stat(path.name, dir_fd=dfd, follow_symlinks=False)
            if stat.S_ISREG(info.st_mode):
                mode = stat.S_IMODE(info.st_mode)
        except FileNotFoundError:
            pass
        temp = f".{path.name[:100]}.{os.urandom(4).hex()}.zirv-tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(temp, flags, 0o600, dir_fd=dfd)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fchmod(fh.fileno(), mode)
                os.fsync(fh.fileno())
            os.rename(temp, path.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            try:
                os.unlink(temp, dir_fd=dfd)
            except OSError:
                pass
            raise
    finally:
        os.close(dfd)
