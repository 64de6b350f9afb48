"""The restore roster: the panes a dashboard had when it quit (inventory §8).

`<state>/dash/roster-<slug>.json` = `{"written": <epoch secs>, "panes": [RosterPane…]}`,
compact and private. The next launch claims it by renaming it to
`roster-<slug>.consumed.json` first, so two dashboards can never both restore
it; a roster that is garbage or too old is treated as absent but still consumed.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from zirv_dash import paths, procinfo
from zirv_dash.adapters import Adapter
from zirv_dash.spawn import dash_root, model_refusal, read_json_tolerant, show
from zirv_dash.textcheck import UnencodableText, require_encodable

log = logging.getLogger(__name__)

MAX_ROSTER_BYTES = 4 * 1024 * 1024
RESTART_PROMPT = "resuming after a dashboard restart; check the repo state and continue"


@dataclass
class RosterPane:
    agent: str
    session_id: str
    role: str = "worker"
    short: str = ""
    title: str = ""
    report_to: str | None = None
    report_reminder_sent: bool = False
    settled_mail_sent: bool = False
    work_group_id: str | None = None
    budget_tokens: int | None = None
    interactive: bool = False
    """Default false so an old roster fails closed to the headless posture."""
    parent_session: str | None = None
    native: bool = False
    native_generation: int = 0
    cwd: str | None = None
    """The directory the pane ran in, so a restore starts it there again (an
    extra field: upstream readers ignore it). None: the repository root."""
    model: str | None = None
    """The model it ran with (a handover may have changed it), so a restore
    brings the same one back (an extra field). None: the harness's default."""

    @classmethod
    def from_json(cls, obj: object, problems: list[str] | None = None) -> RosterPane | None:
        """Tolerant parse: missing fields take defaults, wrong types are dropped,
        extra fields ignored. Entries without agent or session_id are unusable.
        A string that could not be passed to `exec` (a lone surrogate, a NUL)
        raises UnencodableText naming the field: such an entry is refused whole.
        A `cwd` that is not an absolute path to an existing directory is dropped
        (the pane restores in the repository root) and described in `problems`."""
        if not isinstance(obj, dict):
            return None
        require_encodable(obj, "roster entry")
        agent, session = obj.get("agent"), obj.get("session_id")
        if not isinstance(agent, str) or not agent or not isinstance(session, str) or not session:
            return None
        pane = cls(agent=agent, session_id=session)
        for name in ("role", "short", "title"):
            if isinstance(obj.get(name), str):
                setattr(pane, name, obj[name])
        for name in ("report_to", "work_group_id", "parent_session"):
            if isinstance(obj.get(name), str):
                setattr(pane, name, obj[name])
        for name in ("report_reminder_sent", "settled_mail_sent", "interactive", "native"):
            if isinstance(obj.get(name), bool):
                setattr(pane, name, obj[name])
        for name in ("budget_tokens", "native_generation"):
            value = obj.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                setattr(pane, name, value)
        if not pane.short:
            pane.short = paths.short_id(session)
        model = obj.get("model")
        if isinstance(model, str) and model:
            refused = model_refusal(model)
            if refused is None:
                pane.model = model
            elif problems is not None:
                problems.append(
                    f"{pane.title or pane.agent} ({pane.short}): {refused}; "
                    "it restores with the harness's default model"
                )
        cwd = obj.get("cwd")
        if isinstance(cwd, str):
            why = cwd_problem(cwd)
            if why is None:
                pane.cwd = cwd
            elif problems is not None:
                problems.append(
                    f"{pane.title or pane.agent} ({pane.short}): cwd {show(cwd, 120)} {why}; "
                    "it restores in the repository root"
                )
        return pane

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


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
    """Write the roster atomically and privately, de-duplicated by session_id."""
    seen: set[str] = set()
    unique: list[dict[str, Any]] = []
    for pane in panes:
        if pane.session_id in seen:
            continue
        seen.add(pane.session_id)
        unique.append(pane.to_json())
    doc = {"written": int(time.time() if now is None else now), "panes": unique}
    path = roster_path(state, slug)
    paths.atomic_write(path, json.dumps(doc, separators=(",", ":")))
    return path


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
    doc = read_json_tolerant(dst, MAX_ROSTER_BYTES)
    if doc is None:
        log.warning("restore roster %s is unreadable; ignored", dst)
        return []
    written = doc.get("written")
    if isinstance(written, bool) or not isinstance(written, int | float):
        log.warning("restore roster %s has no valid `written` time; ignored", dst)
        return []
    age = (time.time() if now is None else now) - written
    if age > max_age_secs:
        log.info("restore roster %s is %ds old (max %ds); ignored", dst, age, max_age_secs)
        return []
    raw = doc.get("panes")
    if not isinstance(raw, list):
        return []
    out: list[RosterPane] = []
    for index, item in enumerate(raw):
        notes: list[str] = []
        try:
            pane = RosterPane.from_json(item, notes)
        except UnencodableText as exc:
            message = f"restore roster {dst}: entry {index + 1} not restored: {exc}"
            log.warning("%s", message)
            if problems is not None:
                problems.append(message)
            continue
        for note in notes:
            message = f"restore roster {dst}: entry {index + 1}: {note}"
            log.warning("%s", message)
            if problems is not None:
                problems.append(message)
        if pane is not None:
            out.append(pane)
    return out


def session_is_live(state: Path, pane: RosterPane) -> bool:
    """True if the registry still has a live record for this pane's session."""
    short = pane.short or paths.short_id(pane.session_id)
    if not short or not short.isalnum():
        return False
    rec = read_json_tolerant(state / "sessions" / f"{short}.json", 256 * 1024)
    if rec is None:
        return False
    session = rec.get("session")
    if isinstance(session, str) and session != pane.session_id:
        return False
    pid = rec.get("pid")
    if isinstance(pid, bool) or not isinstance(pid, int):
        return False
    start = rec.get("start_time")
    start_f = None
    if isinstance(start, int | float) and not isinstance(start, bool):
        start_f = float(start)
    return procinfo.is_same_process(pid, start_f)


def partition_live(
    panes: Iterable[RosterPane],
    state: Path | None = None,
    is_live: Callable[[RosterPane], bool] | None = None,
) -> tuple[list[RosterPane], list[RosterPane]]:
    """(offer, kept): the orchestrator entry is dropped (a fresh launch made one);
    entries whose session is still live are kept for the next roster, not offered."""
    if is_live is None:
        where = paths.state_dir() if state is None else state

        def is_live(p: RosterPane) -> bool:
            return session_is_live(where, p)

    offer: list[RosterPane] = []
    kept: list[RosterPane] = []
    for pane in panes:
        if pane.role == "orchestrator":
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
