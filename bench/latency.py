"""Key-to-glyph latency: the dashboard next to tmux, idle and under flood.

Both run inside the same minimal terminal (bench/ptyterm.py). A key is written to
the terminal and the clock stops when the echoed glyph is drawn back to it — the
latency a user sees. The pane runs `cat` (the tty echoes each key). Under flood,
three other panes run `yes` / `cat` of a big file, hidden behind the focused one
(other windows, for tmux).

    python bench/latency.py [--keys 200]

A third column is the floor: a trivial Textual app echoing keys (bench/echo_app.py)
in the same harness.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ptyterm import PtyTerminal, percentile  # noqa: E402

GLYPHS = "αβγδεζηθικλμνξοπρστυφχψωбвгджзийклмнпрстуфхцчшщ"
PER_LINE = 40
COLS, ROWS = 120, 40


def base_env(state: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL")}
    env.update(
        ZIRV_CTX_STATE_DIR=str(state),
        ZIRV_HOME=str(state / "operator"),
        SHELL="/bin/sh",
        PS1="$ ",
        TERM="xterm-256color",
        LANG=env.get("LANG", "C.UTF-8"),
    )
    return env


GAP = 0.04
"""Pause between keys: 25 keys a second, a fast typist. Back-to-back keys would
mostly measure the 60 fps frame clock rather than the path a key takes."""


def measure(term: PtyTerminal, keys: int) -> list[float]:
    samples: list[float] = []
    for i in range(keys):
        term.read_for(GAP)
        glyph = GLYPHS[i % PER_LINE]
        term.write(glyph.encode())
        took = term.wait_for(glyph.encode(), timeout=2.0)
        if took is not None:
            samples.append(took * 1000)
        if i % PER_LINE == PER_LINE - 1:
            term.write(b"\r")
            term.read_for(0.05)
    return samples


def big_file(tmp: Path) -> Path:
    path = tmp / "big.txt"
    with path.open("w") as handle:
        for n in range(200_000):
            handle.write(f"\x1b[3{n % 7}mline {n} of a big coloured log file\x1b[0m\n")
    return path


def run_dashboard(
    keys: int, tmp: Path, extra_env: dict[str, str] | None = None
) -> dict[str, list[float]]:
    repo = tmp / "repo"
    repo.mkdir()
    env = base_env(tmp / "state")
    env.update(extra_env or {})  # another version's tree on PYTHONPATH (latency_ab.py)
    argv = [sys.executable, "-m", "zirv_dash.cli.main", "chat", "--agent", "shell"]
    argv += ["--pane", "shell"] * 3
    old = os.getcwd()
    os.chdir(repo)
    term = PtyTerminal(argv, COLS, ROWS, env)
    os.chdir(old)
    results: dict[str, list[float]] = {}
    try:
        term.read_for(3.0)
        term.write(b"\x011")
        term.read_for(0.3)
        term.write(b"cat\r")
        term.read_for(0.5)
        results["idle"] = measure(term, keys)
        big = big_file(tmp)
        floods = [b"yes\r", b"yes | cat\r", f"while :; do cat {big}; done\r".encode()]
        for n, command in enumerate(floods, start=2):
            term.write(b"\x01" + str(n).encode())
            term.read_for(0.3)
            term.write(command)
            term.read_for(0.3)
        term.write(b"\x011")
        term.read_for(1.0)
        results["flood"] = measure(term, keys)
        chords = []
        for _ in range(10):
            term.write(b"\x01?")
            took = term.wait_for(b"jump to pane", timeout=5.0)
            if took is not None:
                chords.append(took * 1000)
            term.write(b"\x1b")
            term.read_for(0.3)
        results["chord under flood"] = chords
    finally:
        term.close()
    return results


def run_floor(keys: int) -> dict[str, list[float]]:
    """The trivial Textual echo app (bench/echo_app.py) in the same harness: idle only."""
    env = base_env(Path(tempfile.gettempdir()))
    argv = [sys.executable, str(Path(__file__).resolve().parent / "echo_app.py")]
    term = PtyTerminal(argv, COLS, ROWS, env)
    try:
        term.read_for(2.0)
        return {"idle": measure(term, keys)}
    finally:
        term.close()


def run_tmux(keys: int, tmp: Path) -> dict[str, list[float]]:
    if shutil.which("tmux") is None:
        return {}
    sock = f"zirv-bench-{os.getpid()}"
    env = base_env(tmp / "tmux-state")
    env["TMUX_TMPDIR"] = str(tmp)
    argv = ["tmux", "-L", sock, "-f", "/dev/null", "new-session", "-x", str(COLS), "-y", str(ROWS)]
    term = PtyTerminal([*argv, "cat"], COLS, ROWS, env)
    results: dict[str, list[float]] = {}

    def tmux(*args: str) -> None:
        subprocess.run(["tmux", "-L", sock, *args], env=env, check=False, capture_output=True)

    try:
        term.read_for(1.5)
        results["idle"] = measure(term, keys)
        big = big_file(tmp)
        tmux("new-window", "-d", "yes")
        tmux("new-window", "-d", "sh -c 'yes | cat'")
        tmux("new-window", "-d", f"sh -c 'while :; do cat {big}; done'")
        term.read_for(1.0)
        results["flood"] = measure(term, keys)
    finally:
        tmux("kill-server")
        term.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--gap-ms", type=float, default=40.0, help="pause between keys")
    args = parser.parse_args()
    global GAP
    GAP = args.gap_ms / 1000
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        (tmp / "d").mkdir()
        (tmp / "t").mkdir()
        ours = run_dashboard(args.keys, tmp / "d")
        theirs = run_tmux(args.keys, tmp / "t")
        floor = run_floor(args.keys)
    print(
        f"key-to-glyph latency, {args.keys} keys per phase, one every {args.gap_ms:.0f} ms, "
        f"{COLS}x{ROWS} (ms)"
    )
    heads = ("zirv p50", "zirv p99", "tmux p50", "tmux p99", "floor p50", "floor p99")
    print(f"{'phase':<20}" + "".join(f"{h:>10}" for h in heads) + f"{'lost':>6}")
    for phase in ("idle", "flood", "chord under flood"):
        a = ours.get(phase, [])
        b = theirs.get(phase, [])
        c = floor.get(phase, [])

        def fmt(values: list[float], q: float) -> str:
            return f"{percentile(values, q):10.1f}" if values else f"{'–':>10}"

        lost = (10 if phase.startswith("chord") else args.keys) - len(a)
        cells = fmt(a, 50) + fmt(a, 99) + fmt(b, 50) + fmt(b, 99) + fmt(c, 50) + fmt(c, 99)
        print(f"{phase:<20}{cells}{lost:>6}")
    idle, base = ours.get("idle", []), floor.get("idle", [])
    if idle and base:
        print(
            f"idle over the Textual floor: p50 {percentile(idle, 50) / percentile(base, 50):.2f}x"
            f" (target <= 1.10x), p99 {percentile(idle, 99) / percentile(base, 99):.2f}x"
            " (target <= 1.25x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
