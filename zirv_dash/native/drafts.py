"""The pane's draft and queued input, kept across a restart
(`<state>/native-panes/<session>.json`). Scroll, focus and expansion are
deliberately not kept: they belong to one look at the pane, not to the session."""

from __future__ import annotations

from pathlib import Path

from zirv_dash import paths, records

DRAFT_CAP = 1024 * 1024


class QueuedInput(records.Record, frozen=True):
    text: str
    steering: bool = False
    queued_at_ms: int = 0


class PersistedDraft(records.Record, frozen=True):
    draft: str = ""
    queued: list[QueuedInput] = []


def draft_path(session: str) -> Path:
    return paths.state_dir() / "native-panes" / f"{session}.json"


def load_draft(session: str) -> PersistedDraft:
    """The saved draft, or an empty one when there is none or it is unreadable
    (a bad file costs the draft, never the pane)."""
    try:
        found = records.read(PersistedDraft, draft_path(session), DRAFT_CAP)
    except (OSError, records.RecordError):
        return PersistedDraft()
    return found or PersistedDraft()


def save_draft(session: str, draft: PersistedDraft) -> None:
    path = draft_path(session)
    if not draft.draft and not draft.queued:
        path.unlink(missing_ok=True)
        return
    paths.ensure_private_dir(path.parent)
    records.write(path, draft)
