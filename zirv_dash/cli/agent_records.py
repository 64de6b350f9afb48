"""`zirv agent`'s delegation record: the launch receipt written before anything
runs, the writer permit taken for a writing run, and (inline) the attempt and
the outcome persisted before the report mail is sent."""

from __future__ import annotations

from pathlib import Path

from zirv_dash.cli.agent_args import PREFIX, err
from zirv_dash.cli.agent_plan import Plan
from zirv_dash.delegation import outcomes, permits, records
from zirv_dash.delegation.records import RecordProblem


def begin(plan: Plan) -> str | int:
    """The minted handle, or the exit code after a clear refusal (the receipt
    could not be stored, or the tree already has a writer)."""
    args = plan.args
    owner = plan.own_short if plan.own_session else "operator"
    tree = plan.workdir or str(plan.repo)
    try:
        record = records.create(
            plan.repo,
            harness=args.harness,
            owner=owner,
            workdir=tree,
            model=args.model,
            mode="read-only" if args.mode == "read-only" else "write",
            prompt=plan.prompt,
            worktree=args.worktree,
        )
    except OSError as exc:
        return plan.fail(f"could not store the delegation record: {exc}", 1)
    plan.base["handle"] = record.handle
    if args.mode == "write" and not args.worktree:
        try:
            refusal = permits.acquire(plan.repo, record.handle, tree)
        except (OSError, RecordProblem) as exc:
            refusal = None
            err(f"{PREFIX}: writer permit not recorded ({exc})")
        if refusal is not None:
            records.mark_failed(plan.repo, record.handle, refusal.reason())
            return plan.fail(refusal.reason(), 1)
    return record.handle


def inline_started(repo: Path, handle: str | None, short: str, session: str, where: str) -> None:
    if not handle:
        return
    try:
        records.update(
            repo,
            handle,
            lambda r: records.add_attempt(
                records.replace(r, workdir=where), short, session, "inline"
            ),
        )
        if records.read(repo, handle).mode == "write":
            permits.acquire(repo, handle, where)
    except (OSError, RecordProblem) as exc:
        err(f"{PREFIX}: delegation {handle}: attempt not recorded ({exc})")


def inline_outcome(
    repo: Path, handle: str | None, code: int, tail: str, result_path: str | None, to: str | None
) -> str | None:
    """Persist the inline run's end; the identity its mail carries (None: none)."""
    if not handle:
        return None
    try:
        _, ident = outcomes.persist(
            repo, handle, "ended", exit_code=code, tail=tail, result_path=result_path, to=to
        )
        permits.release(repo, handle)
    except (OSError, RecordProblem) as exc:
        err(f"{PREFIX}: delegation {handle}: outcome not recorded ({exc})")
        return None
    return ident
