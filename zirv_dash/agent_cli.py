"""`zirv agent` / `zirv ctx agent`: delegate one task to a worker.

If a dashboard is live it is asked for a pane (inherited channel, then the
hosting dashboard, then one hosting this repo, then any; newest first). With no
live dashboard — or when every dashboard refuses for a channel-level reason —
the worker runs inline in this terminal on a PTY. Exit 0 means *launched* for a
pane; inline, the exit code is the worker's own.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zirv_dash import adapters, catalogue, inline_headless, paths, spawn
from zirv_dash.textcheck import text_problem

if TYPE_CHECKING:  # the tee (and its terminal model) loads only for an inline run
    from zirv_dash import output_tail

USAGE = (
    "usage: zirv agent HARNESS PROMPT|- [--model M] [--workdir DIR | --worktree] [--json] "
    "[--timeout-secs N] [--max-tool-calls N] [--force] [-- flags]\n"
)
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
    max_tool_calls: int | None = None
    force: bool = False
    worktree: bool = False
    """Run in a git worktree of its own (branch `zirv/<short>`)."""
    flags: list[str] = field(default_factory=list)


def parse_args(argv: list[str]) -> AgentArgs:
    """Hand-rolled so a trailing `--` block is kept verbatim and options may come
    before or after the positionals."""
    head, flags = argv, []
    if "--" in argv:
        cut = argv.index("--")
        head, flags = argv[:cut], argv[cut + 1 :]
    positionals: list[str] = []
    opts: dict[str, str] = {}
    switches: set[str] = set()
    i = 0
    while i < len(head):
        tok = head[i]
        name, eq, value = tok.partition("=")
        if name == "--timeout":
            name = "--timeout-secs"  # a short alias: headless runs end on it too
        if name in ("--model", "--workdir", "--timeout-secs", "--max-tool-calls"):
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
    if len(positionals) != 2:
        raise UsageError("expected HARNESS and PROMPT (or - to read the prompt from stdin)")
    args = AgentArgs(positionals[0], positionals[1], flags=flags)
    args.model = opts.get("--model")
    args.workdir = opts.get("--workdir")
    args.json = "--json" in switches
    args.force = "--force" in switches
    args.worktree = "--worktree" in switches
    if args.worktree and args.workdir is not None:
        raise UsageError("--worktree and --workdir exclude each other (a worktree is its own dir)")
    for name, attr in (("--timeout-secs", "timeout_secs"), ("--max-tool-calls", "max_tool_calls")):
        if name in opts:
            try:
                number = int(opts[name])
            except ValueError:
                raise UsageError(f"{name} must be a whole number, not {opts[name]!r}") from None
            if number < 0:
                raise UsageError(f"{name} must not be negative")
            setattr(args, attr, number)
    return args


def receipt(**values: Any) -> str:
    """The delegation receipt: schema_version 1, empty fields omitted."""
    doc: dict[str, Any] = {"schema_version": 1}
    for key in ("harness", "model", "mode", "state", "exit_code", "session", "workdir", "reason"):
        value = values.get(key)
        if value is None or value == "" or value == []:
            continue
        doc[key] = value
    for key in ("capability_warnings", "errors"):
        if values.get(key):
            doc[key] = values[key]
    return json.dumps(doc)


def _err(text: str) -> None:
    sys.stderr.write(text.rstrip("\n") + "\n")
    sys.stderr.flush()


def main(argv: list[str]) -> int:
    try:
        args = parse_args(argv)
    except UsageError as exc:
        if str(exc):
            _err(f"{PREFIX}: {exc}")
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
        _err(f"{PREFIX}: {reason}")
        return code

    # One guard for every source (argv, stdin `-`): the prompt is one argv element
    # inline and in a pane, and one that begins with '-' would be read as an option.
    why_prompt = spawn.prompt_refusal(prompt)
    if why_prompt:
        return fail("the prompt is empty" if not prompt.strip() else why_prompt, 2)
    for name, value in (("--model", args.model), ("--workdir", args.workdir)):
        if value is not None and (problem := text_problem(value)):
            return fail(f"{name} {problem}", 2)
    adapter = adapters.get(args.harness)
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
        _err(note if note.startswith(PREFIX) else f"{PREFIX}: {note}")
    if targets and (args.force or args.flags):
        _err(f"{PREFIX}: --force and trailing flags are not carried over to a dashboard pane")
    if targets and args.max_tool_calls is not None:
        _err(f"{PREFIX}: --max-tool-calls is not enforced in a dashboard pane")

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
            _err(f"{PREFIX}: could not write to dashboard {target.token_dir.name}: {exc}")
            continue
        waited = spawn.wait_for_ack(req_path)
        if waited.status == "unanswered":
            _err(f"{PREFIX}: {waited.message} ({target.token_dir.name})")
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
                _err(line)
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
            _err(f"{PREFIX}: {reason}; running headless")
            fallback_note = f"{PREFIX}: running {args.harness} inline in this terminal"
            continue
        return fail(reason, EXIT_BUDGET_EXHAUSTED if ack.budget_exhausted else 1, "dashboard_pane")
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
    from zirv_dash import worktree

    try:
        wt = worktree.create(repo, paths.short_id(paths.new_session_id()))
    except worktree.WorktreeError as exc:
        _err(f"{PREFIX}: --worktree: {exc}")
        return 1
    _err(f"{PREFIX}: running in worktree {wt.path} (branch {wt.branch})")
    code = run_inline(args, prompt, adapter, wt.path, own_session, notice, env)
    try:
        result = worktree.reclaim(wt)
    except worktree.WorktreeError as exc:
        _err(f"{PREFIX}: worktree {wt.branch} kept at {wt.path}: {exc}")
        return code
    if not result.removed:
        _err(f"{PREFIX}: worktree {wt.branch} kept at {wt.path} ({result.reason})")
    return code


def _resolve_model(harness: str, model: str | None) -> str | None | catalogue.ResolveError:
    """A tier name (`--model deep`) resolves as `zirv ctx handover` resolves it
    (operator override, then the built-in ladder); a literal model is kept."""
    if model is None or model.strip().lower() not in catalogue.TIERS:
        return model
    from zirv_dash import config

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
        _err(f"{PREFIX}: the prompt on stdin is larger than {MAX_STDIN_PROMPT} bytes")
        return 2
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        _err(f"{PREFIX}: the prompt on stdin is not UTF-8 text (byte {exc.start})")
        return 2


def run_inline(
    args: AgentArgs,
    prompt: str,
    adapter: adapters.Adapter,
    workdir: str,
    own_session: str,
    notice: str,
    env: Mapping[str, str],
) -> int:
    from zirv_dash import session_env, wrap

    base = {
        "harness": args.harness,
        "model": args.model or catalogue.implicit_model(args.harness),
        "mode": "inline",
        "workdir": workdir,
    }
    gate_refusal = _gate_refusal(args.harness, Path(workdir))
    if gate_refusal:
        if args.json:
            print(receipt(**base, state="launch_failed", reason=gate_refusal))
        _err(f"{PREFIX}: {gate_refusal}")
        return 1
    session = paths.new_session_id()
    short = paths.short_id(session)
    no_terminal = inline_headless.headless(0)
    tap = inline_headless.InputTap(0).start() if no_terminal else None
    ender = _headless_end(short, tap) if tap is not None else None
    child_env = session_env.child_env(
        session,
        args.harness,
        headless=True,
        parent_session=own_session or None,
        base=env,
        socket_path=ender.socket_path if ender is not None else None,
    )
    argv = adapter.interactive_argv(prompt, model=args.model, extra=args.flags, headless=True)
    registered: list[str] = []

    def started(pid: int) -> None:
        registered.extend(_register_inline(session, args.harness, Path(workdir), pid))
        if ender is not None:
            ender.started(pid)

    reason: str | None = None
    stdin_fd = tap.fd if tap is not None else 0
    out_fd = 2 if args.json else 1
    tee = _output_tee(stdin_fd, out_fd)
    try:
        with _signals_end_the_run():
            code = wrap.run_wrapped(
                argv,
                child_env,
                workdir,
                notice=notice,
                stdin_fd=stdin_fd,
                output_fd=tee.fd if tee is not None else out_fd,
                timeout_secs=args.timeout_secs or None,
                on_start=started,
            )
    except wrap.LaunchError as exc:
        if args.json:
            print(receipt(**base, state="launch_failed", reason=str(exc)))
        _err(f"{PREFIX}: {exc}")
        return 127
    except _Stopped as stopped:
        code, reason = 128 + stopped.signum, f"stopped by signal {stopped.signum}"
    finally:
        for one in registered:
            _unregister_inline(one)
        if ender is not None:
            ender.close()
        if tap is not None:
            tap.close()
        if tee is not None:
            tee.close()
    if code == wrap.EXIT_TIMEOUT:
        reason = "outran its --timeout-secs"
    elif ender is not None and ender.ended:
        code, reason = 0, "turn ended (the agent's turn signal; no terminal to continue)"
    tail = tee.tail(*_columns_rows(stdin_fd, out_fd)) if tee is not None else None
    _report_inline(session, args.harness, base["model"], workdir, own_session, code, reason, tail)
    doc = receipt(**base, state="exited_no_report", exit_code=code, session=short, reason=reason)
    if args.json:
        print(doc)
    elif no_terminal:
        # Nobody watched this run: the receipt is its only record.
        sys.stdout.write("\n" + doc + "\n")
        sys.stdout.flush()
    return code


def _report_inline(
    session: str,
    harness: str,
    model: str | None,
    workdir: str,
    own_session: str,
    code: int,
    reason: str | None,
    tail: str | None = None,
) -> None:
    """Report an inline run the way a dashboard pane's run is reported: the
    `logs/delegation-results/` record, and mail to the requesting session (a
    pane that ran `zirv agent`) or, from a plain terminal, the operator's inbox.
    Best effort: a report that cannot be stored is said on stderr, never fatal."""
    from zirv_dash import config, delegation_result

    short = paths.short_id(session)
    outcome = f"ended with exit code {code}" + (f" ({reason})" if reason else "")
    shown = tail or ("(no output)" if tail is not None else "(its output was not kept)")
    body = f"inline run {short} ({harness}, {workdir}) {outcome}\n\n{shown}"
    requester = paths.short_id(own_session) if own_session else None
    result = delegation_result.DelegationResult(
        session=session,
        short=short,
        harness=harness,
        model=model,
        mode="inline",
        cwd=workdir,
        outcome="ended",
        exit_code=code,
        requested_by=requester or "operator",
        body=body,
    )
    try:
        delegation_result.write(result)
    except OSError as exc:
        _err(f"{PREFIX}: could not store the result of {short}: {exc}")
    try:
        settings = config.load_settings(paths.repo_root())
    except (config.ConfigError, OSError):
        settings = config.Settings()
    if not settings.mail.enabled:
        return
    try:
        delegation_result.mail_report(
            paths.repo_slug(paths.repo_root()),
            body,
            from_session=session,
            to_session=own_session or None,
            keep=settings.mail.keep,
            max_message_bytes=settings.mail.max_message_bytes,
        )
    except Exception as exc:  # noqa: BLE001 - mail.MailError or OSError; never fatal here
        _err(f"{PREFIX}: could not mail the report of {short}: {exc}")


def _output_tee(stdin_fd: int, out_fd: int) -> output_tail.OutputTee | None:
    """A tee that keeps the worker's last output for its report. Not when the
    output is a terminal and stdin is not: wrap sizes the PTY from the first of
    the two that is a terminal, and a pipe in between would hide that one."""
    if os.isatty(out_fd) and not os.isatty(stdin_fd):
        return None
    from zirv_dash import output_tail

    try:
        return output_tail.OutputTee(out_fd)
    except OSError as exc:
        _err(f"{PREFIX}: the report will not carry the output ({exc})")
        return None


def _columns_rows(stdin_fd: int, out_fd: int) -> tuple[int, int]:
    from zirv_dash import wrap

    rows, columns = wrap.terminal_size(stdin_fd, out_fd)
    return columns, rows


class _Stopped(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _signals_end_the_run() -> Iterator[None]:
    """SIGTERM/SIGHUP (a CI timeout, a closed terminal) unwind through every
    `finally`: the child is stopped and its registry record removed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_stopped(signum: int, _frame: object) -> None:
        raise _Stopped(signum)

    saved = {sig: signal.signal(sig, raise_stopped) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)


def _headless_end(short: str, tap: inline_headless.InputTap) -> inline_headless.HeadlessEnd | None:
    """The turn-signal socket that ends a run nobody can type into."""
    from zirv_dash import registry

    ender: inline_headless.HeadlessEnd | None = None
    try:
        ender = inline_headless.HeadlessEnd(registry.socket_path(short), tap)
        problem = ender.problem
    except (OSError, ValueError) as exc:
        problem = str(exc)
    if problem:
        _err(f"{PREFIX}: no turn-signal socket ({problem}); only --timeout-secs ends this run")
    return ender


def _register_inline(session: str, harness: str, where: Path, pid: int) -> list[str]:
    """Best effort: list the inline worker in the session registry (verb `exec`) so
    `zirv ctx status` and mail can see it. A registry problem never stops the run."""
    try:
        from zirv_dash import registry

        record = registry.SessionRecord.new(
            session, harness, paths.repo_root(where), "exec", pid,
            reachable=False, owner_pid=os.getpid(), role="worker",
        )  # fmt: skip
        registry.register(record)
    except Exception as exc:  # noqa: BLE001 - the registry is advisory here
        _err(f"{PREFIX}: could not register the inline session: {exc}")
        return []
    return [record.short]


def _unregister_inline(short: str) -> None:
    try:
        from zirv_dash import registry

        registry.unregister(short)
    except Exception:  # noqa: BLE001
        pass


def _gate_refusal(harness: str, where: Path) -> str | None:
    """The adapter gate (`.zirv/.settings.toml`, `ZIRV_AGENT_<NAME>_ENABLED`)."""
    from zirv_dash import config

    try:
        gate = config.load_adapter_gate(paths.repo_root(where), [harness])
    except config.ConfigError as exc:
        return str(exc)
    why = gate.refusal(harness)
    return f"adapter {harness} is {why}" if why else None


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
