"""Key-to-glyph latency through the runtime's socket, next to the same engine in-process.

Measured as bench/latency.py measures (bench/ptyterm.py: a key is written to a
terminal, the clock stops when its echoed glyph is drawn back), with the same
keys, gap and size. The focused session runs `cat`; under flood three other
sessions run `yes`, `yes | cat` and `cat` of a big coloured file in a loop.

- in-process: one process runs the engine (`session.runtime.open_host`, the very
  engine `zirv session serve` runs) and passes the first pane's raw output to its
  terminal, its keys to the pane — what an attach client does, with no socket.
- socket: `zirv session serve` in its own process and `zirv session attach` in
  the terminal: the key goes client → socket → runtime → PTY, the echo PTY →
  runtime → socket → client → terminal.
- `--dashboard`: the whole dashboard instead: bench/latency.py's in-process
  dashboard run (`zirv chat`, four shell panes) next to the same dashboard hosted
  by `zirv session serve` with `zirv chat` attached (`[session] persistent =
  true`): key → client → socket → runtime's dashboard → PTY, and its frame back
  the same way. Under flood, three other panes flood as in bench/latency.py.

    python bench/session_latency.py [--keys 200] [--dashboard]
    python bench/session_latency.py --idle [--panes 9] [--seconds 20]

`--idle`: CPU of the runtime's process tree plus the attached dashboard client
(`zirv chat`) with idle shell panes, next to the in-process dashboard's
(bench/idle.py's method).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import termios
import tty
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import latency  # noqa: E402
from ptyterm import PtyTerminal, percentile  # noqa: E402

COLS, ROWS = latency.COLS, latency.ROWS
FLOOD_KEY = b"\x02"
"""In the in-process child: start the floods (never forwarded to the pane)."""


def flood_commands(big: Path) -> list[bytes]:
    return [b"yes\r", b"yes | cat\r", f"while :; do cat {big}; done\r".encode()]


# -- the in-process child ------------------------------------------------------------------


async def inproc_child(big: Path) -> None:
    from zirv_dash.session.host import SessionOutput, StartSpec
    from zirv_dash.session.runtime import open_host

    host = open_host()
    spec = StartSpec(argv=[], harness="shell", columns=COLS, rows=ROWS)
    ids = [(await host.start(spec)).id for _ in range(4)]
    first = ids[0]

    def show(event: object) -> None:
        if isinstance(event, SessionOutput) and event.session_id == first:
            view = memoryview(event.data)
            while view:
                view = view[os.write(1, view) :]

    host.subscribe(show)
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def on_key() -> None:
        data = os.read(0, 4096)
        if not data:
            if not done.done():
                done.set_result(None)
            return
        if FLOOD_KEY in data:
            for sid, command in zip(ids[1:], flood_commands(big), strict=True):
                host.send_input(sid, command)
            data = data.replace(FLOOD_KEY, b"")
        if data:
            host.send_input(first, data)

    saved = termios.tcgetattr(0)
    tty.setraw(0)
    loop.add_reader(0, on_key)
    try:
        await done
    finally:
        loop.remove_reader(0)
        termios.tcsetattr(0, termios.TCSADRAIN, saved)
        await host.close()


def run_inproc(keys: int, tmp: Path, big: Path) -> dict[str, list[float]]:
    repo = tmp / "repo"
    repo.mkdir()
    env = latency.base_env(tmp / "state")
    env["PYTHONPATH"] = str(HERE.parent)
    argv = [sys.executable, str(Path(__file__).resolve()), "--inproc-child", str(big)]
    term = _terminal(argv, env, repo)
    results: dict[str, list[float]] = {}
    try:
        term.read_for(3.0)
        term.write(b"cat\r")
        term.read_for(0.5)
        results["idle"] = latency.measure(term, keys)
        term.write(FLOOD_KEY)
        term.read_for(1.0)
        results["flood"] = latency.measure(term, keys)
    finally:
        term.close()
    return results


# -- through the socket ----------------------------------------------------------------------


def run_socket(keys: int, tmp: Path, big: Path) -> dict[str, list[float]]:
    repo = tmp / "repo"
    repo.mkdir()
    state = tmp / "state"
    env = latency.base_env(state)
    env["PYTHONPATH"] = str(HERE.parent)
    os.environ["ZIRV_CTX_STATE_DIR"] = str(state)  # this process's client calls
    from zirv_dash.session import blocking

    serve = _serve(repo, env, HEADLESS)
    results: dict[str, list[float]] = {}
    term: PtyTerminal | None = None
    try:
        params = {"harness": "shell", "columns": COLS, "rows": ROWS}
        ids = [blocking.call("session.start", params)["session"]["id"] for _ in range(4)]
        argv = [sys.executable, "-m", "zirv_dash.session.cli", "session", "attach", ids[0]]
        term = _terminal(argv, env, repo)
        results = _idle_then_flood(term, ids[1:], big, keys)
    finally:
        if term is not None:
            term.close()
        _unserve(serve)
    return results


HEADLESS = [sys.executable, "-m", "zirv_dash.session.cli", "session", "serve"]
"""The runtime with no dashboard to host (sessions only)."""
HOSTING = [sys.executable, "-m", "zirv_dash.cli.main", "session", "serve"]
"""`zirv session serve`: the runtime that hosts the dashboard (`dash`)."""


def _serve(repo: Path, env: dict[str, str], command: list[str]) -> subprocess.Popen[str]:
    serve = subprocess.Popen(
        command,
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert serve.stdout is not None
    if "listening at" not in serve.stdout.readline():
        raise SystemExit("the runtime did not start")
    return serve


def _unserve(serve: subprocess.Popen[str]) -> None:
    from zirv_dash.session import cli

    with contextlib.suppress(Exception):
        cli.stop_runtime(timeout=30)
    with contextlib.suppress(subprocess.TimeoutExpired):
        serve.wait(30)
    if serve.poll() is None:
        serve.kill()


def _persistent_env(state: Path) -> dict[str, str]:
    """`[session] persistent = true` and shell panes, for `zirv chat`."""
    env = latency.base_env(state)
    env["PYTHONPATH"] = str(HERE.parent)
    operator = state / "operator"
    operator.mkdir(parents=True, exist_ok=True)
    (operator / "ctx.toml").write_text('agent = "shell"\n\n[session]\npersistent = true\n')
    os.environ["ZIRV_CTX_STATE_DIR"] = str(state)  # this process's client calls
    return env


# -- the dashboard attached to the runtime ------------------------------------------------------


def run_attached(keys: int, tmp: Path, big: Path) -> dict[str, list[float]]:
    """bench/latency.py's dashboard run, with the dashboard hosted by the runtime
    and `zirv chat` attached to it: four shell panes, the first one typed into."""
    from zirv_dash.session import blocking

    repo = tmp / "repo"
    repo.mkdir()
    env = _persistent_env(tmp / "state")
    serve = _serve(repo, env, HOSTING)
    results: dict[str, list[float]] = {}
    term: PtyTerminal | None = None
    try:
        params = {"harness": "shell", "columns": COLS, "rows": ROWS}
        ids = [blocking.call("session.start", params)["session"]["id"] for _ in range(4)]
        term = _terminal([sys.executable, "-m", "zirv_dash.cli.main", "chat"], env, repo)
        results = _idle_then_flood(term, ids[1:], big, keys)
    finally:
        if term is not None:
            term.close()
        _unserve(serve)
    return results


def _idle_then_flood(
    term: PtyTerminal, flooders: list[str], big: Path, keys: int
) -> dict[str, list[float]]:
    """Type into the shown pane (running `cat`), then again with `flooders` flooding."""
    from zirv_dash.session import blocking

    results: dict[str, list[float]] = {}
    term.read_for(3.0)
    term.write(b"cat\r")
    term.read_for(0.5)
    results["idle"] = latency.measure(term, keys)
    for sid, command in zip(flooders, flood_commands(big), strict=True):
        blocking.call("session.send_input", {"session": sid, "text": command.decode()})
    term.read_for(1.0)
    results["flood"] = latency.measure(term, keys)
    return results


def _terminal(argv: list[str], env: dict[str, str], cwd: Path) -> PtyTerminal:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return PtyTerminal(argv, COLS, ROWS, env)
    finally:
        os.chdir(old)


# -- idle CPU ------------------------------------------------------------------------------------


def idle_runtime(panes: int, seconds: float, tmp: Path) -> tuple[float, float]:
    """CPU % of the runtime's tree and of the attached dashboard client, `panes`
    idle shells."""
    import threading

    import idle

    repo = tmp / "repo"
    repo.mkdir()
    env = _persistent_env(tmp / "state")
    from zirv_dash.session import blocking

    serve = _serve(repo, env, HOSTING)
    term: PtyTerminal | None = None
    try:
        params = {"harness": "shell", "columns": COLS, "rows": ROWS}
        for _ in range(panes):
            blocking.call("session.start", params)
        # The whole dashboard, attached (`zirv chat` with the gate on).
        term = _terminal([sys.executable, "-m", "zirv_dash.cli.main", "chat"], env, repo)
        term.read_for(12.0)  # past the idle threshold, as bench/idle.py waits
        reader = threading.Thread(target=lambda: term.read_for(seconds + 1), daemon=True)
        reader.start()
        got: dict[str, float] = {}

        def runtime_side() -> None:
            got["runtime"] = idle.sample(serve.pid, seconds)[0]

        side = threading.Thread(target=runtime_side)
        side.start()
        got["client"] = idle.sample(term.pid, seconds)[0]
        side.join()
        reader.join()
        return got["runtime"], got["client"]
    finally:
        if term is not None:
            term.close()
        _unserve(serve)


def report_idle(panes: int, seconds: float) -> None:
    import idle

    with tempfile.TemporaryDirectory(prefix="zsi-", dir="/tmp") as tmpdir:
        tmp = Path(tmpdir)
        (tmp / "r").mkdir()
        (tmp / "d").mkdir()
        runtime, client = idle_runtime(panes, seconds, tmp / "r")
        dash = idle.dashboard(panes, seconds, tmp / "d")[0]
    print(f"idle CPU, {panes} idle shell panes, {seconds:.0f} s (% of one core)")
    print(f"runtime tree {runtime:.2f} + `zirv chat` client {client:.2f} = {runtime + client:.2f}")
    print(f"in-process dashboard tree {dash:.2f}")


# -- report ------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--gap-ms", type=float, default=40.0, help="pause between keys")
    parser.add_argument(
        "--dashboard",
        action="store_true",
        help="the whole dashboard: in-process next to attached to the runtime",
    )
    parser.add_argument("--idle", action="store_true", help="idle CPU instead of latency")
    parser.add_argument("--seconds", type=float, default=20.0, help="idle sample length")
    parser.add_argument("--panes", type=int, default=9, help="idle panes")
    parser.add_argument("--inproc-child", metavar="BIG", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inproc_child:
        asyncio.run(inproc_child(Path(args.inproc_child)))
        return 0
    if args.idle:
        report_idle(args.panes, args.seconds)
        return 0
    latency.GAP = args.gap_ms / 1000
    columns: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory(prefix="zsl-", dir="/tmp") as tmpdir:
        tmp = Path(tmpdir)
        big = latency.big_file(tmp)
        for name in ("in-process", "socket", "dashboard", "attached"):
            (tmp / name).mkdir()
        if args.dashboard:
            # The target's pair: the dashboard in-process, and attached to the runtime.
            columns["dashboard"] = latency.run_dashboard(args.keys, tmp / "dashboard")
            columns["attached"] = run_attached(args.keys, tmp / "attached", big)
        else:
            columns["in-process"] = run_inproc(args.keys, tmp / "in-process", big)
            columns["socket"] = run_socket(args.keys, tmp / "socket", big)
    report(columns, args.keys, args.gap_ms)
    return 0


def report(columns: dict[str, dict[str, list[float]]], keys: int, gap_ms: float) -> None:
    print(
        f"key-to-glyph latency, {keys} keys per phase, one every {gap_ms:.0f} ms, "
        f"{COLS}x{ROWS} (ms)"
    )
    heads = [f"{name} {q}" for name in columns for q in ("p50", "p99")]
    print(
        f"{'phase':<8}"
        + "".join(f"{h:>16}" for h in heads)
        + "".join(f"{'lost ' + name:>16}" for name in columns)
    )
    for phase in ("idle", "flood"):
        cells = ""
        lost = ""
        for results in columns.values():
            values = results.get(phase, [])
            for q in (50, 99):
                cells += f"{percentile(values, q):16.2f}" if values else f"{'–':>16}"
            lost += f"{keys - len(values):>16}"
        print(f"{phase:<8}{cells}{lost}")
    for ours, base in (("socket", "in-process"), ("attached", "dashboard")):
        for phase in ("idle", "flood"):
            a = columns.get(ours, {}).get(phase, [])
            b = columns.get(base, {}).get(phase, [])
            if a and b:
                p50 = percentile(a, 50) / percentile(b, 50)
                p99 = percentile(a, 99) / percentile(b, 99)
                print(
                    f"{phase}: {ours} over {base} p50 {p50:.2f}x, p99 {p99:.2f}x (target <= 1.2x)"
                )


if __name__ == "__main__":
    raise SystemExit(main())
