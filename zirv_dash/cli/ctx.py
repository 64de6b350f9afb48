"""`zirv ctx status|send|inbox|nudge|kill|hook`: sessions, mail and nudges from a shell.

Agents run these many times a minute, so these modules import only the small
on-disk protocol modules; the verbs that store mail read just the two mail
limits from the configuration files, without the settings model (pydantic).
The verbs live by concern: `ctx_mail` (send, inbox, nudge), `ctx_kill`
(kill), `ctx_hook` (hook), `ctx_common` (what they share); this module has
status and the MCP entry and re-exports every entry point (`zirv_dash.cli.main`
dispatches to each verb's own module).

Exit codes: 0 done (including "already gone" for `kill`), 1 failed, 2 usage.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from zirv_dash import paths
from zirv_dash.cli.ctx_args import Parser
from zirv_dash.cli.ctx_common import (
    err,
    identity,
    my_short,
    my_slug,
    parse_args,
    refusals,
    report_problems,
)
from zirv_dash.cli.ctx_context import context_of, fallback_lines, status_words
from zirv_dash.cli.ctx_hook import hook_main
from zirv_dash.cli.ctx_kill import KILL_CONFIRM_SECS, KILL_GRACE_SECS, kill_main
from zirv_dash.cli.ctx_mail import inbox_main, nudge_main, send_main
from zirv_dash.mail import mailbox as mail
from zirv_dash.panes import registry
from zirv_dash.textfmt import age_text as _age

__all__ = [
    "KILL_CONFIRM_SECS",
    "KILL_GRACE_SECS",
    "hook_main",
    "inbox_main",
    "kill_main",
    "mcp_main",
    "nudge_main",
    "send_main",
    "status_main",
]


# --- status ------------------------------------------------------------------


def status_main(argv: list[str]) -> int:
    return refusals("status", _status, argv)


def _status(argv: list[str]) -> int:
    parser = Parser(prog="zirv ctx status", description="List live sessions and unread mail.")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--all-hosts", action="store_true", help="also every remote host's sessions (over ssh)"
    )
    parser.add_argument("--agents", action="store_true", help="this repository's delegations")
    args = parse_args(parser, argv)
    if isinstance(args, int):
        return args
    problems: list[str] = []
    from zirv_dash.cli import ctx_agents

    if args.agents:
        code = ctx_agents.print_agents(args.json, problems)
        report_problems("status", problems)
        return code
    remote: list[dict[str, Any]] = []
    if args.all_hosts:
        from zirv_dash.remote import status as remote_status  # only --all-hosts needs ssh

        remote, unreadable = remote_status.all_hosts()
        if unreadable:
            err("status", unreadable)
    records = registry.list_sessions(sweep=True, problems=problems)
    sockets = registry.orphan_sockets(records)
    _, agent = identity()
    short = my_short()
    slug = my_slug()
    broadcast, direct = mail.unread_counts(slug, short, agent)
    now = time.time()
    rows = [(r, registry.liveness(r)) for r in records]
    # Processes that left a pane's session with setsid outlive quit on purpose
    # (they asked to); the dashboard and its guard record them for us to list.
    from zirv_dash.panes import escapes  # only status lists them; send need not import it

    escaped = escapes.listed(paths.state_dir() / "escaped")
    fallback = fallback_lines(problems)
    if args.json:
        mail_counts = {"slug": slug, "unread": broadcast + direct, "broadcast": broadcast}
        mail_counts["direct"] = direct
        out = _status_json(rows, sockets, mail_counts, problems, escaped, now)
        out["fallback"] = fallback
        if args.all_hosts:
            out["hosts"] = remote
        out["permits"] = [
            {"tree": r["permit"], "handle": r["handle"], "harness": r["harness"], "pane": r["pane"]}
            for r in ctx_agents.agent_rows(paths.repo_root(), problems)
            if r["permit"]
        ]
        print(json.dumps(out, indent=2))
        return 0
    report_problems("status", problems)
    lines = ["sessions:" if rows or sockets else "sessions: none"]
    for record, live in rows:
        lines.append(
            f"  {record.short} {record.agent} {record.verb} pid {record.pid} "
            f"{_age(now - record.started_at)} {live} {record.repo_slug}{_native_note(record)}"
            f"{status_words(context_of(record.short))}"
        )
    for sock in sockets:
        lines.append(f"  {sock.stem} (no record) {sock}")
    if escaped:
        lines.append("left their pane's session (setsid), still running:")
        lines.extend(f"  {escapes.describe(e)}" for e in escaped)
    split = f" ({broadcast} broadcast, {direct} direct)" if direct else ""
    lines.append(f"mail: {broadcast + direct} unread{split}")
    lines.extend(fallback)
    lines.extend(ctx_agents.permit_lines(problems))
    if args.all_hosts:
        from zirv_dash.remote import status as remote_status

        lines.extend(remote_status.lines(remote) or ["hosts: none (see `zirv remote add`)"])
    print("\n".join(lines))
    return 0


def _status_json(
    rows: Sequence[tuple[registry.SessionRecord, Any]],
    sockets: list[Path],
    mail_counts: dict[str, Any],
    problems: list[str],
    escaped: list[Any],
    now: float,
) -> dict[str, Any]:
    """`zirv ctx status --json`: each session with its liveness, age and context."""
    return {
        "sessions": [
            {
                **r.to_json(),
                "liveness": live,
                "age_secs": max(int(now - r.started_at), 0),
                "context": context_of(r.short, problems),
            }
            for r, live in rows
        ],
        "no_record_sockets": [str(p) for p in sockets],
        "mail": mail_counts,
        "problems": problems,
        "escaped": [{"pid": e.pid, "command": e.command, "left_session": e.left} for e in escaped],
    }


def _native_note(record: registry.SessionRecord) -> str:
    """A native pane runs inside its dashboard (the pid is the dashboard's): say
    so, with the state its dashboard keeps in the record."""
    if record.runtime != "native":
        return ""
    state = record.extra.get("state")
    shown = state if isinstance(state, str) and state.isprintable() else "unknown"
    return f" (native pane in its dashboard: {shown[:24]})"


# --- mcp ---------------------------------------------------------------------


def mcp_main(argv: list[str]) -> int:
    """`zirv ctx mcp serve|doctor`: the MCP bridge (imported only when asked for; the
    SDK is heavy), and the check of a real connection to it."""
    if argv and argv[0] == "doctor":
        from zirv_dash.cli import mcp_doctor

        return mcp_doctor.main(argv[1:])
    from zirv_dash.cli import mcp_bridge

    return mcp_bridge.main(argv)
