"""The per-session journal: an append-only SQLite log (WAL) of everything that
happened — acknowledged inputs, steering, assistant blocks, tool calls and their
executions, approvals, usage, errors, compactions.

The journal is the truth; the transcript and the provider history are pure
functions of it (`transcript.py`). Appends are single INSERTs in autocommit, so
an event is durable before the step it records is taken (a tool's `tool_start`
is committed before it runs: a crash mid-run replays as "outcome unknown",
never a silent re-run).
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zirv_dash import paths

MAX_EVENT_BYTES = 2 * 1024 * 1024
"""One event's JSON; tool output is bounded far below this before it gets here."""
BUSY_TIMEOUT = 1.0
"""How long a write waits for another process's lock. Appends run on the event
loop, so a journal held by someone else must fail soon, not freeze the pane."""


class JournalError(OSError):
    """A journal that cannot be opened, written or read (locked by another
    process, damaged, gone); the message names the file. Never a raw sqlite error."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "native journal error"


@dataclass(frozen=True)
class Event:
    seq: int
    kind: str
    data: Mapping[str, Any]


def new_id(prefix: str) -> str:
    """A fresh id for a journaled item (an input, a message, a call)."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def journal_dir() -> Path:
    return paths.ensure_private_dir(paths.state_dir() / "native-journals")


def journal_path(session: str) -> Path:
    if not session or "/" in session or session.startswith("."):
        raise ValueError(f"native journal: bad session name {session!r}")
    return journal_dir() / f"{session}.sqlite"


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        paths.ensure_private_dir(path.parent)
        try:
            self._db = sqlite3.connect(
                str(path), isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS events ("
                " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
                " kind TEXT NOT NULL,"
                " data TEXT NOT NULL,"
                " at_ms INTEGER NOT NULL)"
            )
        except sqlite3.Error as exc:
            raise JournalError(
                f"native journal {path}: cannot be used ({exc}); not opened"
            ) from exc
        self.skipped = 0
        """Rows the last `events()` could not read (not UTF-8, not a JSON object)."""
        try:
            path.chmod(0o600)
        except OSError:
            pass

    @classmethod
    def for_session(cls, session: str) -> Journal:
        return cls(journal_path(session))

    def append(self, kind: str, **data: Any) -> Event:
        text = json.dumps(data, ensure_ascii=False, sort_keys=True)
        if len(text.encode()) > MAX_EVENT_BYTES:
            raise ValueError(f"native journal: a {kind} event is larger than {MAX_EVENT_BYTES}")
        try:
            cur = self._db.execute(
                "INSERT INTO events (kind, data, at_ms) VALUES (?, ?, ?)",
                (kind, text, int(time.time() * 1000)),
            )
        except sqlite3.Error as exc:  # locked by another process, damaged, read-only
            raise JournalError(
                f"native journal {self.path}: cannot be written ({exc}); "
                f"the {kind} event was not recorded"
            ) from exc
        seq = cur.lastrowid
        assert seq is not None
        return Event(seq, kind, data)

    def events(self, after: int = 0) -> list[Event]:
        """Every readable event after `after`, in order. A row that is not UTF-8 or
        not a JSON object is skipped and counted in `skipped` (the rest of the
        conversation is still worth having); a database sqlite cannot read at all
        raises JournalError."""
        # The columns as bytes: sqlite3 raises on text that is not UTF-8, and one
        # such row must cost only itself.
        try:
            rows = self._db.execute(
                "SELECT seq, CAST(kind AS BLOB), CAST(data AS BLOB) FROM events"
                " WHERE seq > ? ORDER BY seq",
                (after,),
            ).fetchall()
        except sqlite3.Error as exc:
            raise JournalError(f"native journal {self.path}: cannot be read ({exc})") from exc
        out: list[Event] = []
        self.skipped = 0
        for seq, kind, blob in rows:
            event = _decode(seq, kind, blob)
            if event is None:
                self.skipped += 1
            else:
                out.append(event)
        return out

    def journal_mode(self) -> str:
        return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    def close(self) -> None:
        self._db.close()


def _decode(seq: object, kind: object, blob: object) -> Event | None:
    if not isinstance(seq, int) or not isinstance(kind, bytes) or not isinstance(blob, bytes):
        return None
    try:
        data = json.loads(blob.decode("utf-8"))
        name = kind.decode("utf-8")
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or not name:
        return None
    return Event(seq, name, data)
