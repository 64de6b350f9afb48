"""Storing mail: exclusive atomic writes, the size cut with its sidecar, pruning.

A store holds the mailbox lock (`mail.lock`) from the room check to the new
file's link (its text is written and synced before), so `[mail] keep` holds
however many senders write at once, and a name is never one a consumed message
already has in ``read/`` (a message id is used once)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from zirv_dash import paths
from zirv_dash.mail.format import (
    DEFAULT_KEEP,
    DEFAULT_MAX_MESSAGE_BYTES,
    FULL_BODY_CAP,
    OPERATOR,
    MailError,
    Message,
    format_message,
    mailbox_dir,
    parse_message,
)
from zirv_dash.mail.lock import MailboxLock
from zirv_dash.mail.read import (
    MAX_COLLISIONS,
    READ_NAME,
    is_regular,
    message_files,
    name_secs,
    read_by_anyone,
)
from zirv_dash.textcheck import text_problem


def cut_utf8(data: bytes, limit: int) -> bytes:
    """`data` cut to at most `limit` bytes without splitting a character."""
    if len(data) <= limit:
        return data
    cut = data[: max(limit, 0)]
    return cut.decode("utf-8", errors="ignore").encode("utf-8")


def _create_exclusive(directory: Path, base: str, data: bytes, used: Path | None = None) -> Path:
    """Write `data` as ``<base>.md`` (or ``<base>_NNN.md``) atomically and
    exclusively (`_write_temp`, then `_link_free_name`)."""
    paths.ensure_private_dir(directory)
    tmp = _write_temp(directory, base, data)
    try:
        return _link_free_name(tmp, directory, base, data, used)
    finally:
        _drop(tmp)


def _write_temp(directory: Path, base: str, data: bytes) -> Path:
    """`data` in a new temp file in `directory`, synced to disk: the slow part
    of a store, done before the mailbox lock is taken."""
    fd, tmp = paths.make_temp(directory, f".{base}.tmp-")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        _drop(tmp)
        raise
    return tmp


def _link_free_name(tmp: Path, directory: Path, base: str, data: bytes, used: Path | None) -> Path:
    """Hard-link `tmp` to the first free ``<base>.md`` / ``<base>_NNN.md``; a
    name `used` (the ``read/`` directory) already holds is skipped, so a consumed
    message's id is never given to a new one."""
    for n in range(MAX_COLLISIONS + 1):
        target = directory / (f"{base}.md" if n == 0 else f"{base}_{n:03d}.md")
        if used is not None and os.path.lexists(used / target.name):
            continue
        try:
            os.link(tmp, target)
        except FileExistsError:
            continue
        except OSError:
            # No hard links here (some network/FUSE filesystems): exclusive
            # create instead; a reader may see a partial file and skip it.
            if _create_by_open(target, data):
                return target
            continue
        return target
    raise MailError(f"{directory}: more than {MAX_COLLISIONS} messages named {base} in one second")


def _drop(tmp: Path) -> None:
    try:
        tmp.unlink()
    except OSError:
        pass


def _create_by_open(target: Path, data: bytes) -> bool:
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return True


def store(
    slug: str,
    body: str,
    *,
    from_session: str,
    from_agent: str,
    to: str = "any",
    to_session: str | None = None,
    broadcast: bool = False,
    keep: int = DEFAULT_KEEP,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    now: float | None = None,
) -> Message:
    """Store one message (then prune the mailbox to `keep`) and return it.

    A body over `max_message_bytes` is cut; the full text goes to a ``full/``
    sidecar named in the stored body's ``[truncated; full body: …]`` marker.
    """
    _check_encodable(body, from_session, from_agent, to, to_session)
    box = mailbox_dir(slug)
    secs = int(time.time() if now is None else now)
    from8 = paths.short_id(from_session) or OPERATOR
    base = f"{secs:010d}-{from8}"
    encoded = body.encode("utf-8", errors="replace")
    directory = box / "fanout" if broadcast else box
    used = None if broadcast else box / "read"
    if len(encoded) > max_message_bytes:
        # The sidecar's name goes into the body: the whole store under the lock.
        with MailboxLock(box):
            _make_room(slug, box, keep, broadcast)
            body = _cut_to_sidecar(box, base, encoded, max_message_bytes)
            text = _text(body, from_session, from_agent, to, to_session, secs)
            path = _create_exclusive(directory, base, text.encode("utf-8"), used)
        return parse_message(text, path, broadcast)
    text = _text(body, from_session, from_agent, to, to_session, secs)
    data = text.encode("utf-8")
    paths.ensure_private_dir(directory)
    tmp = _write_temp(directory, base, data)  # written and synced before the lock
    try:
        with MailboxLock(box):  # held only to check the room and take a name
            _make_room(slug, box, keep, broadcast)
            path = _link_free_name(tmp, directory, base, data, used)
    finally:
        _drop(tmp)
    return parse_message(text, path, broadcast)


def _cut_to_sidecar(box: Path, base: str, encoded: bytes, max_message_bytes: int) -> str:
    """The body cut to `max_message_bytes`, ending in the marker that names the
    ``full/`` sidecar now holding the whole text (itself capped)."""
    sidecar_data = cut_utf8(encoded, FULL_BODY_CAP)
    if len(sidecar_data) < len(encoded):
        sidecar_data += b"\n[truncated]\n"
    sidecar = _create_exclusive(box / "full", base, sidecar_data)
    marker = f"\n[truncated; full body: {sidecar.resolve()}]".encode()
    kept = cut_utf8(encoded, max_message_bytes - len(marker))
    return (kept + marker).decode("utf-8")


def _text(
    body: str, from_session: str, from_agent: str, to: str, to_session: str | None, secs: int
) -> str:
    return format_message(
        body,
        from_session=from_session,
        from_agent=from_agent,
        to=to,
        to_session=to_session,
        sent=secs,
    )


def _check_encodable(
    body: str, from_session: str, from_agent: str, to: str, to_session: str | None
) -> None:
    """MailError naming the field for text that cannot be written as UTF-8 (a lone
    surrogate from a non-UTF-8 argv, say): refused whole, never half-stored."""
    fields = {"from-session": from_session, "from-agent": from_agent, "to": to}
    if to_session is not None:
        fields["to-session"] = to_session
    for name, value in fields.items():
        problem = text_problem(value)
        if problem is not None:
            raise MailError(f"header `{name}` {problem}; nothing was stored")
    try:
        body.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MailError(
            f"the message is not valid UTF-8 text (character {exc.start}); nothing was stored"
        ) from exc


def _make_room(slug: str, box: Path, keep: int, broadcast: bool) -> None:
    """Prune what may be pruned; MailError if `keep` unread messages remain.
    Runs under the mailbox lock."""
    _prune_locked(box, max(keep - 1, 0), read_keep=keep)
    directory = box / "fanout" if broadcast else box
    # Only real messages count: junk planted under a message name (a FIFO, a
    # symlink) is reported by readers, and must not fill the mailbox for everyone.
    held_files = [p for p in message_files(directory) if is_regular(p)]
    unread = [p for p in held_files if not (broadcast and read_by_anyone(p))]
    held = len(held_files)
    if held >= keep:
        where = "broadcasts" if broadcast else "messages"
        raise MailError(
            f"mailbox {slug} already holds {held} {where} ({len(unread)} unread by anyone; "
            f"[mail] keep = {keep}); nothing was stored, since making room would delete "
            "unread mail. Read some first (`zirv ctx inbox`), or raise [mail] keep in "
            "~/.zirv/ctx.toml"
        )


def prune(slug: str, keep: int = DEFAULT_KEEP) -> int:
    """Remove only what no one still has to read: broadcasts some session has
    read, beyond the newest `keep`; consumed messages in ``read/`` beyond the
    newest `keep`; and ``full/`` sidecars beyond `keep` that are older than every
    unread message. Unread mail is never pruned. Also sweeps temp files a killed
    writer left. Returns how many were removed."""
    box = mailbox_dir(slug)
    with MailboxLock(box):
        return _prune_locked(box, keep, keep)


READ_PRUNE_FLOOR_SECS = 10
"""A consumed message younger than this stays in ``read/`` whatever `keep` says:
its name reserves its id (a new message never takes a name ``read/`` holds), and
a new note can only share the second it was sent in."""


def _prune_locked(box: Path, keep: int, read_keep: int) -> int:
    """`prune` with the lock held: `keep` for what makes room for a new note
    (broadcasts, sidecars), `read_keep` for ``read/``."""
    for directory in (box, box / "fanout", box / "full", box / "read"):
        paths.sweep_temp_files(directory)
    removed = 0
    fanout = message_files(box / "fanout")
    excess = len(fanout) - keep
    for path in fanout:
        if excess <= 0:
            break
        if not read_by_anyone(path):
            continue
        if _unlink(path):
            import shutil  # only a prune of a read broadcast needs it

            removed += 1
            excess -= 1
            shutil.rmtree(path.parent / f"{path.name[:-3]}.read", ignore_errors=True)
    removed += _prune_read(box / "read", read_keep)
    unread = message_files(box) + [p for p in fanout if p.exists() and not read_by_anyone(p)]
    oldest_unread = min((name_secs(p) for p in unread), default=None)
    sidecars = message_files(box / "full")
    for path in sidecars[: max(len(sidecars) - keep, 0)]:
        if oldest_unread is not None and name_secs(path) >= oldest_unread:
            break  # its message may still be unread: the marker must stay valid
        if _unlink(path):
            removed += 1
    return removed


def _prune_read(read_dir: Path, keep: int) -> int:
    """Consumed messages beyond the newest `keep`, oldest first (names sort by
    time), none younger than `READ_PRUNE_FLOOR_SECS`."""
    import re  # loaded already (by `read`); named here for the one pattern

    pattern = re.compile(READ_NAME)
    try:
        names = sorted(e.name for e in os.scandir(read_dir) if pattern.match(e.name))
    except OSError:
        return 0
    floor = int(time.time()) - READ_PRUNE_FLOOR_SECS
    removed = 0
    for name in names[: max(len(names) - keep, 0)]:
        match = pattern.match(name)
        if match is None or int(match.group(1)) > floor:
            break
        if is_regular(read_dir / name) and _unlink(read_dir / name):
            removed += 1
    return removed


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    except OSError as exc:
        import logging  # only a failed prune logs (storing mail never needs it)

        logging.getLogger(__name__).warning("could not prune %s: %s", path, exc)
        return False
    return True
