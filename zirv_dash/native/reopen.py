"""Native conversations that can be reopened from their journals.

A native pane's journal is named after the pane's short id and holds the whole
conversation, so an ended pane (Ctrl+Q) or one whose dashboard was killed can
be brought back: a new pane replays the journal, and a call that was running
when it stopped reads as `outcome unknown`, never re-run (`transcript.py`).

`open` events carry the session id, the role and the working directory
(`NativeSession`), which is what finds the conversations a killed dashboard
left unfinished in this repository (`unfinished`).
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

from zirv_dash.native.drafts import draft_path
from zirv_dash.native.journal import Journal, JournalError, journal_dir, journal_path

log = logging.getLogger(__name__)

MAX_SCANNED = 200
"""Journals looked at per start, newest first (each is an sqlite open)."""


@dataclass(frozen=True)
class Conversation:
    """A journal worth reopening: what its last `open` said, and how it ended."""

    name: str
    session_id: str
    role: str
    workdir: str
    ended: bool
    """It was closed (`ended` after the last `open`); False: it stopped unfinished."""


def read(name: str) -> Conversation | None:
    """The conversation journaled as `name`, or None: no journal, nothing said in
    it yet, or a journal that cannot be read."""
    path = journal_path(name)
    if not path.is_file():
        return None
    try:
        journal = Journal(path)
    except JournalError as exc:
        log.warning("%s", exc)
        return None
    try:
        events = journal.events()
    except JournalError as exc:
        log.warning("%s", exc)
        return None
    finally:
        journal.close()
    opened = [e for e in events if e.kind == "open"]
    if not opened or not any(e.kind == "input" for e in events):
        return None
    last = opened[-1]
    ended = any(e.kind == "ended" and e.seq > last.seq for e in events)
    data = last.data
    return Conversation(
        name,
        str(data.get("session") or ""),
        str(data.get("role") or "worker"),
        str(data.get("workdir") or ""),
        ended,
    )


def reopenable(name: str) -> bool:
    return read(name) is not None


def move(old: str, new: str) -> None:
    """Give the conversation `old` to the pane named `new` (its journal and its
    saved draft). The journal must be closed. Raises OSError (nothing moved
    when the journal itself cannot be)."""
    src, dst = journal_path(old), journal_path(new)
    if dst.exists():
        raise FileExistsError(f"native journal {dst} already exists")
    os.rename(src, dst)
    for suffix in ("-wal", "-shm"):
        side = src.with_name(src.name + suffix)
        if side.exists():
            os.rename(side, dst.with_name(dst.name + suffix))
    draft = draft_path(old)
    if draft.exists():
        draft_path(new).parent.mkdir(parents=True, exist_ok=True)
        os.replace(draft, draft_path(new))


def unfinished(repo: Path, skip: set[str], max_age_secs: float) -> list[Conversation]:
    """Conversations in `repo` that stopped without ending (their dashboard was
    killed) and were written to within `max_age_secs` (the roster's own age
    limit), newest first; journals named in `skip` (live panes, roster
    entries) are left out."""
    try:
        found = sorted(journal_dir().glob("*.sqlite"), key=_mtime, reverse=True)
    except OSError:
        return []
    oldest = time.time() - max_age_secs
    out: list[Conversation] = []
    for path in found[:MAX_SCANNED]:
        name = path.stem
        if _mtime(path) < oldest:
            break  # sorted newest first: every later one is older still
        if name in skip:
            continue
        convo = read(name)
        if convo is None or convo.ended or not convo.session_id:
            continue
        if convo.workdir and _inside(Path(convo.workdir), repo):
            out.append(convo)
    return out


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return False
    return True
