"""`zirv session attach|list --host NAME`: a remote host's runtime, here.

The same attach client and the same listing as for this machine's runtime, with
the protocol carried over the host's ssh link (zirv_dash.remote.client_link).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from zirv_dash.remote import hosts
from zirv_dash.remote.channel import LinkError

PROG = "zirv session"


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        raise _Usage(f"{self.prog}: {message}")


def wants_host(argv: list[str]) -> bool:
    """Whether `zirv session …` names a remote host (`--host NAME` or `--host=NAME`)."""
    return any(arg == "--host" or arg.startswith("--host=") for arg in argv)


def remote_session_main(argv: list[str]) -> int:
    parser = _Parser(prog=PROG)
    sub = parser.add_subparsers(dest="verb", required=True, parser_class=_Parser)
    attach = sub.add_parser("attach", help="show one session of the host here")
    attach.add_argument("session", nargs="?")
    attach.add_argument("--host", required=True)
    attach.add_argument("--takeover", action="store_true")
    listing = sub.add_parser("list", help="the host's sessions")
    listing.add_argument("--host", required=True)
    listing.add_argument("--json", action="store_true")
    try:
        args = parser.parse_args(argv)
        host = hosts.load().get(args.host)
        if host is None:
            raise hosts.HostError(f"no host named {args.host!r}; see `zirv remote list`")
        if args.verb == "list":
            return _list(host, args.json)
        return _attach(host, args.session, args.takeover)
    except _Usage as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except SystemExit as exc:
        return int(exc.code or 0)
    except (hosts.HostError, LinkError, OSError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1


def _list(host: hosts.Host, as_json: bool) -> int:
    from zirv_dash.remote.channel import Channel

    with Channel(host) as channel:
        sessions = channel.call("session.list").get("sessions", [])
    if as_json:
        print(json.dumps(sessions, indent=2))
        return 0
    for session in sessions:
        print(
            f"{session.get('id', '?'):<10} {session.get('name', ''):<16} {session.get('state', '')}"
        )
    if not sessions:
        print(f"no sessions on {host.name}")
    return 0


def _attach(host: hosts.Host, ref: str | None, takeover: bool) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise _Usage(f"{PROG} attach: needs a terminal")
    from zirv_dash.remote.client_link import RemoteClient, connect
    from zirv_dash.session.attach import attach

    async def opened() -> RemoteClient:
        return await connect(host)

    why = asyncio.run(attach(ref, takeover, connect=opened))
    print(f"\r\n[{why}]")
    return 0 if why != "runtime gone" else 1
