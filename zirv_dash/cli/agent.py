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

from zirv_dash import paths, spawn
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
from zirv_dash.cli.agent_inline import run_inline
from zirv_dash.harnesses import adapters, catalogue
from zirv_dash.harnesses.native_kind import NATIVE_ADAPTER
from zirv_dash.textcheck import text_problem

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
    prompt = args.prompt
    if prompt == "-":
        read = _read_stdin_prompt()
        if isinstance(read, int):
            return read
        prompt = read
    base = {"harness": args.harness, "model": args.model}

    def fail(reason: str, code: int, mode: str = "inline") -> int:
        if args.json:
            print(receipt(**base, mode=mode, state="launch_failed", reason=reason))
        err(f"{PREFIX}: {reason}")
        return code

    # One guard for every source (argv, stdin `-`): the prompt is one argv element
    # inline and in a pane, and one that begins with '-' would be read as an option.
    why_prompt = spawn.prompt_refusal(prompt)
    if why_prompt:
        return fail("the prompt is empty" if not prompt.strip() else why_prompt, 2)
    for name, value in (("--model", args.model), ("--workdir", args.workdir)):
        if value is not None and (problem := text_problem(value)):
            return fail(f"{name} {problem}", 2)
    adapter = NATIVE_ADAPTER if args.runtime == "native" else adapters.get(args.harness)
    if adapter is None:
        return fail(
            f"unknown harness {spawn.show(args.harness, 40)}; known: {', '.join(adapters.names())}",
            2,
        )
    if args.model is not None and (why := spawn.model_refusal(args.model)):
        return fail(why, 2)
    resolved = _resolve_model(args.harness, args.model)
    if isinstance(resolved, catalogue.ResolveError):
        return fail(f"--model {args.model}: {resolved}", 2)
    args.model = resolved
    base["model"] = args.model or catalogue.implicit_model(args.harness)
    cwd = Path.cwd()
    repo = paths.repo_root(cwd)
    workdir = str((cwd / args.workdir).resolve()) if args.workdir else None
    if workdir is not None and not Path(workdir).is_dir():
        return fail(f"workdir {workdir} does not exist or is not a directory", 2)
    own_session = env.get("ZIRV_CTX_SESSION", "")
    own_short = paths.short_id(own_session) or "unknown"

    notes: list[str] = []
    targets = spawn.live_dashboards(paths.state_dir(), env, repo, notes)
    for note in notes:
        err(note if note.startswith(PREFIX) else f"{PREFIX}: {note}")
    if targets and (args.force or args.flags):
        err(f"{PREFIX}: --force and trailing flags are not carried over to a dashboard pane")
    if targets and args.max_tool_calls is not None:
        err(f"{PREFIX}: --max-tool-calls is not enforced in a dashboard pane")

    if args.runtime == "native" and not targets:
        return fail(
            "no live dashboard took the request; --runtime native opens a pane in a "
            "dashboard (start one with `zirv chat`)",
            1,
        )
    fallback_note = f"{PREFIX}: no live dashboard -- running {args.harness} inline in this terminal"
    for target in targets:
        req = spawn.SpawnRequest(
            agent=args.harness,
            prompt=prompt,
            cwd=str(repo),
            requested_by=own_short,
            model=args.model,
            workdir=workdir,
            timeout_secs=args.timeout_secs,
            max_tool_calls=args.max_tool_calls,
            parent_session=(own_session or None) if target.private else None,
            worktree=args.worktree,
        )
        try:
            req_path = spawn.write_request(target.channel, req.to_json())
        except OSError as exc:
            err(f"{PREFIX}: could not write to dashboard {target.token_dir.name}: {exc}")
            continue
        waited = spawn.wait_for_ack(req_path)
        if waited.status == "unanswered":
            err(f"{PREFIX}: {waited.message} ({target.token_dir.name})")
            fallback_note = f"{PREFIX}: running {args.harness} inline in this terminal"
            continue
        if waited.status == "claimed_no_ack" or waited.ack is None:
            return fail(waited.message, 1, "dashboard_pane")
        ack = waited.ack
        if ack.ok:
            warnings = [
                f"capability warning: {w.get('capability', '')}: {w.get('detail', '')}"
                for w in ack.capability_warnings
            ]
            for line in warnings:
                err(line)
            if args.json:
                print(
                    receipt(
                        **base,
                        mode="dashboard_pane",
                        state="launched",
                        session=ack.short,
                        workdir=workdir or str(repo),
                        capability_warnings=ack.capability_warnings,
                    )
                )
            else:
                print(f"spawned in dashboard as {ack.short}")
            return 0
        reason = ack.reason or "refused"
        if ack.retryable:
            err(f"{PREFIX}: {reason}; running headless")
            fallback_note = f"{PREFIX}: running {args.harness} inline in this terminal"
            continue
        return fail(reason, EXIT_BUDGET_EXHAUSTED if ack.budget_exhausted else 1, "dashboard_pane")
    if args.runtime == "native":
        return fail("no dashboard could open the native pane (see above)", 1, "dashboard_pane")
    if args.worktree:
        return _inline_in_worktree(args, prompt, adapter, repo, own_session, fallback_note, env)
    return run_inline(args, prompt, adapter, workdir or str(cwd), own_session, fallback_note, env)


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


def _resolve_model(harness: str, model: str | None) -> str | None | catalogue.ResolveError:
    """A tier name (`--model deep`) resolves as `zirv ctx handover` resolves it
    (operator override, then the built-in ladder); a literal model is kept."""
    if model is None or model.strip().lower() not in catalogue.TIERS:
        return model
    from zirv_dash.config import layers as config

    try:
        settings = config.load_settings(paths.repo_root())
    except config.ConfigError as exc:
        return catalogue.ResolveError(str(exc))
    try:
        return catalogue.resolve_requested(harness, model, settings)
    except catalogue.ResolveError as exc:
        return exc


def _read_stdin_prompt() -> str | int:
    """The prompt from stdin, or an exit code after a clear error (too large, not
    UTF-8): never a traceback."""
    data = sys.stdin.buffer.read(MAX_STDIN_PROMPT + 1)
    if len(data) > MAX_STDIN_PROMPT:
        err(f"{PREFIX}: the prompt on stdin is larger than {MAX_STDIN_PROMPT} bytes")
        return 2
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        err(f"{PREFIX}: the prompt on stdin is not UTF-8 text (byte {exc.start})")
        return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
