"""Bounded, non-blocking reads of files someone else may have planted.

Every file zirv reads between processes or from a checkout (configuration,
keymap, mail, registry, roster, nudge markers) can be a symlink to `/dev/zero`,
a FIFO nobody writes, a socket, a 300 MB blob or a 5,000-deep nest. The rules:

- cheapest checks first: a `stat` says "not a regular file" or "too large"
  before anything is opened, so opening a device never happens;
- the open is `O_NONBLOCK` (a FIFO that slipped in between stat and open can
  never hang us) and `O_NOFOLLOW` for state files zirv writes itself, and the
  opened descriptor is `fstat`ed again: it must still be the same regular file;
- at most `cap` bytes are read, whatever the file claims its size is;
- decoding is strict UTF-8 and parsing turns recursion and depth into a plain
  error, so a caller only ever sees one exception type that names the file.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path

TYPE_CHECKING = False  # `typing` (with contextlib) is not imported to read a file
if TYPE_CHECKING:
    from typing import Any

READ_CHUNK = 64 * 1024
MAX_DEPTH = 32
"""Deepest nesting any record or configuration of ours has a use for."""


class UnsafeFile(OSError):
    """A file that was not read: not a regular file, a symlink, or too large.

    An OSError so callers that already report unreadable files report these too;
    `str()` is the whole message, path first."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unsafe file"


class BadContent(ValueError):
    """A file that was read but cannot be used (encoding, syntax, nesting)."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISLNK(mode):
        return "a symlink"
    return "not a regular file"


def check_regular(path: Path, st: os.stat_result, cap: int) -> None:
    """Raise UnsafeFile unless `st` describes a regular file of at most `cap` bytes."""
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFile(f"{path}: not a regular file ({_kind(st.st_mode)}); not read")
    if st.st_size > cap:
        raise UnsafeFile(f"{path}: too large ({st.st_size} bytes, limit {cap}); not read")


def read_bounded(
    path: Path, cap: int, *, follow_symlinks: bool = False, head: bool = False
) -> bytes | None:
    """The bytes of regular file `path` (at most `cap`), or None if it does not exist.

    `follow_symlinks` is for files the operator may keep in a dotfiles repo
    (configuration); state files zirv writes itself are never symlinks. With
    `head`, a larger file is not refused: its first `cap` bytes are returned.
    Raises UnsafeFile (naming the path) for anything else.
    """
    try:
        st = os.stat(path, follow_symlinks=follow_symlinks)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UnsafeFile(f"{path}: cannot read ({exc.strerror or exc})") from exc
    check_regular(path, st, cap if not head else max(st.st_size, 0))
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UnsafeFile(f"{path}: cannot read ({exc.strerror or exc})") from exc
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            raise UnsafeFile(f"{path}: replaced while being opened; not read")
        check_regular(path, now, cap if not head else max(now.st_size, 0))
        data = _read_fd(fd, cap if head else cap + 1)
    except OSError as exc:
        if isinstance(exc, UnsafeFile):
            raise
        raise UnsafeFile(f"{path}: cannot read ({exc.strerror or exc})") from exc
    finally:
        os.close(fd)
    if len(data) > cap:
        raise UnsafeFile(f"{path}: grew past the {cap}-byte limit while being read; not read")
    return data


def _read_fd(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while total < limit:
        chunk = os.read(fd, min(READ_CHUNK, limit - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def decode_utf8(data: bytes, path: Path) -> str:
    """Strict UTF-8, or BadContent naming the file and the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadContent(f"{path}: not UTF-8 text (bad byte at offset {exc.start})") from exc


def nesting_depth(value: object, limit: int = MAX_DEPTH) -> int:
    """How deeply `value` nests lists and mappings, counted without recursion;
    stops counting past `limit` (returns `limit + 1`)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                return deepest
        stack.extend((child, depth) for child in children)
    return deepest


def _check_depth(value: object, path: Path, limit: int) -> None:
    if nesting_depth(value, limit) > limit:
        raise BadContent(f"{path}: nested more than {limit} levels deep; not used")


def parse_json(text: str, path: Path, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads` with every failure (syntax, recursion, depth) as BadContent."""
    import json

    try:
        value = json.loads(text)
    except RecursionError as exc:
        raise BadContent(f"{path}: nested too deeply to parse; not used") from exc
    except json.JSONDecodeError as exc:
        raise BadContent(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from exc
    except ValueError as exc:  # e.g. an integer with too many digits
        raise BadContent(f"{path}: not valid JSON ({exc})") from exc
    _check_depth(value, path, max_depth)
    return value


# Strings and comments, so what is left is keys, brackets and bare values. Each
# alternative excludes the others' first characters, so matching is linear.
# Compiled on first use (`re` keeps them): a process that reads no TOML, like
# `zirv ctx send` with no configuration file, never pays for them.
_TOML_SKIP = (
    r'"""(?:[^"\\]|\\.|"(?!""))*"""'
    r"|'''.*?'''"
    r'|"(?:[^"\\\n]|\\.)*"'
    r"|'[^'\n]*'"
    r"|#[^\n]*"
)
_FLOAT_DOT = r"(?<=\d)\.(?=\d)"
MAX_KEY_PARTS = 64


def _check_toml_keys(text: str, path: Path) -> None:
    """Refuse a dotted key of more than `MAX_KEY_PARTS` parts before tomllib sees
    it: its cost grows with the square of the parts (5,000 take ~100 MB)."""
    bare = re.sub(_FLOAT_DOT, "", re.sub(_TOML_SKIP, '""', text, flags=re.S))
    for number, line in enumerate(bare.splitlines(), start=1):
        if line.count(".") > MAX_KEY_PARTS:
            raise BadContent(
                f"{path}: line {number} has a key of more than {MAX_KEY_PARTS} dotted "
                "parts (nested more than any setting is); not used"
            )


def parse_toml(text: str, path: Path, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """`tomllib.loads` with every failure (syntax, recursion, depth) as BadContent."""
    _check_toml_keys(text, path)
    import tomllib

    try:
        value = tomllib.loads(text)
    except RecursionError as exc:
        raise BadContent(f"{path}: nested too deeply to parse; not used") from exc
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message already carries "(at line N, column M)".
        raise BadContent(f"{path}: malformed TOML: {exc}") from exc
    except ValueError as exc:
        raise BadContent(f"{path}: malformed TOML: {exc}") from exc
    _check_depth(value, path, max_depth)
    return value


def read_toml(path: Path, cap: int, max_depth: int = MAX_DEPTH) -> dict[str, Any] | None:
    """A TOML document from `path` (symlinks followed, regular files only), or None
    if it does not exist. Raises UnsafeFile or BadContent naming the file."""
    data = read_bounded(path, cap, follow_symlinks=True)
    if data is None:
        return None
    return parse_toml(decode_utf8(data, path), path, max_depth)


def read_json(path: Path, cap: int, max_depth: int = MAX_DEPTH) -> Any:
    """A JSON value from state file `path` (never through a symlink), or None if
    it does not exist. Raises UnsafeFile or BadContent naming the file."""
    data = read_bounded(path, cap)
    if data is None:
        return None
    return parse_json(decode_utf8(data, path), path, max_depth)
