"""The repo mailbox: short notes between sessions, upstream-compatible.

Layout under ``<state>/mail/<repo_slug>/``:

- ``<10-digit unix secs>-<from8>.md`` (``_NNN`` before ``.md`` on a same-second
  collision), so lexical order is chronological;
- ``read/``: consumed messages are moved here (pruned to `keep`, oldest first);
- ``full/``: the whole body of a message that was cut to ``max_message_bytes``
  (itself capped at 1 MiB); the stored body ends
  ``[truncated; full body: <absolute sidecar path>]``;
- ``fanout/``: ``--all`` broadcasts, read by every session; each reader leaves
  ``fanout/<base>.read/<reader_short>`` instead of moving the message.

A message is markdown::

    ## Message
    - From-session: <id>
    - From-agent: <name>
    - To: <agent name or "any">
    - To-session: <session id>      (only when directed)
    - Sent: <unix secs>

    <body>

The body comes after the first blank line, so it can never add or change a
header line; header values are sanitised on write and again on read.

Unread mail is never deleted. Before a store, broadcasts that at least one
session has read are pruned to `keep`, consumed messages in ``read/`` too (none
from the last few seconds), and sidecars older than the oldest unread message
likewise; if the mailbox still holds `keep` unread messages the store is refused
with a message saying so, rather than dropping someone's unread note.

Reading is bounded: a message file is `lstat`ed first (a symlink, FIFO, device
or oversized file is reported and left alone, never opened), read without
blocking and at most `MESSAGE_FILE_CAP` bytes, and parsed messages are cached by
inode, size and mtime, so a sweep that runs on every mailbox change re-reads
nothing that did not change.

Writes are atomic *and* exclusive: the message is written to a temporary file
and hard-linked to its final name, which fails if the name is taken, so two
writers in the same second get distinct ``_NNN`` names and a reader never sees
half a message. A store and a consume hold the mailbox's ``.lock`` (`lock`), so
`keep` holds for concurrent senders and a name (a message's id) that ``read/``
holds is never given to a new message.

One module per concern, all re-exported here: `format` (the message and
its header record, `headers`), `read`, `store`, `lock`, `delivery_text`.
"""

from __future__ import annotations

from zirv_dash.mail.delivery_text import (
    INJECT_LABEL_CAP,
    INJECT_SENDER_CAP,
    TRUNCATED_MARK,
    flatten,
    injection_line,
    mail_label,
    unread_advisory,
)
from zirv_dash.mail.format import (
    DEFAULT_KEEP,
    DEFAULT_MAX_MESSAGE_BYTES,
    FULL_BODY_CAP,
    MAX_HEADER_VALUE,
    MESSAGE_NAME,
    OPERATOR,
    MailError,
    Message,
    format_message,
    mailbox_dir,
    parse_message,
    sanitize_header_value,
)
from zirv_dash.mail.read import (
    CACHE_BYTES,
    CACHE_ENTRIES,
    MAX_COLLISIONS,
    MESSAGE_FILE_CAP,
    consume,
    display_body,
    list_messages,
    read_message,
    sent_since,
    unread_counts,
)
from zirv_dash.mail.store import (
    prune,
    store,
)

TYPE_CHECKING = False  # `typing` (with contextlib) is not imported to store a note
if TYPE_CHECKING:
    from zirv_dash.mail.headers import MailHeaders as MailHeaders


def __getattr__(name: str) -> object:
    # Only a refused header needs the record (and msgspec): see `format`.
    if name == "MailHeaders":
        from zirv_dash.mail.headers import MailHeaders

        return MailHeaders
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CACHE_BYTES",
    "CACHE_ENTRIES",
    "DEFAULT_KEEP",
    "DEFAULT_MAX_MESSAGE_BYTES",
    "FULL_BODY_CAP",
    "INJECT_LABEL_CAP",
    "INJECT_SENDER_CAP",
    "MAX_COLLISIONS",
    "MAX_HEADER_VALUE",
    "MESSAGE_FILE_CAP",
    "MESSAGE_NAME",
    "MailError",
    "MailHeaders",
    "Message",
    "OPERATOR",
    "TRUNCATED_MARK",
    "consume",
    "display_body",
    "flatten",
    "format_message",
    "injection_line",
    "list_messages",
    "mail_label",
    "mailbox_dir",
    "parse_message",
    "prune",
    "read_message",
    "sanitize_header_value",
    "sent_since",
    "store",
    "unread_advisory",
    "unread_counts",
]
