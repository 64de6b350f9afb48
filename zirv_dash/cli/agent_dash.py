"""`zirv agent` asking live dashboards for a pane: the request written to each
in preference order, its ack awaited, and the receipt of a launched pane."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from zirv_dash import paths, spawn
from zirv_dash.cli.agent_args import EXIT_BUDGET_EXHAUSTED, PREFIX, err, receipt
from zirv_dash.cli.agent_plan import Plan

Passed = Literal["unwritten", "declined"]
"""A dashboard that did not decide the run: its channel could not be written,
or it declined for a reason that lets the next one (or an inline run) try."""


def find_dashboards(plan: Plan, env: Mapping[str, str]) -> list[spawn.DashTarget]:
    """Live dashboards in preference order; what will not carry over is said."""
    args = plan.args
    notes: list[str] = []
    targets = spawn.live_dashboards(paths.state_dir(), env, plan.repo, notes)
    for note in notes:
        err(note if note.startswith(PREFIX) else f"{PREFIX}: {note}")
    if targets and (args.force or args.flags):
        err(f"{PREFIX}: --force and trailing flags are not carried over to a dashboard pane")
    if targets and args.max_tool_calls is not None:
        err(f"{PREFIX}: --max-tool-calls is not enforced in a dashboard pane")
    return targets


def ask_dashboards(plan: Plan, targets: list[spawn.DashTarget]) -> int | str:
    """The exit code once a dashboard decided the run, else the notice the inline
    run opens with."""
    harness = plan.args.harness
    fallback_note = f"{PREFIX}: no live dashboard -- running {harness} inline in this terminal"
    for target in targets:
        answer = _ask(plan, target)
        if answer == "declined":
            fallback_note = f"{PREFIX}: running {harness} inline in this terminal"
        elif isinstance(answer, int):
            return answer
    return fallback_note


def _ask(plan: Plan, target: spawn.DashTarget) -> int | Passed:
    args = plan.args
    req = spawn.SpawnRequest(
        agent=args.harness,
        prompt=plan.prompt,
        cwd=str(plan.repo),
        requested_by=plan.own_short,
        model=args.model,
        workdir=plan.workdir,
        timeout_secs=args.timeout_secs,
        max_tool_calls=args.max_tool_calls,
        parent_session=(plan.own_session or None) if target.private else None,
        worktree=args.worktree,
        handle=args.handle,
        mode="read-only" if args.mode == "read-only" else "writing",
    )
    try:
        req_path = spawn.write_request(target.channel, req.to_json())
    except OSError as exc:
        err(f"{PREFIX}: could not write to dashboard {target.token_dir.name}: {exc}")
        return "unwritten"
    waited = spawn.wait_for_ack(req_path)
    if waited.status == "unanswered":
        err(f"{PREFIX}: {waited.message} ({target.token_dir.name})")
        return "declined"
    if waited.status == "claimed_no_ack" or waited.ack is None:
        return plan.fail(waited.message, 1, "dashboard_pane")
    ack = waited.ack
    if ack.ok:
        return _launched(plan, ack)
    reason = ack.reason or "refused"
    if ack.retryable:
        err(f"{PREFIX}: {reason}; running headless")
        return "declined"
    return plan.fail(reason, EXIT_BUDGET_EXHAUSTED if ack.budget_exhausted else 1, "dashboard_pane")


def _launched(plan: Plan, ack: spawn.SpawnAck) -> int:
    for w in ack.capability_warnings:
        err(f"capability warning: {w.get('capability', '')}: {w.get('detail', '')}")
    if plan.args.json:
        print(
            receipt(
                **{**plan.base, "handle": ack.handle or plan.base.get("handle")},
                mode="dashboard_pane",
                state="launched",
                session=ack.short,
                workdir=_pane_workdir(plan, ack),
                capability_warnings=ack.capability_warnings,
            )
        )
    else:
        print(f"spawned in dashboard as {ack.short} (delegation {ack.handle or plan.args.handle})")
    return 0


def _pane_workdir(plan: Plan, ack: spawn.SpawnAck) -> str | None:
    """Where the launched pane runs: with --worktree, the worktree the dashboard
    made for it (its record, by the pane's short id), never the checkout the
    request was sent from; None (left out of the receipt) if that is not known."""
    if not plan.args.worktree:
        return plan.workdir or str(plan.repo)
    from zirv_dash.repo import worktree

    record = worktree.load(plan.repo, ack.short) if ack.short else None
    return record.path if record is not None else None
