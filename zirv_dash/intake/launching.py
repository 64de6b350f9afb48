"""Opening the pane an accepted spawn request asks for, and the validation
facts a request is checked against (live settings and panes)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from zirv_dash import paths, spawn
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.intake.sweep import Owner, Spawner
from zirv_dash.panes.pane import Pane


def validation_context(
    dash: Dashboard,
    owner: Owner | None,
    file_drop: bool = True,
    permit: Callable[[spawn.SpawnRequest, Path], str | None] | None = None,
) -> spawn.ValidationContext:
    """Validation facts from the live settings and panes."""
    # Steering reads the usage windows and the pricing table: loaded with the
    # first request, not before the dashboard's first frame (ARCHITECTURE.md).
    from zirv_dash.intake.steering import steerer

    settings = dash.settings.dash
    live = dash.live_panes
    return spawn.ValidationContext(
        repo=dash.repo,
        workdir_roots=list(settings.workdir_roots),
        live_panes=len(live),
        max_panes=settings.max_panes,
        gate=dash.gate,
        channel_owner_role=owner.role if owner else None,
        channel_owner_short=owner.short if owner else None,
        channel_owner_session=owner.session if owner else None,
        live_shorts={p.short for p in live},
        file_drop=file_drop,
        steer=steerer(dash),
        permit=permit,
    )


def open_pane(
    spawner: Spawner, dash: Dashboard, decision: spawn.Decision, owner: Owner | None
) -> Pane:
    """Spawn the decided pane; RuntimeError if it could not start."""
    req, adapter = decision.request, decision.adapter
    if req is None or adapter is None:  # pragma: no cover - validate sets both
        raise RuntimeError("accepted request without an adapter")
    argv, env_extra = spawn.build_launch(req, adapter, decision.headless)
    # Pin the harness to our session id where it can take one, so a later
    # handover or restore can resume this very conversation.
    session_id = paths.new_session_id()
    if adapter.name == "claude":
        # A verified follow-up resumes the earlier attempt's conversation instead.
        argv += adapter.resume_args(req.resume) if req.resume else adapter.pin_args(session_id)
    pane = spawner(
        req.agent,
        prompt=req.prompt,
        model=req.model,
        cwd=str(decision.run_dir or dash.repo),
        role=decision.role,
        headless=decision.headless,
        argv=argv,
        session_id=session_id,
        extra_env=env_extra,
        # ZIRV_CTX_PARENT_SESSION: only the channel the request arrived on proves
        # a parent; what the request says of itself (`requested_by`) never does.
        requested_by=owner.session if owner is not None and decision.parent else None,
        focus=False,
        worktree=req.worktree,
    )
    if pane.spawn_error:
        raise RuntimeError(pane.spawn_error)
    return pane
