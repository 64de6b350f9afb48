"""`zirv agent` / `zirv ctx agent`: delegate one task to a worker.

If a dashboard is live it is asked for a pane (inherited channel, then the
hosting dashboard, then one hosting this repo, then any; newest first). With no
live dashboard — or when every dashboard refuses for a channel-level reason —
the worker runs inline in this terminal on a PTY. Exit 0 means *launched* for a
pane; inline, the exit code is the worker's own.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from zirv_dash import paths
from zirv_dash.cli import agent_records
from zirv_dash.cli.agent_args import (
    EXIT_BUDGET_EXHAUSTED,
    MAX_STDIN_PROMPT,
    PREFIX,
    USAGE,
    AgentArgs,
    UsageError,
    err,
    parse_args,
    receipt,
)
from zirv_dash.cli.agent_dash import ask_dashboards, find_dashboards
from zirv_dash.cli.agent_inline import run_inline
from zirv_dash.cli.agent_plan import Plan, plan_run
from zirv_dash.harnesses import adapters

__all__ = [
    "EXIT_BUDGET_EXHAUSTED",
    "MAX_STDIN_PROMPT",
    "PREFIX",
    "USAGE",
    "AgentArgs",
    "UsageError",
    "main",
    "parse_args",
    "receipt",
    "run",
    "run_inline",
]


def main(argv: list[str]) -> int:
    if any(arg == "--host" or arg.startswith("--host=") for arg in argv):
        from zirv_dash.cli.remote_agent import remote_agent_main  # a remote host's runtime

        return remote_agent_main(argv)
    try:
        args = parse_args(argv)
    except UsageError as exc:
        if str(exc):
            err(f"{PREFIX}: {exc}")
            sys.stderr.write(USAGE)
            return 2
        sys.stdout.write(USAGE)
        return 0
    return run(args, os.environ)


def run(args: AgentArgs, env: Mapping[str, str]) -> int:
    """Check the run, ask the live dashboards for a pane, else run it inline."""
    plan = plan_run(args, env)
    if isinstance(plan, int):
        return plan
    handle = agent_records.begin(plan)
    if isinstance(handle, int):
        return handle
    args.handle = handle
    code = _run(args, plan, env)
    return code


def _run(args: AgentArgs, plan: Plan, env: Mapping[str, str]) -> int:
    targets = find_dashboards(plan, env)
    if args.runtime == "native" and not targets:
        return plan.fail(
            "no live dashboard took the request; --runtime native opens a pane in a "
            "dashboard (start one with `zirv chat`)",
            1,
        )
    asked = ask_dashboards(plan, targets)
    if isinstance(asked, int):
        return asked
    if args.runtime == "native":
        return plan.fail("no dashboard could open the native pane (see above)", 1, "dashboard_pane")
    if not plan.adapter.installed(env.get("PATH", os.defpath)):
        # Said before a worktree is made or the terminal is taken, in the spawn
        # dialog's words (exec would only say `[Errno 2] No such file`).
        return plan.fail(plan.adapter.missing_words(), 127)
    if args.worktree:
        return _inline_in_worktree(
            args, plan.prompt, plan.adapter, plan.repo, plan.own_session, asked, env
        )
    workdir = plan.workdir or str(plan.cwd)
    return run_inline(args, plan.prompt, plan.adapter, workdir, plan.own_session, asked, env)


def _inline_in_worktree(
    args: AgentArgs,
    prompt: str,
    adapter: adapters.Adapter,
    repo: Path,
    own_session: str,
    notice: str,
    env: Mapping[str, str],
) -> int:
    """No dashboard took the request: run inline in a new worktree, then reclaim
    it if the run left nothing behind (else say where it was kept)."""
    from zirv_dash.repo import worktree

    try:
        wt = worktree.create(repo, paths.short_id(paths.new_session_id()))
    except worktree.WorktreeError as exc:
        err(f"{PREFIX}: --worktree: {exc}")
        return 1
    err(f"{PREFIX}: running in worktree {wt.path} (branch {wt.branch})")
    code = run_inline(args, prompt, adapter, wt.path, own_session, notice, env)
    try:
        result = worktree.reclaim(wt)
    except worktree.WorktreeError as exc:
        err(f"{PREFIX}: worktree {wt.branch} kept at {wt.path}: {exc}")
        return code
    if not result.removed:
        err(f"{PREFIX}: worktree {wt.branch} kept at {wt.path} ({result.reason})")
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
