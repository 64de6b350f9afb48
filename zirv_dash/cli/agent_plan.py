"""A validated `zirv agent` run: the prompt read and checked, the harness and
model resolved, the places known; and the failure line (and receipt) of a run
that cannot start."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from zirv_dash import paths, spawn
from zirv_dash.cli.agent_args import MAX_STDIN_PROMPT, PREFIX, AgentArgs, err, receipt
from zirv_dash.harnesses import adapters, catalogue
from zirv_dash.harnesses.native_kind import NATIVE_ADAPTER
from zirv_dash.textcheck import text_problem

Base = dict[str, str | None]
"""The receipt fields every outcome carries: harness and model."""


def fail(args: AgentArgs, base: Base, reason: str, code: int, mode: str = "inline") -> int:
    """Say why on stderr (and in the receipt under --json); `code` to exit with."""
    if args.json:
        print(receipt(**base, mode=mode, state="launch_failed", reason=reason))
    err(f"{PREFIX}: {reason}")
    return code


@dataclass
class Plan:
    """A run that passed every local check, ready to ask a dashboard or run inline."""

    args: AgentArgs
    prompt: str
    adapter: adapters.Adapter
    base: Base
    cwd: Path
    repo: Path
    workdir: str | None
    """The resolved --workdir, if one was given."""
    own_session: str
    """The caller's own session (ZIRV_CTX_SESSION), or empty from a plain terminal."""

    @property
    def own_short(self) -> str:
        return paths.short_id(self.own_session) or "unknown"

    def fail(self, reason: str, code: int, mode: str = "inline") -> int:
        handle = self.base.get("handle")
        if handle:
            from zirv_dash.delegation import records

            records.mark_failed(self.repo, handle, reason)
        return fail(self.args, self.base, reason, code, mode)


def plan_run(args: AgentArgs, env: Mapping[str, str]) -> Plan | int:
    """The checked run, or the exit code after a clear error."""
    prompt = args.prompt
    if prompt == "-":
        read = _read_stdin_prompt()
        if isinstance(read, int):
            return read
        prompt = read
    base: Base = {"harness": args.harness, "model": args.model}
    why = _argument_refusal(args, prompt)
    if why:
        return fail(args, base, why, 2)
    adapter = NATIVE_ADAPTER if args.runtime == "native" else adapters.get(args.harness)
    if adapter is None:
        known = ", ".join(adapters.names())
        return fail(
            args, base, f"unknown harness {spawn.show(args.harness, 40)}; known: {known}", 2
        )
    if args.model is not None and (why := spawn.model_refusal(args.model)):
        return fail(args, base, why, 2)
    resolved = _resolve_model(args.harness, args.model)
    if isinstance(resolved, catalogue.ResolveError):
        return fail(args, base, f"--model {args.model}: {resolved}", 2)
    args.model = resolved
    base["model"] = args.model or catalogue.implicit_model(args.harness)
    cwd = Path.cwd()
    repo = paths.repo_root(cwd)
    workdir = str((cwd / args.workdir).resolve()) if args.workdir else None
    if workdir is not None and not Path(workdir).is_dir():
        return fail(args, base, f"workdir {workdir} does not exist or is not a directory", 2)
    own_session = env.get("ZIRV_CTX_SESSION", "")
    return Plan(args, prompt, adapter, base, cwd, repo, workdir, own_session)


def _argument_refusal(args: AgentArgs, prompt: str) -> str | None:
    # One guard for every source (argv, stdin `-`): the prompt is one argv element
    # inline and in a pane, and one that begins with '-' would be read as an option.
    why_prompt = spawn.prompt_refusal(prompt)
    if why_prompt:
        return "the prompt is empty" if not prompt.strip() else why_prompt
    for name, value in (("--model", args.model), ("--workdir", args.workdir)):
        if value is not None and (problem := text_problem(value)):
            return f"{name} {problem}"
    return None


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
