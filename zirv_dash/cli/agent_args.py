"""`zirv agent` arguments, the delegation receipt and the error line form."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any

USAGE = (
    "usage: zirv agent HARNESS PROMPT|- [--model M] [--workdir DIR | --worktree] [--json] "
    "[--mode write|read-only] [--timeout-secs N] [--needs-you-secs N] [--max-tool-calls N] "
    "[--force] [-- flags]\n"
    "       zirv agent --runtime native PROMPT|- [--workdir DIR | --worktree] [--json]\n"
)
NATIVE_REFUSED = ("--model", "--timeout-secs", "--needs-you-secs", "--max-tool-calls", "--force")
"""Options for a wrapped harness only: a native pane's route names its model, and
its run is not bounded by a harness's flags (trailing `-- flags` likewise)."""
EXIT_BUDGET_EXHAUSTED = 77
MAX_STDIN_PROMPT = 1024 * 1024
PREFIX = "zirv agent"
"""How errors are labelled (also reached as `zirv ctx agent`, the same command)."""


class UsageError(ValueError):
    pass


@dataclass
class AgentArgs:
    harness: str
    prompt: str
    model: str | None = None
    workdir: str | None = None
    json: bool = False
    timeout_secs: int | None = None
    needs_you_secs: int = 30
    """With no terminal: a needs-you screen this long ends an inline run (0: never)."""
    max_tool_calls: int | None = None
    force: bool = False
    worktree: bool = False
    """Run in a git worktree of its own (branch `zirv/<short>`)."""
    flags: list[str] = field(default_factory=list)
    runtime: str = "wrapped"
    """"native": zirv's own session in a dashboard pane (no HARNESS)."""
    mode: str = "write"
    """"read-only" needs no writer permit for its tree."""
    handle: str | None = None
    """The delegation handle, once the launch receipt is on record."""


def parse_args(argv: list[str]) -> AgentArgs:
    """Hand-rolled so a trailing `--` block is kept verbatim and options may come
    before or after the positionals."""
    head, flags = argv, []
    if "--" in argv:
        cut = argv.index("--")
        head, flags = argv[:cut], argv[cut + 1 :]
    positionals, opts, switches = _tokens(head)
    runtime = opts.get("--runtime", "wrapped")
    if runtime not in ("wrapped", "native"):
        raise UsageError(f"--runtime must be wrapped or native, not {runtime!r}")
    if runtime == "native":
        _check_native(opts, switches, flags, positionals)
        positionals = ["native", *positionals]
    if len(positionals) != 2:
        raise UsageError("expected HARNESS and PROMPT (or - to read the prompt from stdin)")
    args = AgentArgs(positionals[0], positionals[1], flags=flags, runtime=runtime)
    args.model = opts.get("--model")
    args.workdir = opts.get("--workdir")
    args.json = "--json" in switches
    args.force = "--force" in switches
    args.worktree = "--worktree" in switches
    args.mode = opts.get("--mode", "write")
    if args.mode not in ("write", "read-only"):
        raise UsageError(f"--mode must be write or read-only, not {args.mode!r}")
    if args.worktree and args.workdir is not None:
        raise UsageError("--worktree and --workdir exclude each other (a worktree is its own dir)")
    for name, attr in (
        ("--timeout-secs", "timeout_secs"),
        ("--needs-you-secs", "needs_you_secs"),
        ("--max-tool-calls", "max_tool_calls"),
    ):
        if name in opts:
            setattr(args, attr, _count(name, opts[name]))
    return args


def _tokens(head: list[str]) -> tuple[list[str], dict[str, str], set[str]]:
    """Positionals, valued options and switches, in any order."""
    positionals: list[str] = []
    opts: dict[str, str] = {}
    switches: set[str] = set()
    i = 0
    while i < len(head):
        tok = head[i]
        name, eq, value = tok.partition("=")
        if name == "--timeout":
            name = "--timeout-secs"  # a short alias: headless runs end on it too
        if name in (
            "--model",
            "--workdir",
            "--timeout-secs",
            "--needs-you-secs",
            "--max-tool-calls",
            "--runtime",
            "--mode",
        ):
            if not eq:
                if i + 1 >= len(head):
                    raise UsageError(f"{name} needs a value")
                i += 1
                value = head[i]
            opts[name] = value
        elif tok in ("--json", "--force", "--worktree"):
            switches.add(tok)
        elif tok in ("-h", "--help"):
            raise UsageError("")
        elif tok.startswith("-") and tok != "-":
            raise UsageError(
                f"unknown option {tok!r} "
                "(a prompt that starts with '-' can be passed on stdin with -)"
            )
        else:
            positionals.append(tok)
        i += 1
    return positionals, opts, switches


def _count(name: str, text: str) -> int:
    """A whole, non-negative number for `name`."""
    try:
        number = int(text)
    except ValueError:
        raise UsageError(f"{name} must be a whole number, not {text!r}") from None
    if number < 0:
        raise UsageError(f"{name} must not be negative")
    return number


def _check_native(
    opts: dict[str, str], switches: set[str], flags: list[str], positionals: list[str]
) -> None:
    """`--runtime native` takes a PROMPT only; wrapped-only options are named."""
    given = [n for n in NATIVE_REFUSED if n in opts or n in switches]
    if flags:
        given.append("-- flags")
    if given:
        raise UsageError(
            f"{', '.join(given)}: for a wrapped harness only; --runtime native takes its "
            "route and model from ~/.zirv/native.toml"
        )
    if len(positionals) != 1:
        raise UsageError("--runtime native takes PROMPT only (no HARNESS: the route decides)")


def receipt(**values: Any) -> str:
    """The delegation receipt: schema_version 1, empty fields omitted."""
    doc: dict[str, Any] = {"schema_version": 1}
    keys = ("handle", "harness", "model", "mode", "state", "exit_code", "session", "workdir")
    for key in (*keys, "reason"):
        value = values.get(key)
        if value is None or value == "" or value == []:
            continue
        doc[key] = value
    for key in ("capability_warnings", "errors"):
        if values.get(key):
            doc[key] = values[key]
    return json.dumps(doc)


def err(text: str) -> None:
    sys.stderr.write(text.rstrip("\n") + "\n")
    sys.stderr.flush()
