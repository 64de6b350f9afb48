"""`zirv remote add|list|check|remove`: the hosts whose agents a dashboard shows.

    zirv remote add NAME DEST [--ssh-config FILE] [--zirv PATH] [--replace]
    zirv remote list [--json]
    zirv remote check NAME [--json]
    zirv remote remove NAME
    zirv remote install NAME [--wheel FILE]

Hosts live in the operator's `~/.zirv/remotes.toml` (0600) only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from zirv_dash.remote import hosts

PROG = "zirv remote"


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse would exit the process
        raise _Usage(f"{self.prog}: {message}")


def _parser() -> _Parser:
    parser = _Parser(prog=PROG)
    sub = parser.add_subparsers(dest="verb", required=True, parser_class=_Parser)
    add = sub.add_parser("add", help="remember a host")
    add.add_argument("name")
    add.add_argument("dest", help="what ssh takes: user@host, an alias, ssh://user@host:port")
    add.add_argument("--ssh-config", default="", metavar="FILE", help="passed to ssh as -F")
    add.add_argument("--zirv", default="zirv", metavar="PATH", help="the remote zirv command")
    add.add_argument("--replace", action="store_true", help="replace a host of that name")
    listing = sub.add_parser("list", help="every host")
    listing.add_argument("--json", action="store_true")
    check = sub.add_parser("check", help="reach a host and say what is wrong")
    check.add_argument("name")
    check.add_argument("--json", action="store_true")
    remove = sub.add_parser("remove", help="forget a host (stops nothing there)")
    remove.add_argument("name")
    setup = sub.add_parser("install", help="install this zirv on a host, over ssh")
    setup.add_argument("name")
    setup.add_argument("--wheel", type=Path, default=None, help="the wheel to install")
    return parser


def remote_main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
        return _run(args)
    except _Usage as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    except hosts.HostError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a full disk, a read-only ~/.zirv
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    if args.verb == "add":
        host = hosts.make_host(args.name, args.dest, args.ssh_config, args.zirv)
        path = hosts.add(host, replace=args.replace)
        print(f"{PROG}: added {host.name} ({host.dest}) to {path}")
        print(f"check it with: zirv remote check {host.name}")
        return 0
    if args.verb == "remove":
        path = hosts.remove(args.name)
        print(f"{PROG}: removed {args.name} from {path} (nothing there was stopped)")
        return 0
    known = hosts.load()
    if args.verb == "list":
        rows = [
            {"name": h.name, "dest": h.dest, "ssh_config": h.ssh_config or None, "zirv": h.zirv}
            for h in known.values()
        ]
        if args.json:
            print(json.dumps(rows, indent=2))
        elif not rows:
            print("no remote hosts; add one with: zirv remote add NAME DEST")
        else:
            for row in rows:
                extra = f"  -F {row['ssh_config']}" if row["ssh_config"] else ""
                extra += f"  zirv={row['zirv']}" if row["zirv"] != "zirv" else ""
                print(f"{row['name']:<16} {row['dest']}{extra}")
        return 0
    chosen = known.get(args.name)
    if chosen is None:
        raise hosts.HostError(f"no host named {args.name!r}; see `zirv remote list`")
    if args.verb == "install":
        return _install(chosen, args.wheel)
    from zirv_dash.remote.check import check

    report = check(chosen)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print("\n".join(report.lines()), file=sys.stdout if report.ok else sys.stderr)
    return 0 if report.ok else 1


def _install(host: hosts.Host, wheel: Path | None) -> int:
    from dataclasses import replace

    from zirv_dash.remote.install import install

    print(f"{PROG}: installing zirv on {host.name} ({host.dest}); pip there fetches what it needs")
    code, said, where = install(host, wheel)
    if code != 0:
        print(f"{PROG}: install on {host.name} failed (exit {code}): {said}", file=sys.stderr)
        return 1
    if where and host.zirv == "zirv":
        # A non-interactive ssh login's PATH rarely holds pip's user bin directory.
        hosts.add(replace(host, zirv=hosts.check_remote_zirv(where)), replace=True)
        print(f"{PROG}: installed; {host.name} now runs {where}")
    else:
        print(f"{PROG}: installed{f' at {where}' if where else ''}")
    print(f"check it with: zirv remote check {host.name}")
    return 0
