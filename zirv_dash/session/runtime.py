"""The persistent runtime's engine: built for one repository, headless, and its
restart rule (Tier 2).

`open_host()` builds the engine the way `zirv chat` builds a dashboard's
(settings and adapter gate of the repository it starts in, registry records,
turn signals, spawn channel, restore roster) and starts it on the running loop.
No UI toolkit is imported on this path.

After the runtime itself restarted, every process of the last one is gone.
The roster it wrote on the way down says which sessions there were; a session
is resumed only when it carries a verified conversation reference (a harness
that resumes by id, a real session id, and that conversation found on disk,
e.g. claude's transcript for `--resume`). Every other entry is reported as not
resumed, with the reason, in `session.list`; nothing is relaunched under an old
identity.
"""

from __future__ import annotations

import logging
from pathlib import Path

from zirv_dash import paths
from zirv_dash.config.layers import load_adapter_gate, load_settings
from zirv_dash.dash import roster
from zirv_dash.dash.dashboard import Dashboard, DashError
from zirv_dash.dash.roster import RosterPane, _is_uuid
from zirv_dash.handover.transcript import _claude_transcript
from zirv_dash.harnesses import adapters
from zirv_dash.runtime import Engine
from zirv_dash.runtime import events as ev
from zirv_dash.session.dash_session import DashFactory
from zirv_dash.session.engine_host import EngineHost
from zirv_dash.session.protocol import NotResumed
from zirv_dash.session.topology import TopologyWriter

log = logging.getLogger("zirv.session.runtime")


def open_host(repo: Path | None = None, dashboard: DashFactory | None = None) -> EngineHost:
    """The engine host for `repo` (default: the repository of the working
    directory), started. Raises ConfigError for a broken configuration."""
    root = paths.repo_root(repo)
    settings = load_settings(root)
    gate = load_adapter_gate(root, adapters.names())
    engine = Engine(Dashboard(settings, root, gate, manage_state=True))
    host = EngineHost(engine, dashboard)
    host.on_restore = lambda offer: restore(host, offer)
    engine.start()
    engine.intake.begin()  # opens the spawn channel and reads the roster
    restore_orchestrator(host)
    # From now on the roster follows every change (the one just claimed is
    # answered: what was resumed is live again, the rest was reported).
    host.topology = TopologyWriter(engine)
    host.topology.write_now()
    return host


def conversation_reference(entry: RosterPane) -> str | None:
    """Why `entry` can be resumed (a verified reference), or None."""
    adapter = adapters.get(entry.agent)
    if adapter is None or not _is_uuid(entry.session_id):
        return None
    if not adapter.resume_args(entry.session_id):
        return None
    if entry.agent == "claude":
        cwd = entry.cwd or str(paths.repo_root())
        transcript = _claude_transcript(Path.home(), entry.session_id, cwd)
        return "claude transcript" if transcript is not None else None
    return None  # no way to verify this harness's conversation store


def why_not(entry: RosterPane) -> str:
    adapter = adapters.get(entry.agent)
    if adapter is None:
        return f"unknown harness {entry.agent!r}"
    if not adapter.resume_args(entry.session_id):
        return f"{entry.agent} has no conversation to resume"
    return "its conversation could not be verified"


def restore_orchestrator(host: EngineHost) -> None:
    """The roster's orchestrator entry (the intake's offer leaves it out: a
    dashboard launch makes a fresh one): resumed when verified, else reported."""
    state = paths.state_dir()
    # Only the roster this start claimed (the intake read it, age and fields
    # checked): a consumed file left by an earlier start is never replayed.
    for entry in host.engine.intake.intake.roster.claimed:
        if entry.role != "orchestrator" or roster.session_is_live(state, entry):
            continue
        if conversation_reference(entry) is None:
            report(host, entry)
            continue
        adapter = adapters.get(entry.agent)
        assert adapter is not None  # conversation_reference checked it
        try:
            host.engine.open_pane(
                entry.agent,
                role="orchestrator",
                session_id=entry.session_id,
                argv=roster.restore_argv(adapter, entry),
                model=entry.model,
                cwd=entry.cwd,
                focus=False,
            )
        except DashError as exc:
            log.error("restore %s: %s", entry.short, exc)
            report(host, entry, str(exc))


def report(host: EngineHost, entry: RosterPane, reason: str = "") -> None:
    reason = reason or why_not(entry)
    log.info("not resuming %s (%s): %s", entry.short, entry.agent, reason)
    host.not_resumed.append(
        NotResumed(
            predecessor=entry.short or paths.short_id(entry.session_id),
            name=entry.title,
            harness=entry.agent,
            reason=reason,
        )
    )


def restore(host: EngineHost, offer: ev.RestoreOffered) -> None:
    """Resume what can be verified; report the rest as not resumed."""
    resumed: list[RosterPane] = []
    for entry in offer.panes:
        reference = conversation_reference(entry)
        if reference is not None:
            log.info("resuming %s (%s): %s", entry.short, entry.agent, reference)
            resumed.append(entry)
            continue
        report(host, entry)
    # Every entry is answered now: resumed ones are respawned (with the
    # harness's resume argv), the others are not offered again.
    host.engine.intake.restore_done(resumed)
