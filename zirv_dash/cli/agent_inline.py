"""`zirv agent` run inline: the worker on a PTY in this terminal, when no
dashboard took the request; the exit code is the worker's own."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zirv_dash import paths
from zirv_dash.cli import agent_records, inline_headless, inline_needs_you
from zirv_dash.cli.agent_args import PREFIX, AgentArgs, err, receipt
from zirv_dash.harnesses import adapters, catalogue

if TYPE_CHECKING:  # the tee (and its terminal model) loads only for an inline run
    from zirv_dash.panes import output_tail


def run_inline(
    args: AgentArgs,
    prompt: str,
    adapter: adapters.Adapter,
    workdir: str,
    own_session: str,
    notice: str,
    env: Mapping[str, str],
) -> int:
    from zirv_dash.panes import session_env, wrap

    base = {
        "harness": args.harness,
        "model": args.model or catalogue.implicit_model(args.harness),
        "mode": "inline",
        "workdir": workdir,
        "handle": args.handle,
    }
    gate_refusal = _gate_refusal(args.harness, Path(workdir))
    if gate_refusal:
        if args.handle:
            from zirv_dash.delegation import records

            records.mark_failed(paths.repo_root(), args.handle, gate_refusal)
        if args.json:
            print(receipt(**base, state="launch_failed", reason=gate_refusal))
        err(f"{PREFIX}: {gate_refusal}")
        return 1
    session = paths.new_session_id()
    short = paths.short_id(session)
    agent_records.inline_started(paths.repo_root(), args.handle, short, session, workdir)
    plumbing = _Plumbing.open(short, args.json, args.harness, args.needs_you_secs)
    ender = plumbing.ender
    child_env = session_env.child_env(
        session,
        args.harness,
        headless=True,
        parent_session=own_session or None,
        base=env,
        socket_path=ender.socket_path if ender is not None else None,
    )
    argv = adapter.interactive_argv(prompt, model=args.model, extra=args.flags, headless=True)
    ran = _run_child(args, argv, child_env, workdir, notice, session, plumbing, base)
    if isinstance(ran, int):
        return ran  # it never started (said already)
    code, reason = ran
    state = "exited_no_report"
    needs_you = plumbing.needs_you
    if needs_you is not None and needs_you.fired:
        state, code = "needs_you", inline_needs_you.EXIT_NEEDS_YOU
        reason = (
            f"{needs_you.reason} for {needs_you.secs:g}s with no terminal to answer it "
            "(--needs-you-secs)"
        )
    elif code == wrap.EXIT_TIMEOUT:
        reason = "outran its --timeout-secs"
    elif ender is not None and ender.ended:
        code, reason = 0, "turn ended (the agent's turn signal; no terminal to continue)"
    tail = plumbing.tail()
    _report_inline(
        session, args.harness, base["model"], workdir, own_session, code, reason, tail,
        args.handle,
    )  # fmt: skip
    doc = receipt(**base, state=state, exit_code=code, session=short, reason=reason)
    if args.json:
        print(doc)
    elif plumbing.tap is not None:
        # Nobody watched this run (no terminal): the receipt is its only record.
        sys.stdout.write("\n" + doc + "\n")
        sys.stdout.flush()
    return code


@dataclass
class _Plumbing:
    """What one inline run holds open around its child: the input tap and the
    turn-signal socket (when no terminal drives it) and the output tee."""

    tap: inline_headless.InputTap | None
    ender: inline_headless.HeadlessEnd | None
    tee: output_tail.OutputTee | None
    stdin_fd: int
    out_fd: int
    needs_you: inline_needs_you.NeedsYouWatch | None = None
    """With no terminal: ends a run stuck at a needs-you screen."""

    @classmethod
    def open(cls, short: str, json: bool, harness: str, needs_you_secs: int) -> _Plumbing:
        no_terminal = inline_headless.headless(0)
        tap = inline_headless.InputTap(0).start() if no_terminal else None
        ender = _headless_end(short, tap) if tap is not None else None
        stdin_fd = tap.fd if tap is not None else 0
        out_fd = 2 if json else 1
        tee = _output_tee(stdin_fd, out_fd)
        plumbing = cls(tap, ender, tee, stdin_fd, out_fd)
        if no_terminal and tee is not None and needs_you_secs > 0:
            columns, rows = _columns_rows(stdin_fd, out_fd)
            watch = inline_needs_you.NeedsYouWatch(harness, needs_you_secs, columns, rows)
            tee.listener = watch.feed
            plumbing.needs_you = watch
        return plumbing

    def close(self) -> None:
        if self.needs_you is not None:
            self.needs_you.close()
        if self.ender is not None:
            self.ender.close()
        if self.tap is not None:
            self.tap.close()
        if self.tee is not None:
            self.tee.close()

    def tail(self) -> str | None:
        """The worker's last screen lines, if its output was kept."""
        if self.tee is None:
            return None
        return self.tee.tail(*_columns_rows(self.stdin_fd, self.out_fd))


def _run_child(
    args: AgentArgs,
    argv: list[str],
    child_env: dict[str, str],
    workdir: str,
    notice: str,
    session: str,
    plumbing: _Plumbing,
    base: Mapping[str, str | None],
) -> tuple[int, str | None] | int:
    """Run the worker to its end: (exit code, why it ended), or the exit code of
    a launch that failed. Registered while it runs; the plumbing closed after."""
    from zirv_dash.panes import wrap

    registered: list[str] = []
    ender = plumbing.ender

    def started(pid: int) -> None:
        registered.extend(_register_inline(session, args.harness, Path(workdir), pid))
        if ender is not None:
            ender.started(pid)
        if plumbing.needs_you is not None:
            plumbing.needs_you.start(pid)

    reason: str | None = None
    tee = plumbing.tee
    try:
        with _signals_end_the_run():
            code = wrap.run_wrapped(
                argv,
                child_env,
                workdir,
                notice=notice,
                stdin_fd=plumbing.stdin_fd,
                output_fd=tee.fd if tee is not None else plumbing.out_fd,
                timeout_secs=args.timeout_secs or None,
                on_start=started,
            )
    except wrap.LaunchError as exc:
        if args.json:
            print(receipt(**base, state="launch_failed", reason=str(exc)))
        err(f"{PREFIX}: {exc}")
        return 127
    except _Stopped as stopped:
        code, reason = 128 + stopped.signum, f"stopped by signal {stopped.signum}"
    finally:
        for one in registered:
            _unregister_inline(one)
        plumbing.close()
    return code, reason


def _report_inline(
    session: str,
    harness: str,
    model: str | None,
    workdir: str,
    own_session: str,
    code: int,
    reason: str | None,
    tail: str | None = None,
    handle: str | None = None,
) -> None:
    """Report an inline run the way a dashboard pane's run is reported: the
    `logs/delegation-results/` record, and mail to the requesting session (a
    pane that ran `zirv agent`) or, from a plain terminal, the operator's inbox.
    Best effort: a report that cannot be stored is said on stderr, never fatal."""
    from zirv_dash.config import layers as config
    from zirv_dash.delegation import outcomes
    from zirv_dash.delegation import result as delegation_result
    from zirv_dash.mail import mailbox as mail

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
    result_path: str | None = None
    try:
        result_path = str(delegation_result.write(result))
    except OSError as exc:
        err(f"{PREFIX}: could not store the result of {short}: {exc}")
    try:
        settings = config.load_settings(paths.repo_root())
    except (config.ConfigError, OSError):
        settings = config.Settings()
    # The outcome is on record before anyone is told (the mail carries its identity).
    to = own_session or mail.OPERATOR
    repo = paths.repo_root()
    ident = agent_records.inline_outcome(
        repo, handle, code, shown, result_path, to if settings.mail.enabled else None
    )
    if not settings.mail.enabled:
        return
    try:
        delegation_result.mail_report(
            paths.repo_slug(repo),
            outcomes.with_identity(body, ident) if ident else body,
            from_session=session,
            to_session=own_session or None,
            keep=settings.mail.keep,
            max_message_bytes=settings.mail.max_message_bytes,
        )
    except Exception as exc:  # noqa: BLE001 - mail.MailError or OSError; never fatal here
        err(f"{PREFIX}: could not mail the report of {short}: {exc}")
        return
    if handle and ident:
        try:
            outcomes.mark_published(repo, handle, ident)
        except (OSError, ValueError) as exc:
            err(f"{PREFIX}: delegation {handle}: delivery not marked ({exc})")


def _output_tee(stdin_fd: int, out_fd: int) -> output_tail.OutputTee | None:
    """A tee that keeps the worker's last output for its report. Not when the
    output is a terminal and stdin is not: wrap sizes the PTY from the first of
    the two that is a terminal, and a pipe in between would hide that one."""
    if os.isatty(out_fd) and not os.isatty(stdin_fd):
        return None
    from zirv_dash.panes import output_tail

    try:
        return output_tail.OutputTee(out_fd)
    except OSError as exc:
        err(f"{PREFIX}: the report will not carry the output ({exc})")
        return None


def _columns_rows(stdin_fd: int, out_fd: int) -> tuple[int, int]:
    from zirv_dash.panes import wrap

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
    from zirv_dash.panes import registry

    ender: inline_headless.HeadlessEnd | None = None
    try:
        ender = inline_headless.HeadlessEnd(registry.socket_path(short), tap)
        problem = ender.problem
    except (OSError, ValueError) as exc:
        problem = str(exc)
    if problem:
        err(f"{PREFIX}: no turn-signal socket ({problem}); only --timeout-secs ends this run")
    return ender


def _register_inline(session: str, harness: str, where: Path, pid: int) -> list[str]:
    """Best effort: list the inline worker in the session registry (verb `exec`) so
    `zirv ctx status` and mail can see it. A registry problem never stops the run."""
    try:
        from zirv_dash.panes import registry

        record = registry.SessionRecord.new(
            session, harness, paths.repo_root(where), "exec", pid,
            reachable=False, owner_pid=os.getpid(), role="worker",
        )  # fmt: skip
        registry.register(record)
    except Exception as exc:  # noqa: BLE001 - the registry is advisory here
        err(f"{PREFIX}: could not register the inline session: {exc}")
        return []
    return [record.short]


def _unregister_inline(short: str) -> None:
    try:
        from zirv_dash.panes import registry

        registry.unregister(short)
    except Exception:  # noqa: BLE001
        pass


def _gate_refusal(harness: str, where: Path) -> str | None:
    """The adapter gate (`.zirv/.settings.toml`, `ZIRV_AGENT_<NAME>_ENABLED`)."""
    from zirv_dash.config import layers as config

    try:
        gate = config.load_adapter_gate(paths.repo_root(where), [harness])
    except config.ConfigError as exc:
        return str(exc)
    why = gate.refusal(harness)
    return f"adapter {harness} is {why}" if why else None
