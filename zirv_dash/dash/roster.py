"""The restore roster: the panes a dashboard had when it quit (inventory §8).

`<state>/dash/roster-<slug>.json` = `{"written": <epoch secs>, "panes": [RosterPane…]}`,
compact and private. The next launch claims it by renaming it to
`roster-<slug>.consumed.json` first, so two dashboards can never both restore
it; a roster that is garbage or too old is treated as absent but still consumed.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any

import msgspec

from zirv_dash import paths, record_fields, records, safeio
from zirv_dash.harnesses.adapters import Adapter
from zirv_dash.harnesses.native_kind import NATIVE
from zirv_dash.panes import registry
from zirv_dash.record_fields import Count
from zirv_dash.spawn import dash_root, model_refusal, show
from zirv_dash.textcheck import UnencodableText, require_encodable

log = logging.getLogger(__name__)

MAX_ROSTER_BYTES = 4 * 1024 * 1024
RESTART_PROMPT = "resuming after a dashboard restart; check the repo state and continue"


class RosterPane(records.Record, frozen=True, kw_only=False):
    """One roster entry. Missing fields take defaults, unknown fields are ignored;
    a field of the wrong type refuses the entry (naming the field)."""

    agent: Annotated[str, msgspec.Meta(min_length=1)]
    session_id: Annotated[str, msgspec.Meta(min_length=1)]
    role: str = "worker"
    short: str = ""
    title: str = ""
    report_to: str | None = None
    report_reminder_sent: bool = False
    settled_mail_sent: bool = False
    work_group_id: str | None = None
    budget_tokens: Count | None = None
    interactive: bool = False
    """Default false so an old roster fails closed to the headless posture."""
    parent_session: str | None = None
    native: bool = False
    native_generation: Count = 0
    cwd: str | None = None
    """The directory the pane ran in, so a restore starts it there again (an
    extra field: upstream readers ignore it). None: the repository root."""
    model: str | None = None
    """The model it ran with (a handover may have changed it), so a restore
    brings the same one back (an extra field). None: the harness's default."""

    @classmethod
    def from_json(
        cls, obj: object, problems: list[str] | None = None, source: str = "roster entry"
    ) -> RosterPane:
        """Strict decode of one entry: RecordError names `source` and the field.
        A string that could not be passed to `exec` (a lone surrogate, a NUL)
        raises UnencodableText naming the field: such an entry is refused whole.
        A `model` that looks like a flag, or a `cwd` that is not an absolute path
        to an existing directory, is dropped (the pane restores with the
        harness's default model, in the repository root) and described in
        `problems`."""
        if isinstance(obj, dict):
            require_encodable(obj, "roster entry")
        pane = record_fields.validate(cls, obj, source=source)
        label = f"{pane.title or pane.agent} ({pane.short or paths.short_id(pane.session_id)})"
        model = pane.model or None
        if model is not None and (refused := model_refusal(model)) is not None:
            model = None
            _note(problems, f"{label}: {refused}; it restores with the harness's default model")
        cwd = pane.cwd
        if cwd is not None and (why := cwd_problem(cwd)) is not None:
            cwd = None
            _note(problems, f"{label}: cwd {show(pane.cwd or '', 120)} {why}; "
                  "it restores in the repository root")  # fmt: skip
        return msgspec.structs.replace(
            pane, short=pane.short or paths.short_id(pane.session_id), model=model, cwd=cwd
        )

    def to_json(self) -> dict[str, Any]:
        return msgspec.structs.asdict(self)


class RosterDoc(records.Record, frozen=True):
    """The roster file: when it was written, and its entries (each decoded on its
    own, so one bad entry never costs the others)."""

    written: float
    panes: list[Any] = msgspec.field(default_factory=list)


def _note(problems: list[str] | None, message: str) -> None:
    if problems is not None:
        problems.append(message)


def cwd_problem(cwd: str) -> str | None:
    """Why a recorded cwd cannot be used (the roster is a file any process of
    this user could have edited), or None."""
    if not cwd or not os.path.isabs(cwd):
        return "is not an absolute path"
    try:
        if not os.path.isdir(cwd):
            return "is not an existing directory"
    except (OSError, ValueError):
        return "cannot be checked"
    return None


def roster_path(state: Path, slug: str) -> Path:
    return dash_root(state) / f"roster-{slug}.json"


def consumed_path(state: Path, slug: str) -> Path:
    return dash_root(state) / f"roster-{slug}.consumed.json"


def write_roster(
    state: Path, slug: str, panes: Iterable[RosterPane], now: float | None = None
) -> Path:
    """Write the roster atomically and privately, de-duplicated by session_id.
    A native pane (harness "native") is marked `native` too, as upstream records it."""
    seen: set[str] = set()
    unique: list[RosterPane] = []
    for pane in panes:
        if pane.session_id in seen:
            continue
        seen.add(pane.session_id)
        if pane.agent == NATIVE and not pane.native:
            pane = msgspec.structs.replace(pane, native=True)
        unique.append(pane)
    doc = RosterDoc(written=int(time.time() if now is None else now), panes=unique)
    path = roster_path(state, slug)
    records.write(path, doc)
    return path


def clear_roster(state: Path, slug: str) -> None:
    """No roster: nothing is left to restore."""
    try:
        roster_path(state, slug).unlink()
    except FileNotFoundError:
        pass


def take_roster(
    state: Path,
    slug: str,
    max_age_secs: int,
    now: float | None = None,
    problems: list[str] | None = None,
) -> list[RosterPane]:
    """Claim the roster by rename, then read it. [] when absent, garbage or too old.

    Entries that are refused (a field that cannot be encoded for `exec`) are
    left out and described in `problems` (and the log), so the dashboard can
    show them; they never reach a spawn."""
    src, dst = roster_path(state, slug), consumed_path(state, slug)
    paths.sweep_state_temp_files(state)  # writes a kill cut short (roster, tip, handover)
    try:
        os.rename(src, dst)
    except FileNotFoundError:
        return []
    except OSError as exc:
        log.warning("restore roster %s could not be claimed: %s", src, exc)
        return []
    doc = _read_doc(dst)
    if doc is None:
        return []
    age = (time.time() if now is None else now) - doc.written
    if age > max_age_secs:
        log.info("restore roster %s is %ds old (max %ds); ignored", dst, age, max_age_secs)
        return []
    out: list[RosterPane] = []
    for index, item in enumerate(doc.panes):
        where = f"restore roster {dst}: entry {index + 1}"
        notes: list[str] = []
        try:
            pane = RosterPane.from_json(item, notes, source=where)
        except (UnencodableText, records.RecordError) as exc:
            detail = exc.detail if isinstance(exc, record_fields.FieldError) else str(exc)
            notes = [f"{where} not restored: {detail}"]
        else:
            out.append(pane)
            notes = [f"{where}: {note}" for note in notes]
        for message in notes:
            log.warning("%s", message)
            _note(problems, message)
    return out


def _read_doc(path: Path) -> RosterDoc | None:
    """The claimed roster, or None (logged, the file kept as it is) when it is
    unreadable or not a roster."""
    try:
        value = safeio.read_json(path, MAX_ROSTER_BYTES)
        if value is None:
            return None
        return record_fields.validate(RosterDoc, value, source=str(path))
    except (OSError, safeio.BadContent, records.RecordError) as exc:
        log.warning("restore roster ignored: %s", exc)
        return None


def session_is_live(state: Path, pane: RosterPane) -> bool:
    """True if the registry still has a live record for this pane's session."""
    short = pane.short or paths.short_id(pane.session_id)
    if not short or not short.isalnum():
        return False
    try:
        rec = registry.read_record(state / "sessions" / f"{short}.json")
    except registry.RecordError:
        return False
    if rec.session != pane.session_id:
        return False
    return registry.is_alive(rec)


def partition_live(
    panes: Iterable[RosterPane],
    state: Path | None = None,
    is_live: Callable[[RosterPane], bool] | None = None,
) -> tuple[list[RosterPane], list[RosterPane]]:
    """(offer, kept): a harness orchestrator entry is dropped (a fresh launch made
    one); a native orchestrator's is offered (its conversation is its journal,
    reopened as it was). Entries whose session is still live are kept for the
    next roster, not offered."""
    if is_live is None:
        where = paths.state_dir() if state is None else state

        def is_live(p: RosterPane) -> bool:
            return session_is_live(where, p)

    offer: list[RosterPane] = []
    kept: list[RosterPane] = []
    for pane in panes:
        if pane.role == "orchestrator" and pane.agent != NATIVE:
            continue
        (kept if is_live(pane) else offer).append(pane)
    return offer, kept


def kept_notice(pane: RosterPane) -> str:
    return (
        f"not restoring {pane.title or pane.agent} ({pane.short}): that session is still "
        "running (kept for next launch)"
    )


def split_for_cap(
    checked: list[RosterPane], live_panes: int, max_panes: int
) -> tuple[list[RosterPane], list[RosterPane], str | None]:
    """(restore now, defer to the next roster, error text or None)."""
    room = max(0, max_panes - live_panes)
    now, later = checked[:room], checked[room:]
    error = None
    if later:
        error = (
            f"restore: pane limit reached (dash.max_panes = {max_panes}); "
            f"{len(later)} session(s) not restored"
        )
    return now, later, error


def restore_argv(adapter: Adapter, pane: RosterPane) -> list[str]:
    """Resume the same session when the adapter can; otherwise a restart prompt.
    The posture follows the recorded launch mode (headless unless interactive)."""
    headless = not pane.interactive
    # The roster is a file anyone of this user could have edited: only a real
    # session id may reach an argv as a resume target.
    resume = adapter.resume_args(pane.session_id) if _is_uuid(pane.session_id) else []
    # The model is passed only where the harness takes one (a handover may
    # have changed it); the adapter leaves it out when it has no model flag.
    model = pane.model if adapter.model_flag else None
    if resume:
        return adapter.interactive_argv(None, model, extra=resume, headless=headless)
    return adapter.interactive_argv(RESTART_PROMPT, model, headless=headless)


def _is_uuid(value: str) -> bool:
    try:
        return str(uuid.UUID(value)) == value.lower()
    except (ValueError, AttributeError, TypeError):
        return False


def restore_env(pane: RosterPane) -> Mapping[str, str]:
    """Env additions matching the recorded launch mode (pass `headless` to child_env too)."""
    if pane.interactive:
        return {"ZIRV_CTX_LAUNCH_MODE": "interactive"}
    return {"ZIRV_CTX_HEADLESS": "1"}
