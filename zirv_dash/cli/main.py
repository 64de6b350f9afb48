"""The `zirv` command.

Kept cheap to import: agents run `zirv ctx send`, `zirv agent` and hook entry
points many times a minute, so nothing here imports Textual. The dashboard is
imported only when one is actually opened (see `zirv_dash.cli.chat`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from zirv_dash import PROTOCOL_VERSION, __version__

HELP = """\
zirv — run several AI coding agents side by side in one terminal.

Usage:
  zirv                       open the dashboard (in a repo with a local .zirv/, on a terminal)
  zirv chat [options]        open the dashboard (or a single wrapped session)
      --agent NAME             harness for the first pane (see Harnesses below)
      --model M                model for the first pane
      --simple                 a single wrapped session instead of the dashboard
      --allow-nested           start even inside another agent session
      --runtime native         zirv's own session (routes: ~/.zirv/native.toml; else offline demo)
  zirv native [options]      the same as zirv chat --runtime native
  zirv agent HARNESS PROMPT|- [--model M] [--workdir DIR] [--json] [--timeout-secs N] [-- flags]
                             open a worker pane in the live dashboard (or run it inline)
  zirv agent --runtime native PROMPT|- [--workdir DIR|--worktree] [--json]
                             a native worker pane in the live dashboard
  zirv models [HARNESS]      the model tiers (cheap, standard, deep) each harness resolves
  zirv init                  create .zirv/ with a commented ctx.toml
  zirv version               print the version
  zirv session serve|list [--json]|attach [NAME|ID] [--takeover]|detach NAME|ID
  zirv session stop NAME|ID [--yes] | stop --runtime
                             the persistent runtime: sessions outlive this terminal
  zirv ctx status [--json] [--all-hosts]  live sessions and unread mail (and every host's)
  zirv ctx send --message TEXT [--to-session PREFIX] [--all]
  zirv ctx inbox [--peek]    read (and consume) this repo's mail
  zirv ctx nudge PREFIX --message TEXT
  zirv ctx kill PREFIX
  zirv ctx handover [PREFIX] [--agent A] [--model M|cheap|standard|deep] [--dry-run] [--force]
  zirv ctx hook stop         (for a harness hook) report a turn boundary to the pane
  zirv ctx mcp serve [--repo PATH] [--session ID]  MCP tools (sessions, mail, nudge) over stdio
  zirv ctx config get|set|unset|add|remove|list|path [KEY] [VALUE]
                             read or edit the operator's ~/.zirv/ctx.toml (checked first)
  zirv ctx worktrees [REPO]  list pane worktrees (branch zirv/<short>) and whether each is clean
  zirv ctx api schema [--json] | call METHOD [JSON]   the local runtime protocol v1
  zirv ctx score TRANSCRIPT [--json]   rot-score a claude/codex/gemini/qwen transcript
  zirv ctx usage [--json]    the 5-hour and 7-day usage windows, each reading's source and age
  zirv ctx usage tee -- CMD...         (Claude Code statusLine) record the windows, run CMD
  zirv setup status [--json] | apply [--dry-run]
                             zirv's Stop hook and usage tee in Claude Code's and Codex's settings

Dashboard keys: Ctrl+A then ? lists every binding. Ctrl+A q quits.
"""

# `zirv ctx <verb>` → "module:function". Each entry point takes argv (after the
# verb) and returns an exit code. Each names the module that defines it (not the
# `ctx` re-export), so a verb imports only what it needs.
CTX_VERBS: dict[str, str] = {
    "chat": "zirv_dash.cli.chat:main",
    "agent": "zirv_dash.cli.agent:main",
    "status": "zirv_dash.cli.ctx:status_main",
    "send": "zirv_dash.cli.ctx_mail:send_main",
    "inbox": "zirv_dash.cli.ctx_mail:inbox_main",
    "nudge": "zirv_dash.cli.ctx_mail:nudge_main",
    "kill": "zirv_dash.cli.ctx_kill:kill_main",
    "hook": "zirv_dash.cli.ctx_hook:hook_main",
    "mcp": "zirv_dash.cli.ctx:mcp_main",
    "handover": "zirv_dash.cli.handover:main",
    "worktrees": "zirv_dash.repo.worktree:main",
    "config": "zirv_dash.cli.config_verb:main",
    "models": "zirv_dash.cli.models:main",
    "api": "zirv_dash.session.cli:api_main",
    "score": "zirv_dash.cli.ctx_score:score_main",
    "usage": "zirv_dash.cli.ctx_usage:usage_main",
}

TOP_VERBS: dict[str, str] = {
    "chat": "zirv_dash.cli.chat:main",
    "agent": "zirv_dash.cli.agent:main",
    "models": "zirv_dash.cli.models:main",
    "session": "zirv_dash.cli.chat:session_main",
    "native": "zirv_dash.cli.chat:native_main",
    "setup": "zirv_dash.cli.setup_cmd:setup_main",
    "remote": "zirv_dash.cli.remote:remote_main",
}


def _load(target: str) -> Callable[[list[str]], int]:
    module_name, _, func = target.partition(":")
    # `__import__` rather than `importlib.import_module`: the same import, without
    # the `importlib` package (and `warnings`) on every verb's start-up.
    __import__(module_name)
    module = sys.modules[module_name]
    entry: Callable[[list[str]], int] = getattr(module, func)
    return entry


def harness_lines() -> str:
    """Every harness zirv has an adapter for, marking which are on PATH now."""
    from zirv_dash.harnesses import adapters

    lines = ["Harnesses (* = installed here):"]
    row = "  "
    for name, adapter in adapters.ADAPTERS.items():
        mark = "*" if adapter.installed() else " "
        cell = f"{mark}{name}"
        if adapter.builtin:
            cell += " (built in)"
        if len(row) + len(cell) + 2 > 78:
            lines.append(row.rstrip())
            row = "  "
        row += cell + "  "
    lines.append(row.rstrip())
    return "\n".join(lines) + "\n\n"


def print_help() -> int:
    head, sep, tail = HELP.partition("Dashboard keys:")
    sys.stdout.write(head + harness_lines() + sep + tail)
    return 0


def _bare_is_interactive() -> bool:
    from pathlib import Path  # here and in `init` only: `zirv version` needs no paths

    local = Path.cwd() / ".zirv"
    return local.is_dir() and sys.stdin.isatty() and sys.stdout.isatty()


def init_main(argv: list[str]) -> int:
    """Create `.zirv/ctx.toml`; never through a symlink (a dangling one would
    otherwise make us create a file wherever it points)."""
    import os
    import stat
    from pathlib import Path

    from zirv_dash.config.sample import SAMPLE_CTX_TOML

    target = Path.cwd() / ".zirv"
    try:
        st = target.lstat()
    except FileNotFoundError:
        st = None
    except OSError as exc:
        return _init_error(f"cannot inspect {target}: {exc.strerror or exc}")
    if st is not None and not stat.S_ISDIR(st.st_mode):
        what = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a directory"
        return _init_error(f"{target} is {what}; remove it or create the directory yourself")
    ctx = target / "ctx.toml"
    try:
        if st is None:
            target.mkdir(mode=0o755)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(ctx, flags, 0o644)
    except FileExistsError:
        if ctx.is_symlink():
            return _init_error(f"{ctx} is a symlink; left unchanged")
        print(f"zirv init: {ctx} already exists; left unchanged")
        return 0
    except OSError as exc:
        return _init_error(f"cannot create {ctx}: {exc.strerror or exc}")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(SAMPLE_CTX_TOML)
    print(f"zirv init: created {ctx}")
    return 0


def _init_error(message: str) -> int:
    print(f"zirv init: {message}", file=sys.stderr)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def _dispatch(args: list[str]) -> int:
    if not args:
        if _bare_is_interactive():
            return _load(TOP_VERBS["chat"])([])
        return print_help()
    verb = args[0]
    lowered = verb.lower()
    if lowered in ("--help", "-h", "help", "h"):
        return print_help()
    if lowered in ("version", "v", "--version", "-v"):
        print(f"zirv {__version__} (protocol {PROTOCOL_VERSION})")
        return 0
    if lowered in ("init", "i"):
        return init_main(args[1:])
    if lowered in TOP_VERBS:
        return _load(TOP_VERBS[lowered])(args[1:])
    if lowered == "ctx":
        if len(args) < 2 or args[1] in ("--help", "-h", "help"):
            return print_help()
        sub = args[1].lower()
        if sub not in CTX_VERBS:
            print(f"zirv ctx: unknown command {args[1]!r}; see `zirv --help`", file=sys.stderr)
            return 2
        return _load(CTX_VERBS[sub])(args[2:])
    print(f"zirv: unknown command {verb!r}; see `zirv --help`", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
