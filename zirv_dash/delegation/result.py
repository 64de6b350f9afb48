"""The stored result of one delegated run: `<state>/logs/delegation-results/<short>.json`.

Written once per delegated worker — a dashboard pane when it settles or ends,
an inline `zirv agent` run when it ends — so a run is on record even when no
one was there to read its mail. One private (0600) JSON file per worker,
written atomically; the body is the same text the report mail carries.

The report mail itself goes to the requesting session when there is one, and
otherwise to the operator's own inbox (`to: operator`: `zirv ctx inbox` run
from a plain terminal reads it; no agent pane is handed it).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from zirv_dash import paths
from zirv_dash.mail import mailbox as mail

SCHEMA_VERSION = 1
BODY_CAP = 16 * 1024
"""Bytes of report text kept in the file (the newest end survives a cut)."""


@dataclass(frozen=True)
class DelegationResult:
    session: str
    short: str
    harness: str
    model: str | None
    mode: str
    """`dashboard_pane` | `inline`."""
    cwd: str
    outcome: str
    """`ended` (exit code known) | `settled` (went idle with unread output)."""
    exit_code: int | None
    requested_by: str
    """The requester's short id, or `operator` for a run from a plain terminal."""
    body: str
    finished_at: float = 0.0
    schema_version: int = SCHEMA_VERSION


def results_dir() -> Path:
    return paths.state_dir() / "logs" / "delegation-results"


def write(result: DelegationResult) -> Path:
    """Store `result`; raises OSError (the caller reports it, the run goes on)."""
    directory = paths.ensure_private_dir(results_dir())
    doc = asdict(result)
    if not result.finished_at:
        doc["finished_at"] = time.time()
    data = doc["body"].encode("utf-8")
    if len(data) > BODY_CAP:
        doc["body"] = data[-BODY_CAP:].decode("utf-8", "ignore")
    target = directory / f"{result.short}.json"
    paths.atomic_write(target, json.dumps(doc, indent=2) + "\n")
    return target


def read(short: str) -> dict[str, object] | None:
    """The stored result for `short`, or None if there is none (or it is unreadable)."""
    try:
        loaded = json.loads((results_dir() / f"{short}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return loaded if isinstance(loaded, dict) else None


def mail_report(
    slug: str,
    body: str,
    *,
    from_session: str,
    to_session: str | None,
    keep: int = mail.DEFAULT_KEEP,
    max_message_bytes: int = mail.DEFAULT_MAX_MESSAGE_BYTES,
) -> mail.Message:
    """System mail (`from_agent: zirv`) to the requester, or to the operator's inbox."""
    return mail.store(
        slug,
        body,
        from_session=from_session,
        from_agent="zirv",
        to="any" if to_session else mail.OPERATOR,
        to_session=to_session,
        keep=keep,
        max_message_bytes=max_message_bytes,
    )
