"""Soak: does the dashboard stay the same over minutes of work? Not part of the suite.

    python bench/soak.py [--minutes 20] [--cycles 1000] [--only dash|attach]

dash: nine shell panes, eight of them flooding (`yes`, `yes | cat`, a coloured log
in a loop, …) for `--minutes`, while keys are typed into the first pane (`cat >
typed.txt`, so every key is both echoed by the tty and kept) and the help and
inspector overlays are opened now and then. Every minute the main process's RSS
and open fds are sampled. At the end the file must hold exactly what was typed, in
order (zero lost or reordered keys), and no key's echo may take over 50 ms to
reach the terminal (the frame that drew it).

attach: a headless runtime (`zirv session serve`) with one shell session, and
`--cycles` protocol clients one after another, each connecting, attaching as the
controller, reading its screen, detaching and closing. The runtime's RSS and fd
count after a warm-up and at the end must match (RSS within 5 %, fds equal).

Goals (the speed issue): RSS growth ≤ 5 % after warm-up, open fds constant, zero
lost or reordered keys, zero frames over 50 ms; runtime RSS flat, no fd leak.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import latency  # noqa: E402
import session_latency  # noqa: E402
from idle import rss_mb  # noqa: E402
from ptyterm import PtyTerminal, percentile  # noqa: E402

SLOW_MS = 50.0
WARM_UP_S = 120.0
LINE = 60
"""Keys a line: each line ends with Enter, so `cat` writes it to the file."""


def fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def key_stream() -> list[bytes]:
    """bench/latency.py's glyphs in a fixed cycle: any loss or swap shows in the
    file, and none of them is drawn by the dashboard's own chrome (an ASCII key
    could match a timer in the sidebar)."""
    return [glyph.encode() for glyph in latency.GLYPHS]


def overlay(term: PtyTerminal, chord: bytes, needle: bytes) -> None:
    term.write(b"\x01" + chord)
    term.wait_for(needle, timeout=5.0)
    term.write(b"\x1b")
    term.read_for(0.3)


def soak_dashboard(minutes: float, tmp: Path) -> bool:
    repo = tmp / "repo"
    repo.mkdir()
    env = latency.base_env(tmp / "state")
    big = latency.big_file(tmp)
    argv = [sys.executable, "-m", "zirv_dash.cli.main", "chat", "--agent", "shell"]
    argv += ["--pane", "shell"] * 8
    old = os.getcwd()
    os.chdir(repo)
    term = PtyTerminal(argv, latency.COLS, latency.ROWS, env)
    os.chdir(old)
    typed = bytearray()
    took: list[float] = []
    samples: list[tuple[float, float, int]] = []
    typed_file = tmp / "typed.txt"
    try:
        term.read_for(4.0)
        floods = [b"yes\r", b"yes | cat\r", f"while :; do cat {big}; done\r".encode()]
        for n in range(2, 10):
            term.write(b"\x01" + str(n).encode())
            term.read_for(0.3)
            term.write(floods[n % len(floods)])
            term.read_for(0.2)
        term.write(b"\x011")
        term.read_for(0.5)
        term.write(f"cat > {typed_file}\r".encode())
        term.read_for(0.5)
        stream = key_stream()
        start = time.monotonic()
        next_sample = start
        next_overlay = start + 30.0
        i = 0
        while time.monotonic() - start < minutes * 60:
            now = time.monotonic()
            if now >= next_sample:
                samples.append((now - start, rss_mb([term.pid]), fds(term.pid)))
                next_sample += 60.0
            if now >= next_overlay:
                overlay(term, b"?", b"jump to pane")
                overlay(term, b"i", b"inspect")
                next_overlay += 30.0
            key = stream[i % len(stream)]
            term.read_for(latency.GAP)
            term.write(key)
            typed += key
            seconds = term.wait_for(key, timeout=2.0)
            took.append(float("inf") if seconds is None else seconds * 1000)
            i += 1
            if i % LINE == 0:
                term.write(b"\r")
                typed += b"\n"
                term.read_for(0.05)
        term.write(b"\r\x04")  # end the line, then end cat's input
        typed += b"\n"
        term.read_for(1.0)
        samples.append((time.monotonic() - start, rss_mb([term.pid]), fds(term.pid)))
    finally:
        term.close()
    kept = typed_file.read_bytes() if typed_file.exists() else b""
    return report_dashboard(minutes, bytes(typed), kept, took, samples)


def report_dashboard(
    minutes: float,
    typed: bytes,
    kept: bytes,
    took: list[float],
    samples: list[tuple[float, float, int]],
) -> bool:
    print(f"soak: 9 panes, 8 flooding, {minutes:g} min, {len(took)} keys typed")
    for at, rss, fd in samples:
        print(f"  {at:7.0f} s  RSS {rss:6.1f} MB  fds {fd}")
    warm = [s for s in samples if s[0] >= min(WARM_UP_S, minutes * 30)] or samples
    growth = (warm[-1][1] - warm[0][1]) / warm[0][1] * 100 if warm else float("nan")
    fd_steady = len({s[2] for s in warm}) == 1
    lost = len(typed) - len(kept)
    same = kept == typed
    slow = sum(1 for t in took if t > SLOW_MS)
    finite = [t for t in took if t != float("inf")]
    print(f"RSS growth after warm-up: {growth:+.1f} % (goal ≤ 5 %: {ok(growth <= 5)})")
    seen = sorted({s[2] for s in warm})
    print(f"open fds after warm-up: {seen} (goal constant: {ok(fd_steady)})")
    print(
        f"keys kept in order: {same} ({len(kept)} of {len(typed)} bytes, {lost} missing)"
        f" (goal zero lost or reordered: {ok(same)})"
    )
    print(
        f"key→glyph p50 / p99 / max: {percentile(finite, 50):.1f} / {percentile(finite, 99):.1f}"
        f" / {max(took, default=float('nan')):.1f} ms; over {SLOW_MS:.0f} ms: {slow}"
        f" (goal zero: {ok(slow == 0)})"
    )
    return growth <= 5 and fd_steady and same and slow == 0


def ok(flag: bool) -> str:
    return "met" if flag else "NOT met"


def soak_attach(cycles: int, tmp: Path) -> bool:
    from zirv_dash.session import blocking
    from zirv_dash.session.protocol import PROTOCOL_VERSION, Request, decode_incoming, encode

    repo = tmp / "repo"
    repo.mkdir()
    state = tmp / "state"
    env = latency.base_env(state)
    env["PYTHONPATH"] = str(HERE.parent)
    os.environ["ZIRV_CTX_STATE_DIR"] = str(state)
    serve = session_latency._serve(repo, env, session_latency.HEADLESS)
    from zirv_dash.session import endpoint

    path = endpoint.socket_path()
    params = {"harness": "shell", "columns": latency.COLS, "rows": latency.ROWS}
    sid = blocking.call("session.start", params)["session"]["id"]
    failures = 0

    def cycle() -> bool:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10.0)
            sock.connect(os.fspath(path))
            stream = sock.makefile("rb")
            hello = decode_incoming(stream.readline())
            if hello.hello is None or hello.hello.protocol != PROTOCOL_VERSION:
                return False
            steps = (
                ("session.attach", {"session": sid, "mode": "controller", "repaint": True}),
                ("session.screen", {"session": sid}),
                ("session.detach", {"session": sid}),
            )
            for n, (method, args) in enumerate(steps, start=1):
                sock.sendall(encode(Request(id=n, method=method, params=args)))
                while True:
                    frame = decode_incoming(stream.readline())
                    if frame.ok is not None and frame.id == n:
                        if not frame.ok:
                            return False
                        break
            return True

    runtime = serve.pid
    try:
        warm = max(1, min(50, cycles // 10))
        for _ in range(warm):
            failures += 0 if cycle() else 1
        time.sleep(1.0)  # the same settling as at the end, so both counts compare
        base_rss, base_fds = rss_mb([runtime]), fds(runtime)
        for _ in range(cycles - warm):
            failures += 0 if cycle() else 1
        time.sleep(1.0)  # let the runtime close what the last clients left
        end_rss, end_fds = rss_mb([runtime]), fds(runtime)
    finally:
        session_latency._unserve(serve)
    growth = (end_rss - base_rss) / base_rss * 100
    print(f"attach/detach: {cycles} cycles ({warm} warm-up), {failures} failed")
    print(
        f"runtime RSS {base_rss:.1f} → {end_rss:.1f} MB ({growth:+.1f} %, goal ≤ 5 %:"
        f" {ok(growth <= 5)}); fds {base_fds} → {end_fds} (goal equal: {ok(end_fds == base_fds)})"
    )
    return failures == 0 and growth <= 5 and end_fds == base_fds


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--only", choices=("dash", "attach"))
    args = parser.parse_args()
    good = True
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        if args.only in (None, "dash"):
            (tmp / "d").mkdir()
            good &= soak_dashboard(args.minutes, tmp / "d")
        if args.only in (None, "attach"):
            (tmp / "a").mkdir()
            good &= soak_attach(args.cycles, tmp / "a")
    return 0 if good else 1


if __name__ == "__main__":
    raise SystemExit(main())
