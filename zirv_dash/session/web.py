"""`zirv session web [--session ID] [--control] [--port N]`: a runtime session
(by default the hosted dashboard, `dash`) in a browser.

It serves textual-serve's page on 127.0.0.1 behind a one-time token
(`web_server`); each browser connection runs a relay process
(`web_relay`) attached to the session as an observer, or as its controller
with `--control`. Stopping it (Ctrl+C) closes the browsers' connections and
stops nothing in the runtime. The runtime is started if none is listening.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from zirv_dash.session import endpoint

if TYPE_CHECKING:
    from zirv_dash.session.web_server import WebOptions

PROG = "zirv session web"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Show a runtime session (default: the hosted dashboard) in a browser, "
        "on 127.0.0.1 behind a one-time link.",
    )
    parser.add_argument("--session", default="dash", metavar="ID", help="the session to show")
    parser.add_argument(
        "--control", action="store_true", help="type into it (controller seat) instead of watching"
    )
    parser.add_argument(
        "--port", type=int, default=0, metavar="N", help="the port on 127.0.0.1 (default: any free)"
    )
    return parser


def web_main(argv: Sequence[str]) -> int:
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exc:  # --help, or a usage error argparse already printed
        return int(exc.code or 0)
    if not 0 <= args.port <= 65535:
        print(f"{PROG}: --port must be within 0..65535", file=sys.stderr)
        return 2
    from zirv_dash.session.cli import ensure_runtime

    try:
        ensure_runtime()
    except (endpoint.EndpointError, OSError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    from zirv_dash.session.web_server import WebOptions

    options = WebOptions(session=args.session, control=args.control, port=args.port)
    try:
        return asyncio.run(_serve(options))
    except OSError as exc:  # the port is taken, say
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1


async def _serve(options: WebOptions) -> int:
    from zirv_dash.session.web_server import serve

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await serve(options, stop)
    return 0
