"""`zirv ctx api …` and `zirv session …` entry functions (`(argv) -> exit code`).

    zirv ctx api schema [--json]              the contract, generated from the types
    zirv ctx api call METHOD [JSON]           one request to the running runtime
    zirv session serve                        run the runtime (owns the terminals)
    zirv session list [--json]                what it holds, and who is attached
    zirv session attach [NAME|ID] [--takeover] this terminal shows it (Ctrl+A d detaches)
    zirv session detach NAME|ID               release its clients; it keeps running
    zirv session stop NAME|ID [--yes]         end one session (asks first)
    zirv session stop --runtime               stop the service

`session_main` takes the host to serve; the default is the engine's
(`session.runtime.open_host`: the real engine, headless, for the repository the
runtime starts in). `PtyHost` (bare PTY children) serves the protocol tests.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from zirv_dash import paths
from zirv_dash.session import blocking as client
from zirv_dash.session import endpoint
from zirv_dash.session.protocol import ProtocolError

if TYPE_CHECKING:
    from zirv_dash.session.host import Host

# The server, the PTY host and the schema are imported only by the verbs that
# use them: `zirv ctx api call` and `zirv session list` start in milliseconds.
HostFactory = Callable[[], "Host"]
LOG_NAME = "runtime.log"
STOP_WAIT = 10.0
RUNTIME_STOP_WAIT = 45.0
"""The runtime runs every pane's termination ladder (a grace, then SIGKILL) first."""


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse would exit the process
        raise _Usage(f"{self.prog}: {message}")


def _parser(prog: str) -> _Parser:
    return _Parser(prog=prog, add_help=True)


def _run(prog: str, parse: Callable[[], int]) -> int:
    try:
        return parse()
    except _Usage as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    except client.NotRunning as exc:
        print(f"{prog}: {exc} (start it with `zirv session serve`)", file=sys.stderr)
        return 1
    except ProtocolError as exc:
        print(f"{prog}: {exc.code.value}: {exc.message}", file=sys.stderr)
        return 1
    except (OSError, endpoint.EndpointError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1


def _print_json(value: Any) -> None:
    print(msgspec.json.format(msgspec.json.encode(value), indent=2).decode())


# -- zirv ctx api ------------------------------------------------------------------------


def api_main(argv: Sequence[str]) -> int:
    prog = "zirv ctx api"

    def parse() -> int:
        parser = _parser(prog)
        sub = parser.add_subparsers(dest="verb", required=True)
        show = sub.add_parser("schema", help="print the protocol contract")
        show.add_argument("--json", action="store_true", help="as a JSON Schema document")
        call = sub.add_parser("call", help="call one method on the running runtime")
        call.add_argument("method")
        call.add_argument("params", nargs="?", default="{}", help="a JSON object")
        call.add_argument("--idempotency-key", default=None)
        call.add_argument("--timeout", type=float, default=30.0)
        args = parser.parse_args(list(argv))
        if args.verb == "schema":
            from zirv_dash.session import schema

            if args.json:
                _print_json(schema.document())
            else:
                sys.stdout.write(schema.text())
            return 0
        try:
            params = msgspec.json.decode(args.params)
        except msgspec.DecodeError as exc:
            raise _Usage(f"{prog} call: PARAMS is not JSON: {exc}") from exc
        if not isinstance(params, dict):
            raise _Usage(f"{prog} call: PARAMS must be a JSON object")
        result = client.call(
            args.method,
            params,
            timeout=args.timeout,
            idempotency_key=args.idempotency_key,
        )
        _print_json(result)
        return 0

    return _run(prog, parse)


# -- zirv session --------------------------------------------------------------------------


def default_host() -> Host:
    from zirv_dash.session.runtime import open_host

    return open_host()


def pty_host() -> Host:
    from zirv_dash.session.ptyhost import PtyHost

    return PtyHost()


def session_main(argv: Sequence[str], host_factory: HostFactory = default_host) -> int:
    prog = "zirv session"

    def parse() -> int:
        parser = _parser(prog)
        sub = parser.add_subparsers(dest="verb", required=True)
        sub.add_parser("serve", help="run the runtime in the foreground")
        listing = sub.add_parser("list", help="sessions and who is attached")
        listing.add_argument("--json", action="store_true")
        attach = sub.add_parser(
            "attach", help="show the dashboard, or one session, here (Ctrl+A d detaches)"
        )
        attach.add_argument("session", nargs="?")
        attach.add_argument("--takeover", action="store_true", help="take the controller seat")
        detach = sub.add_parser("detach", help="release every client of a session")
        detach.add_argument("session")
        stop = sub.add_parser("stop", help="end a session, or the runtime")
        stop.add_argument("session", nargs="?")
        stop.add_argument("--runtime", action="store_true", help="stop the service")
        stop.add_argument("--yes", action="store_true", help="do not ask")
        args = parser.parse_args(list(argv))
        if args.verb == "serve":
            import asyncio

            return asyncio.run(serve(host_factory))
        if args.verb == "list":
            return _list(args.json)
        if args.verb == "attach":
            return _attach(args.session, args.takeover)
        if args.verb == "detach":
            released = client.call("session.detach", {"session": args.session, "all": True})
            print(f"released {released['clients']} client(s); {released['session']} keeps running")
            return 0
        if args.runtime:
            if args.session:
                raise _Usage(f"{prog} stop: --runtime takes no session")
            return stop_runtime()
        if not args.session:
            raise _Usage(f"{prog} stop: name a session, or pass --runtime")
        return _stop_session(args.session, args.yes)

    return _run(prog, parse)


async def serve(host_factory: HostFactory, ready: Callable[[Path], None] | None = None) -> int:
    """Run a runtime until SIGTERM/SIGINT; a hang-up is ignored (it needs no terminal)."""
    import asyncio

    from zirv_dash.config.layers import ConfigError
    from zirv_dash.session.server import Server, claim

    _log_to_state_dir()
    try:
        # The lock first: a second runtime must not build an engine (and take
        # the restore roster) before learning that the state dir is owned.
        lock_fd = claim()
    except endpoint.EndpointError as exc:
        print(f"zirv session serve: {exc}", file=sys.stderr)
        return 1
    try:
        host = host_factory()
    except ConfigError as exc:
        os.close(lock_fd)
        print(f"zirv session serve: {exc}", file=sys.stderr)
        return 2
    server = Server(host)
    try:
        path = await server.start(lock_fd=lock_fd)
    except (endpoint.EndpointError, OSError) as exc:
        await host.close()
        print(f"zirv session serve: {exc}", file=sys.stderr)
        return 1
    from zirv_dash.session.identity import Identity

    identity = Identity()
    identity.publish()
    server.on_client = identity.client_seen
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []

    def shut_down() -> None:
        if not stopping:
            stopping.append(asyncio.create_task(server.stop()))

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, shut_down)
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    print(f"zirv session serve: listening at {path}", flush=True)
    if ready is not None:
        ready(path)
    await server.wait_stopped()
    identity.withdraw()
    logging.getLogger("zirv.session").info("stopped")
    return 0


def _log_to_state_dir() -> None:
    log_path = paths.ensure_private_file(endpoint.socket_dir() / LOG_NAME)
    handler = logging.FileHandler(log_path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    # "zirv": the runtime's own lines and the engine's (panes, mail, intake).
    root = logging.getLogger("zirv")
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def _attach(ref: str | None, takeover: bool, color_system: str = "", typed: bytes = b"") -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise _Usage("zirv session attach: needs a terminal")
    import asyncio

    from zirv_dash.session.attach import attach

    why = asyncio.run(attach(ref, takeover, color_system=color_system, typed=typed))
    print(f"\r\n[{why}]")
    return 0 if why != "runtime gone" else 1


def attach_dashboard(agent: str, color_system: str = "", typed: bytes = b"") -> int:
    """`zirv chat` with `[session] persistent = true`: start the runtime if
    nothing listens, give it an orchestrator running `agent` if it holds no live
    session, and show its dashboard here (`Ctrl+A d` detaches)."""
    from zirv_dash.session.dash_session import DASH_ID
    from zirv_dash.session.ptyhost import repo_label

    def parse() -> int:
        ensure_runtime()
        sessions = client.call("session.list")["sessions"]
        hosted = [s for s in sessions if s["id"] == DASH_ID]
        if not hosted:
            raise _Usage(
                "zirv chat: the runtime listening here hosts no dashboard "
                "(it was started by another command); stop it with `zirv session stop --runtime`"
            )
        here = repo_label(str(paths.repo_root()))
        if hosted[0]["repo"] != here:
            # One runtime per state dir, built for the repository it started in.
            raise _Usage(
                f"zirv chat: the runtime serves repository {hosted[0]['repo']!r}, not {here!r}; "
                "use `zirv chat --no-session` here, or stop it (`zirv session stop --runtime`)"
            )
        live = [s for s in sessions if s["id"] != DASH_ID and s["state"] in ("starting", "running")]
        if not live:
            client.call("session.start", {"harness": agent, "name": "orchestrator"})
        return _attach(DASH_ID, False, color_system, typed)

    return _run("zirv chat", parse)


def _list(as_json: bool) -> int:
    result = client.call("session.list")
    if as_json:
        _print_json(result)
        return 0
    sessions = result.get("sessions", [])
    for gone in result.get("not_resumed", []):
        name = f" {gone['name']}" if gone.get("name") else ""
        print(f"not resumed: {gone['predecessor']}{name} ({gone['harness']}): {gone['reason']}")
    if not sessions:
        print("no sessions")
        return 0
    print(f"{'ID':<10} {'NAME':<16} {'HARNESS':<10} {'STATE':<9} {'PID':>7}  ATTACHED")
    for facts in sessions:
        seats = f"{facts.get('observers', 0)} observing"
        if facts.get("controller"):
            seats = f"controller {facts['controller']}, " + seats
        pid = facts.get("pid") or "-"
        print(
            f"{facts['id']:<10} {facts.get('name', ''):<16} {facts.get('harness', ''):<10} "
            f"{facts.get('state', ''):<9} {pid:>7}  {seats}"
        )
    return 0


def _stop_session(ref: str, yes: bool) -> int:
    facts = client.call("session.get", {"session": ref})["session"]
    if not yes:
        if not sys.stdin.isatty():
            raise _Usage("zirv session stop: no terminal to ask on; pass --yes to stop it")
        answer = input(f"Stop session {facts['name']} ({facts['id']}, pid {facts['pid']})? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("not stopped")
            return 1
    stopped = client.call("session.stop", {"session": facts["id"]}, timeout=STOP_WAIT + 30)
    print(f"stopped {stopped['session']['id']}: {stopped['session']['state']}")
    return 0


def stop_runtime(timeout: float = RUNTIME_STOP_WAIT) -> int:
    """SIGTERM to the process listening at the socket (its pid and uid come from
    the kernel, never from a file), then wait until that process (pid *and*
    start time) is gone: it ends every session's processes on its way out."""
    from zirv_dash.panes import procinfo

    path = endpoint.socket_path()
    pid, uid = client.server_credentials(path)
    if uid != os.getuid():
        print(f"zirv session stop: the runtime belongs to uid {uid}", file=sys.stderr)
        return 1
    started = procinfo.process_start_time(pid)
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not procinfo.is_same_process(pid, started):
            print("zirv session: runtime stopped")
            return 0
        time.sleep(0.05)
    print(f"zirv session stop: the runtime (pid {pid}) is still running", file=sys.stderr)
    return 1


def ensure_runtime(command: Sequence[str] | None = None, timeout: float = STOP_WAIT) -> Path:
    """The runtime's socket, starting the runtime detached if nothing answers.
    `command` runs it (default: this package's `session serve`)."""
    path = endpoint.socket_path()
    with contextlib.suppress(client.NotRunning, OSError):
        client.server_credentials(path, timeout=1.0)
        return path
    # `zirv_dash.cli.main`: the runtime that `zirv session` runs, hosting the dashboard.
    argv = list(command or [sys.executable, "-m", "zirv_dash.cli.main", "session", "serve"])
    subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(client.NotRunning, OSError):
            client.call("server.ping", path=path, timeout=1.0)
            return path
        time.sleep(0.05)
    raise endpoint.EndpointError(f"the runtime did not start listening at {path}")


def main(argv: Sequence[str] | None = None) -> int:
    """`api …` or `session …` (for `python -m zirv_dash.session.cli`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["api"]:
        return api_main(args[1:])
    if args[:1] == ["session"]:
        return session_main(args[1:])
    print("usage: python -m zirv_dash.session.cli api|session ...", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
