"""Reading the mailbox: bounded, cached reads; listing, counting and consuming."""

from __future__ import annotations

import _thread
import os
import re
import stat
import unicodedata
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path

from zirv_dash import paths, safeio
from zirv_dash.mail.format import (
    FULL_BODY_CAP,
    MESSAGE_NAME,
    OPERATOR,
    MailError,
    Message,
    mailbox_dir,
    parse_message,
)

MAX_COLLISIONS = 999
MESSAGE_FILE_CAP = FULL_BODY_CAP + 64 * 1024
"""A message file larger than this was not written by a mailbox writer (bodies
are cut to `max_message_bytes`, at most 1 MiB); it is reported, never read."""
CACHE_ENTRIES = 1024
CACHE_BYTES = 16 * 1024 * 1024
"""Parsed messages kept in memory at most (by file size), so a mailbox full of
1 MiB files cannot make the cache itself the memory problem."""
CONSUME_LOCK_WAIT_SECS = 2.0
"""A consume waits less for the mailbox than a store: the dashboard consumes on
its own loop (a busy mailbox is an OSError there, and the mail stays unread)."""
READ_NAME = r"^(\d{10})-([A-Za-z0-9]*)(?:_\d{3})?(?:-r\d{3})?\.md$"
"""A name in ``read/``; compiled on first use (storing a note never needs it)."""


_cache: OrderedDict[tuple[Path, bool], tuple[tuple[int, int, int, int], Message]] = OrderedDict()
_cache_lock = _thread.allocate_lock()
"""`threading.Lock()` is this very lock; `threading` itself is not needed to store a note."""
_cache_bytes = 0


def read_message(path: Path, broadcast: bool = False, st: os.stat_result | None = None) -> Message:
    """The message in `path`; MailError (naming the file) for anything that is not
    a regular file of at most `MESSAGE_FILE_CAP` bytes with a message header.
    Cheap when unchanged since the last read: one `lstat` (or none, given `st`)."""
    try:
        st = os.lstat(path) if st is None else st
        safeio.check_regular(path, st, MESSAGE_FILE_CAP)
    except FileNotFoundError as exc:
        raise MailError(f"{path}: gone") from exc
    except OSError as exc:
        raise MailError(
            str(exc) if isinstance(exc, safeio.UnsafeFile) else f"{path}: {exc}"
        ) from exc
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    with _cache_lock:
        hit = _cache.get((path, broadcast))
        if hit is not None and hit[0] == key:
            _cache.move_to_end((path, broadcast))
            return hit[1]
    try:
        raw = safeio.read_bounded(path, MESSAGE_FILE_CAP)
    except OSError as exc:
        raise MailError(str(exc)) from exc
    if raw is None:
        raise MailError(f"{path}: gone")
    message = parse_message(raw.decode("utf-8", errors="replace"), path, broadcast)
    _remember(path, broadcast, key, message)
    return message


def _remember(
    path: Path, broadcast: bool, key: tuple[int, int, int, int], message: Message
) -> None:
    global _cache_bytes
    with _cache_lock:
        old = _cache.pop((path, broadcast), None)
        if old is not None:
            _cache_bytes -= old[0][2]
        _cache[(path, broadcast)] = (key, message)
        _cache_bytes += key[2]
        while _cache and (len(_cache) > CACHE_ENTRIES or _cache_bytes > CACHE_BYTES):
            _, (evicted, _message) = _cache.popitem(last=False)
            _cache_bytes -= evicted[2]


def message_files(directory: Path) -> list[Path]:
    """Entries named like messages, oldest first; directories are not messages
    (anything else that is not a regular file is reported when it is read)."""
    try:
        names = sorted(
            entry.name
            for entry in os.scandir(directory)
            if MESSAGE_NAME.match(entry.name) and not entry.is_dir(follow_symlinks=False)
        )
    except OSError:
        return []
    return [directory / name for name in names]


def is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def read_by_anyone(broadcast_path: Path) -> bool:
    try:
        return any(os.scandir(broadcast_path.parent / f"{broadcast_path.name[:-3]}.read"))
    except OSError:
        return False


def name_secs(path: Path) -> int:
    match = MESSAGE_NAME.match(path.name)
    return int(match.group(1)) if match else 0


def _fanout_marker_dir(message: Message) -> Path:
    return message.path.parent / f"{message.path.name[:-3]}.read"


def _iter_messages(slug: str, problems: list[str] | None) -> Iterator[Message]:
    box = mailbox_dir(slug)
    for directory, broadcast in ((box, False), (box / "fanout", True)):
        for path in message_files(directory):
            try:
                yield read_message(path, broadcast)
            except MailError as exc:
                if problems is not None:
                    problems.append(f"skipped mail {exc}")
                else:
                    import logging

                    logging.getLogger(__name__).warning("skipped mail %s", exc)


def list_messages(
    slug: str,
    agent: str | None = None,
    short: str | None = None,
    problems: list[str] | None = None,
    include_directed: bool = True,
) -> list[Message]:
    """Unread messages for a session, oldest first.

    `agent`/`short` identify the reader (see `Message.visible_to`); pass None
    for both to see the whole mailbox. Broadcasts the reader (`short`, or
    ``operator``) has already marked are left out. Garbage files are skipped and
    described in `problems`, never deleted. With `include_directed` false, a
    reader with no session (`short` None) does not see mail addressed to one.
    """
    reader = short or OPERATOR
    found: list[Message] = []
    for message in _iter_messages(slug, problems):
        if not message.visible_to(agent, short):
            continue
        if short is None and not include_directed and message.to_session is not None:
            continue
        if message.broadcast and (_fanout_marker_dir(message) / reader).exists():
            continue
        found.append(message)
    found.sort(key=lambda m: (m.path.name, m.broadcast))
    return found


def unread_counts(slug: str, short: str | None, agent: str | None) -> tuple[int, int]:
    """``(broadcast, direct)`` unread counts for a session's badge."""
    direct = 0
    other = 0
    for message in list_messages(slug, agent=agent, short=short):
        if message.directed_to(short):
            direct += 1
        else:
            other += 1
    return other, direct


def consume(message: Message, reader: str | None = None) -> bool:
    """Mark `message` read: move it to ``read/`` (broadcasts: leave a marker).

    Returns False if someone else consumed it first (or it is gone), or if
    `reader` is a session the message is not addressed to.
    """
    if reader is not None and message.to_short is not None and message.to_short != reader:
        return False  # directed mail is consumed only by its addressee
    if message.broadcast:
        marker_dir = paths.ensure_private_dir(_fanout_marker_dir(message))
        name = "".join(ch for ch in (reader or OPERATOR) if ch.isascii() and ch.isalnum())
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
            fd = os.open(marker_dir / (name or OPERATOR), flags, 0o600)
        except FileExistsError:
            return False
        os.close(fd)
        return True
    from zirv_dash.mail.lock import MailboxLock

    read_dir = paths.ensure_private_dir(message.path.parent / "read")
    # Under the lock a store that picks a name sees this message either still in
    # the mailbox or already in read/, never neither (its id stays its own).
    with MailboxLock(message.path.parent, wait_secs=CONSUME_LOCK_WAIT_SECS):
        return _move_to_read(message, read_dir)


def _move_to_read(message: Message, read_dir: Path) -> bool:
    stem = message.path.name[:-3]
    for n in range(MAX_COLLISIONS + 1):
        target = read_dir / (f"{stem}.md" if n == 0 else f"{stem}-r{n:03d}.md")
        try:
            os.link(message.path, target)
        except FileExistsError:
            continue
        except FileNotFoundError:
            return False
        except OSError:
            return _consume_by_rename(message.path, target)
        try:
            os.unlink(message.path)
        except FileNotFoundError:
            # Another reader moved it first: undo our copy so read/ holds one.
            try:
                target.unlink()
            except OSError:
                pass
            return False
        return True
    return False


def _consume_by_rename(source: Path, target: Path) -> bool:
    try:
        os.rename(source, target)
    except FileNotFoundError:
        return False
    return True


def display_body(body: str) -> str:
    """The body made safe to print on a terminal: control characters other
    than newline and tab are shown as spaces (no escape sequences reach it)."""
    return "".join(ch if ch in "\n\t" or unicodedata.category(ch) != "Cc" else " " for ch in body)


def sent_since(slug: str, from_short: str, since: float) -> bool:
    """Whether session `from_short` has mailed anything (read or not) since
    `since`; the dashboard's own system mail (from ``zirv``) does not count."""
    box = mailbox_dir(slug)
    for directory, broadcast in ((box, False), (box / "read", False), (box / "fanout", True)):
        try:
            names = [e.name for e in os.scandir(directory) if e.is_file()]
        except OSError:
            continue
        for name in names:
            match = MESSAGE_NAME.match(name) or re.match(READ_NAME, name)
            if not match or int(match.group(1)) < int(since) or match.group(2) != from_short:
                continue
            try:
                message = read_message(directory / name, broadcast)
            except MailError:
                continue
            if message.from_agent != "zirv":
                return True
    return False
