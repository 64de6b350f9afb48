"""`zirv ctx status|send|inbox|nudge|kill|hook`: sessions, mail and nudges from a shell.

Agents run these many times a minute, so this module imports only the small
on-disk protocol modules; configuration (pydantic) is loaded only by the verbs
that store mail, and only for its limits.

Exit codes: 0 done (including "already gone" for `kill`), 1 failed, 2 usage.
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from zirv_dash import escapes, mail, nudge, paths, procinfo, registry, turn_signal
from zirv_dash.textcheck import text_problem
from zirv_dash.textfmt import age_text as _age

KILL_GRACE_SECS = 3.0
KILL_CONFIRM_SECS = 2.0


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as exit code 2 without sys.exit."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: {message}\n{self.format_usage().rstrip()}")


def _parse(parser: _Parser, argv: list[str]) -> argparse.Namespace | int:
    try:
        return parser.parse_args(argv)
    except _UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)


def _err(verb: str, message: str) -> None:
    print(f"zirv ctx {verb}: {message}", file=sys.stderr)


# --- identity ----------------------------------------------------------------


def _identity() -> tuple[str | None, str | None]:
    """(session id, agent) from the environment a pane gives its child."""
    session = os.environ.get("ZIRV_CTX_SESSION") or None
    agent = os.environ.get("ZIRV_CTX_AGENT") or None
    return session, agent


def _my_short() -> str | None:
    session, _ = _identity()
    return paths.short_id(session) if session else None


class _Refused(Exception):
    """A refusal to report as `zirv ctx <verb>: <message>` with an exit code."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _my_slug() -> str:
    try:
        return paths.repo_slug(paths.repo_root())
    except FileNotFoundError as exc:
        raise _Refused(
            "the current directory no longer exists, so the repository (and its mailbox) "
            "cannot be found; cd into the repository and run it again (nothing was sent "
            "or read)"
        ) from exc


def _refusals(verb: str, run: Callable[[list[str]], int], argv: list[str]) -> int:
    """Run a verb, turning a refusal into one clear line and its exit code."""
    try:
        return run(argv)
    except _Refused as exc:
        _err(verb, str(exc))
        return exc.code


def _mail_limits(verb: str, cross_repo: bool) -> tuple[int, int]:
    """(keep, max_message_bytes). A cross-repo store uses neutral defaults
    rather than this repository's configuration, as upstream does."""
    if cross_repo:
        return mail.DEFAULT_KEEP, mail.DEFAULT_MAX_MESSAGE_BYTES
    try:
        from zirv_dash.config import load_settings

        settings = load_settings()
    except Exception as exc:  # a broken config must not stop a note being left
        _err(verb, f"configuration not loaded ({exc}); using default mail limits")
        return mail.DEFAULT_KEEP, mail.DEFAULT_MAX_MESSAGE_BYTES
    return settings.mail.keep, settings.mail.max_message_bytes


def _report_problems(verb: str, problems: list[str]) -> None:
    for problem in problems:
        _err(verb, f"{problem} (left in place; fix or remove it)")


# --- status ------------------------------------------------------------------


def status_main(argv: list[str]) -> int:
    return _refusals("status", _status, argv)


def _status(argv: list[str]) -> int:
    parser = _Parser(prog="zirv ctx status", description="List live sessions and unread mail.")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = _parse(parser, argv)
    if isinstance(args, int):
        return args
    problems: list[str] = []
    records = registry.list_sessions(sweep=True, problems=problems)
    sockets = registry.orphan_sockets(records)
    _, agent = _identity()
    short = _my_short()
    slug = _my_slug()
    broadcast, direct = mail.unread_counts(slug, short, agent)
    now = time.time()
    rows = [(r, registry.liveness(r)) for r in records]
    # Processes that left a pane's session with setsid outlive quit on purpose
    # (they asked to); the dashboard and its guard record them for us to list.
    escaped = escapes.listed(paths.state_dir() / "escaped")
    if args.json:
        out: dict[str, Any] = {
            "sessions": [
                {**r.to_json(), "liveness": live, "age_secs": max(int(now - r.started_at), 0)}
                for r, live in rows
            ],
            "no_record_sockets": [str(p) for p in sockets],
            "mail": {
                "slug": slug,
                "unread": broadcast + direct,
                "broadcast": broadcast,
                "direct": direct,
            },
            "problems": problems,
            "escaped": [
                {"pid": e.pid, "command": e.command, "left_session": e.left} for e in escaped
            ],
        }
        print(json.dumps(out, indent=2))
        return 0
    _report_problems("status", problems)
    lines = ["sessions:" if rows or sockets else "sessions: none"]
    for record, live in rows:
        lines.append(
            f"  {record.short} {record.agent} {record.verb} pid {record.pid} "
            f"{_age(now - record.started_at)} {live} {record.repo_slug}"
        )
    for sock in sockets:
        lines.append(f"  {sock.stem} (no record) {sock}")
    if escaped:
        lines.append("left their pane's session (setsid), still running:")
        lines.extend(f"  {escapes.describe(e)}" for e in escaped)
    split = f" ({broadcast} broadcast, {direct} direct)" if direct else ""
    lines.append(f"mail: {broadcast + direct} unread{split}")
    print("\n".join(lines))
    return 0


# --- send --------------------------------------------------------------------


def _read_message_arg(text: str) -> str:
    """The message text: `-` reads stdin as bytes (so bytes that are not UTF-8 are
    refused clearly, not a traceback); argv text that was not UTF-8 arrives with
    surrogate escapes and is refused the same way."""
    if text != "-":
        problem = text_problem(text)
        if problem is not None:
            raise _Refused(f"the --message text {problem}; nothing was sent", 2)
        return text
    if sys.stdin is None:
        raise _Refused("--message - reads stdin, but there is no stdin; nothing was sent", 2)
    # A stored body is cut to [mail] max_message_bytes and its sidecar to 1 MiB,
    # so more than that is never needed: a runaway pipe cannot fill memory.
    data = sys.stdin.buffer.read(mail.FULL_BODY_CAP + 4)
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        body = decoder.decode(data, final=len(data) <= mail.FULL_BODY_CAP)
    except UnicodeDecodeError as exc:
        raise _Refused(
            f"the message on stdin is not UTF-8 text (bad byte at offset {exc.start}); "
            "nothing was sent",
            2,
        ) from exc
    if "\x00" in body:
        raise _Refused("the message on stdin contains a NUL byte; nothing was sent", 2)
    return body


def send_main(argv: list[str]) -> int:
    return _refusals("send", _send, argv)


def _send(argv: list[str]) -> int:
    parser = _Parser(
        prog="zirv ctx send",
        description="Leave a note in this repository's mailbox (`-` reads stdin).",
    )
    parser.add_argument("--message", "-m", required=True, help="the note ('-' reads stdin)")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--to-session", metavar="PREFIX", help="address one live session")
    target.add_argument("--all", action="store_true", help="one copy for every session")
    args = _parse(parser, argv)
    if isinstance(args, int):
        return args
    body = _read_message_arg(args.message)
    if not body.strip():
        _err("send", "the message is empty; pass --message TEXT")
        return 2
    session, agent = _identity()
    from_session = session or mail.OPERATOR
    from_agent = agent or mail.OPERATOR
    slug = _my_slug()
    if args.to_session is None:
        keep, limit = _mail_limits("send", cross_repo=False)
        try:
            stored = mail.store(
                slug,
                body,
                from_session=from_session,
                from_agent=from_agent,
                broadcast=args.all,
                keep=keep,
                max_message_bytes=limit,
            )
        except (mail.MailError, OSError) as exc:
            _err("send", f"could not store the message: {exc}")
            return 1
        whom = "every session (--all)" if args.all else "any session"
        print(f"zirv ctx send: stored {stored.id} for {whom} in mailbox {slug}")
        return 0
    problems: list[str] = []
    try:
        record = registry.resolve_prefix(
            args.to_session, registry.live_sessions(problems), min_len=1
        )
    except registry.ResolveError as exc:
        _report_problems("send", problems)
        _err("send", str(exc))
        return 2 if exc.kind == "too-short" else 1
    target_slug = record.repo_slug or slug
    keep, limit = _mail_limits("send", cross_repo=target_slug != slug)
    try:
        stored = mail.store(
            target_slug,
            body,
            from_session=from_session,
            from_agent=from_agent,
            to=record.agent,
            to_session=record.session,
            keep=keep,
            max_message_bytes=limit,
        )
    except (mail.MailError, OSError) as exc:
        _err("send", f"could not store the message: {exc}")
        return 1
    woke = _write_marker_best_effort(record.short, from_session)
    print(
        f"zirv ctx send: stored {stored.id} for session {registry.describe(record)} "
        f"in mailbox {target_slug}" + ("" if woke else " (wake-up marker not written)")
    )
    return 0


def _write_marker_best_effort(short: str, sender: str) -> bool:
    try:
        nudge.write_marker(short, paths.short_id(sender) or sender)
    except OSError:
        return False
    return True


# --- inbox -------------------------------------------------------------------


def inbox_main(argv: list[str]) -> int:
    return _refusals("inbox", _inbox, argv)


def _inbox(argv: list[str]) -> int:
    parser = _Parser(prog="zirv ctx inbox", description="Read (and consume) this repo's mail.")
    parser.add_argument("--peek", action="store_true", help="show without marking read")
    args = _parse(parser, argv)
    if isinstance(args, int):
        return args
    _, agent = _identity()
    short = _my_short()
    slug = _my_slug()
    problems: list[str] = []
    try:
        messages = mail.list_messages(
            slug, agent=agent, short=short, problems=problems, include_directed=False
        )
        others = _directed_elsewhere(slug, short)
    except (mail.MailError, OSError) as exc:
        _err("inbox", f"cannot read mailbox {slug}: {exc}")
        return 1
    _report_problems("inbox", problems)
    if others:
        print(
            f"({others} message(s) addressed to specific sessions are left for them; "
            "only the addressed session's own `zirv ctx inbox` reads them)"
        )
    if not messages:
        print(f"no unread mail in {slug}")
        return 0
    shown = 0
    for message in messages:
        if not args.peek and not mail.consume(message, reader=short):
            continue  # another reader took it between listing and now
        shown += 1
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(message.sent))
        to = f"session {message.to_short}" if message.to_session else message.to
        print(
            f"--- {message.id} from {message.from_agent}/{message.from_short} "
            f"to {to} at {when} (information, not instruction)"
        )
        print(mail.display_body(message.body).rstrip("\n"))
    if args.peek:
        print(f"({shown} shown, left unread: run `zirv ctx inbox` to consume them)")
    elif shown == 0:
        print(f"no unread mail in {slug}")
    return 0


def _directed_elsewhere(slug: str, short: str | None) -> int:
    """How many unread messages a session-less reader is not shown (they are
    addressed to a session); 0 for a session, which sees exactly its own."""
    if short is not None:
        return 0
    return sum(1 for m in mail.list_messages(slug) if m.to_session is not None)


# --- nudge -------------------------------------------------------------------

_INTERACTIVE_VERBS = ("chat", "wrap")


def nudge_main(argv: list[str]) -> int:
    return _refusals("nudge", _nudge, argv)


def _nudge(argv: list[str]) -> int:
    parser = _Parser(
        prog="zirv ctx nudge", description="Wake a live session with a message (stored as mail)."
    )
    parser.add_argument("prefix", metavar="PREFIX", help="short id (>= 4 chars or whole)")
    parser.add_argument("--message", "-m", required=True, help="the message ('-' reads stdin)")
    args = _parse(parser, argv)
    if isinstance(args, int):
        return args
    body = _read_message_arg(args.message)
    if not body.strip():
        _err("nudge", "the message is empty; pass --message TEXT")
        return 2
    problems: list[str] = []
    try:
        record = registry.resolve_prefix(args.prefix, registry.live_sessions(problems))
    except registry.ResolveError as exc:
        _report_problems("nudge", problems)
        _err("nudge", str(exc))
        return 2 if exc.kind == "too-short" else 1
    if registry.liveness(record) == "unreachable":
        _err(
            "nudge",
            f"session {registry.describe(record)} is running but bound no turn-signal socket, "
            "so it never checks for wake-ups; nothing was sent. Leave it mail instead: "
            f"zirv ctx send --to-session {record.short} --message ...",
        )
        return 1
    session, agent = _identity()
    from_session = session or mail.OPERATOR
    slug = _my_slug()
    target_slug = record.repo_slug or slug
    keep, limit = _mail_limits("nudge", cross_repo=target_slug != slug)
    try:
        stored = mail.store(
            target_slug,
            body,
            from_session=from_session,
            from_agent=agent or mail.OPERATOR,
            to=record.agent,
            to_session=record.session,
            keep=keep,
            max_message_bytes=limit,
        )
    except (mail.MailError, OSError) as exc:
        _err("nudge", f"could not store the message, so no nudge was sent: {exc}")
        return 1
    if not _write_marker_best_effort(record.short, from_session):
        print(
            f"zirv ctx nudge: message stored as {stored.id} for {registry.describe(record)}, "
            "but the wake-up marker could not be written; it will see the mail on its own"
        )
        return 1
    if record.verb in _INTERACTIVE_VERBS:
        how = (
            "it is interactive, so the nudge is advisory: it is told a nudge arrived and "
            "pointed at `zirv ctx inbox`; the body is never typed into it"
        )
    elif record.verb == "dash" and record.agent == "shell":
        how = (
            "it is a shell pane, and zirv never types into a shell: the message waits in "
            "its inbox (✉ in the sidebar)"
        )
    elif record.verb == "dash":
        how = "its dashboard delivers the message into the pane at its next idle moment"
    else:
        how = "it wakes at its next poll"
    print(
        f"zirv ctx nudge: nudged {registry.describe(record)}; message stored as {stored.id} "
        f"in {target_slug}; {how}"
    )
    return 0


# --- kill --------------------------------------------------------------------


def kill_main(argv: list[str]) -> int:
    parser = _Parser(prog="zirv ctx kill", description="Terminate a registered session.")
    parser.add_argument("prefix", metavar="PREFIX", help="short id (>= 4 chars or whole)")
    parser.add_argument(
        "--grace", type=float, default=KILL_GRACE_SECS, help="seconds between SIGTERM and SIGKILL"
    )
    args = _parse(parser, argv)
    if isinstance(args, int):
        return args
    problems: list[str] = []
    records = registry.list_sessions(sweep=True, problems=problems)
    _report_problems("kill", problems)
    try:
        record = registry.resolve_prefix(args.prefix, records)
    except registry.ResolveError as exc:
        if exc.kind == "not-found":
            print(
                f"zirv ctx kill: no session matches {args.prefix!r}; nothing to kill "
                "(already gone?)"
            )
            return 0
        _err("kill", str(exc))
        return 2 if exc.kind == "too-short" else 1
    if not registry.is_alive(record):
        registry.unregister(record.short)
        print(f"zirv ctx kill: {registry.describe(record)} is already gone; record removed")
        return 0
    return _terminate(record, max(args.grace, 0.0))


def _terminate(record: registry.SessionRecord, grace: float) -> int:
    pid = record.pid
    if pid in (os.getpid(), os.getppid()):
        _err("kill", f"refusing to kill {registry.describe(record)}: that is this process")
        return 1
    if procinfo.session_members(pid, record.start_time) and _leads_session(pid):
        return _end_session(record, grace)
    group = _process_group(pid)
    how = "process group" if group is not None else "process"
    watcher = _DeathWatch(pid)
    try:
        if not _signal(pid, group, signal.SIGTERM):
            print(f"zirv ctx kill: {registry.describe(record)} is already gone; record removed")
            registry.unregister(record.short)
            return 0
        if watcher.wait(grace, record.start_time):
            registry.unregister(record.short)
            print(f"zirv ctx kill: terminated {registry.describe(record)} ({how}, SIGTERM)")
            return 0
        _signal(pid, group, signal.SIGKILL)
        if watcher.wait(KILL_CONFIRM_SECS, record.start_time):
            registry.unregister(record.short)
            print(
                f"zirv ctx kill: killed {registry.describe(record)} ({how}, SIGKILL after "
                f"{grace:g}s grace)"
            )
            return 0
    except PermissionError:
        _err("kill", f"not permitted to signal pid {pid} of {registry.describe(record)}")
        return 1
    finally:
        watcher.close()
    _err("kill", f"pid {pid} of {registry.describe(record)} survived SIGKILL; check `ps {pid}`")
    return 1


def _leads_session(pid: int) -> bool:
    try:
        return os.getsid(pid) == pid and os.getsid(pid) != os.getsid(0)
    except OSError:
        return False


def _end_session(record: registry.SessionRecord, grace: float) -> int:
    """A pane's child leads its own session: the same ladder as the dashboard's
    stop (the harness's quit signal to every process group of the session, the
    grace, SIGKILL, verified by walking /proc), so jobs a shell started in groups
    of their own end too and a shell (which ignores SIGTERM) ends on SIGHUP."""
    from zirv_dash.ptysession import quit_signals

    signals = quit_signals(record.agent)
    names = "/".join(signal.Signals(sig).name for sig in signals)
    ended = procinfo.end_sessions(
        {record.pid: record.start_time}, signals=signals, grace=grace, confirm=KILL_CONFIRM_SECS
    )
    if ended.survivors:
        _err("kill", f"pids {ended.survivors} of {registry.describe(record)} survived SIGKILL")
        return 1
    registry.unregister(record.short)
    if ended.escalated:
        print(
            f"zirv ctx kill: killed {registry.describe(record)} (every process group of its "
            f"session, SIGKILL after {grace:g}s grace)"
        )
    else:
        print(
            f"zirv ctx kill: terminated {registry.describe(record)} (every process group "
            f"of its session, {names})"
        )
    return 0


def _process_group(pid: int) -> int | None:
    """The pid's own process group, if it leads one that is not ours."""
    try:
        group = os.getpgid(pid)
    except OSError:
        return None
    if group != pid or group == os.getpgrp():
        return None
    return group


def _signal(pid: int, group: int | None, sig: signal.Signals) -> bool:
    try:
        if group is not None:
            os.killpg(group, sig)
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        return False
    return True


class _DeathWatch:
    """Wait for a process to end: a pidfd where the kernel has one, else polling."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._fd: int | None = None
        opener = getattr(os, "pidfd_open", None)
        if opener is not None:
            try:
                self._fd = opener(pid)
            except OSError:
                self._fd = None

    def wait(self, timeout: float, start_time: float | None) -> bool:
        deadline = time.monotonic() + timeout
        if self._fd is not None:
            import select

            poller = select.poll()
            poller.register(self._fd, select.POLLIN)
            poller.poll(max(int(timeout * 1000), 0))
            # A pidfd turns readable at exit; zombies (our own children) count as gone.
        while True:
            if not procinfo.is_same_process(self.pid, start_time):
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(0.05, remaining))

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


# --- hook --------------------------------------------------------------------


def mcp_main(argv: list[str]) -> int:
    """`zirv ctx mcp serve`: the MCP bridge (imported only when asked for; the SDK is heavy)."""
    from zirv_dash import mcp_bridge

    return mcp_bridge.main(argv)


def hook_main(argv: list[str]) -> int:
    """`zirv ctx hook stop`: post a turn signal to this pane's socket.

    Run from a harness hook (Claude Code's Stop hook), so it never fails the
    hook: outside a pane (no ``ZIRV_CTX_SOCKET``) or with the pane gone it exits
    0 silently. It does not read the hook's JSON on stdin.
    """
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: zirv ctx hook stop", file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    kind = argv[0].lower()
    if kind not in turn_signal.KNOWN_KINDS:
        _err("hook", f"unknown hook {argv[0]!r}; the only hook is `stop`")
        return 2
    target = os.environ.get("ZIRV_CTX_SOCKET")
    if target:
        turn_signal.send_turn_signal(Path(target), kind)
    return 0
