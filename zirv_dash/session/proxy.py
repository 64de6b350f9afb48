"""`zirv session proxy`: this machine's runtime on stdin/stdout, for a remote dashboard.

A dashboard on another machine runs `ssh -T HOST zirv session proxy` and speaks
protocol v1 over that ssh channel; this process joins the channel to the
runtime's socket and copies bytes both ways, unchanged. It adds nothing and
trusts nothing: the runtime checks the peer (this process, the socket's owner)
and every frame exactly as for a local client, so what a remote dashboard can do
is what a local one can do — no more.

Exit codes name what went wrong, for `zirv remote check` on the other side:
0 the link ended, 3 no runtime (and `[session] persistent` is off, so none is
started), 4 the runtime ended the link (it stopped), 1 anything else; the
reason is one line on stderr.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading

from zirv_dash.session import endpoint

NO_RUNTIME = 3
RUNTIME_ENDED = 4
CHUNK = 64 * 1024


def proxy_main(argv: list[str]) -> int:
    if argv:
        print("zirv session proxy: takes no arguments", file=sys.stderr)
        return 2
    try:
        path = _runtime_socket()
    except LookupError as exc:
        print(f"zirv session proxy: {exc}", file=sys.stderr)
        return NO_RUNTIME
    except (OSError, endpoint.EndpointError) as exc:
        print(f"zirv session proxy: {exc}", file=sys.stderr)
        return 1
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(os.fspath(path))
    except OSError as exc:
        sock.close()
        print(f"zirv session proxy: cannot reach the runtime at {path}: {exc}", file=sys.stderr)
        return NO_RUNTIME
    return _pump(sock, sys.stdin.fileno(), sys.stdout.fileno())


def _runtime_socket() -> os.PathLike[str]:
    """The running runtime's socket; started first when `[session] persistent` says
    panes live in a runtime here. LookupError when none runs and none may start."""
    from zirv_dash.session import blocking

    path = endpoint.socket_path()
    with contextlib.suppress(blocking.NotRunning, OSError):
        blocking.server_credentials(path, timeout=2.0)
        return path
    from zirv_dash.config.layers import ConfigError, load_settings

    try:
        persistent = load_settings().session.persistent
    except ConfigError as exc:
        raise LookupError(
            f"no runtime is running, and the configuration is unusable: {exc}"
        ) from exc
    if not persistent:
        raise LookupError(
            "no runtime is running here; start one with `zirv session serve`, or set"
            " `[session] persistent = true` in ~/.zirv/ctx.toml to start it on demand"
        )
    from zirv_dash.session.cli import ensure_runtime

    return ensure_runtime()


def _pump(sock: socket.socket, in_fd: int, out_fd: int) -> int:
    """Copy in_fd → socket and socket → out_fd until either side ends."""
    done = threading.Event()

    def upstream() -> None:
        try:
            while True:
                data = os.read(in_fd, CHUNK)
                if not data:
                    break
                sock.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_WR)
            done.set()

    reader = threading.Thread(target=upstream, name="proxy-upstream", daemon=True)
    reader.start()
    try:
        while True:
            data = sock.recv(CHUNK)
            if not data:
                break
            view = memoryview(data)
            while view:
                written = os.write(out_fd, view)
                view = view[written:]
    except OSError:
        pass
    finally:
        sock.close()
    if not done.is_set():
        # The runtime closed first, not our side: it stopped (or crashed).
        print("zirv session proxy: the runtime ended the link", file=sys.stderr)
        return RUNTIME_ENDED
    return 0
