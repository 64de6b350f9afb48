"""How cost grows with the work: the dashboard at 1, 9, 30 and 60 panes next to tmux
holding the same number of windows, idle and with every other pane flooding.

    python bench/scale.py [--panes 1,9,30,60] [--keys 100] [--seconds 10]

For each count: idle CPU of the process tree (after the panes settle), the main
process's RSS and the RSS each added pane costs, key→glyph p50/p99 in the focused
pane (which runs `cat`, so the tty echoes each key), and the `Ctrl+A ?` chord's
p99; then every other pane runs `yes` and the key and chord figures are taken
again. The operator's pane cap is raised for the run (`ZIRV_CTX_DASH_MAX_PANES`).
The goals (issue: flat as the work grows) are printed with each figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from idle import sample  # noqa: E402
from latency import base_env, measure  # noqa: E402
from ptyterm import PtyTerminal, percentile  # noqa: E402

COLS, ROWS = 120, 40
CHORDS = 10
MAX_PANES = 64  # the config's own ceiling for dash.max_panes


@dataclass(slots=True)
class Figures:
    """One program at one pane count."""

    cpu: float = float("nan")
    rss_main: float = float("nan")
    rss_tree: float = float("nan")
    keys: dict[str, list[float]] = field(default_factory=dict)
    chords: dict[str, list[float]] = field(default_factory=dict)


def idle_sample(term: PtyTerminal, root: int, seconds: float) -> tuple[float, float, float]:
    """CPU %, main RSS and tree RSS of `root` over `seconds`, while the terminal's
    output is drained (a terminal that stops reading would stall the program)."""
    reader = threading.Thread(target=lambda: term.read_for(seconds + 1), daemon=True)
    reader.start()
    cpu, main_rss, tree_rss, _ = sample(root, seconds)
    reader.join()
    return cpu, main_rss, tree_rss


def chord_times(term: PtyTerminal) -> list[float]:
    out = []
    for _ in range(CHORDS):
        term.write(b"\x01?")
        took = term.wait_for(b"jump to pane", timeout=5.0)
        if took is not None:
            out.append(took * 1000)
        term.write(b"\x1b")
        term.read_for(0.3)
    return out


def dashboard(panes: int, keys: int, seconds: float, tmp: Path) -> Figures:
    repo = tmp / "repo"
    repo.mkdir(parents=True)
    env = base_env(tmp / "state")
    env["ZIRV_CTX_DASH_MAX_PANES"] = str(MAX_PANES)
    argv = [sys.executable, "-m", "zirv_dash.cli.main", "chat", "--agent", "shell"]
    argv += ["--pane", "shell"] * (panes - 1)
    old = os.getcwd()
    os.chdir(repo)
    term = PtyTerminal(argv, COLS, ROWS, env)
    os.chdir(old)
    got = Figures()
    try:
        # Every pane past the idle threshold (10 s of quiet output), and the
        # spawns themselves done (a tenth of a second each is generous).
        term.read_for(12.0 + panes * 0.1)
        got.cpu, got.rss_main, got.rss_tree = idle_sample(term, term.pid, seconds)
        term.write(b"\x011")
        term.read_for(0.3)
        term.write(b"cat\r")
        term.read_for(0.5)
        got.keys["idle"] = measure(term, keys)
        got.chords["idle"] = chord_times(term)
        if panes > 1:
            # Every other pane floods: next pane, `yes`, and on round to pane 1.
            for _ in range(panes - 1):
                term.write(b"\x01\t")
                term.read_for(0.15)
                term.write(b"yes\r")
                term.read_for(0.1)
            term.write(b"\x011")
            term.read_for(1.0)
            got.keys["flood"] = measure(term, keys)
            got.chords["flood"] = chord_times(term)
    finally:
        term.close()
    return got


def tmux(panes: int, keys: int, seconds: float, tmp: Path) -> Figures | None:
    if shutil.which("tmux") is None:
        return None
    tmp.mkdir(parents=True)
    sock = f"zirv-scale-{os.getpid()}-{panes}"
    env = base_env(tmp / "state")
    env["TMUX_TMPDIR"] = str(tmp)

    def run(*args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", sock, *args], env=env, capture_output=True, text=True, check=False
        )
        return done.stdout.strip()

    new = ["tmux", "-L", sock, "-f", "/dev/null", "new-session", "-x", str(COLS), "-y", str(ROWS)]
    term = PtyTerminal([*new, "sh"], COLS, ROWS, env)
    got = Figures()
    try:
        term.read_for(1.0)
        for _ in range(panes - 1):
            run("new-window", "-d", "sh")
        term.read_for(2.0)
        server = int(run("display", "-p", "#{pid}"))
        got.cpu, got.rss_main, got.rss_tree = idle_sample(term, server, seconds)
        term.write(b"cat\r")
        term.read_for(0.5)
        got.keys["idle"] = measure(term, keys)
        if panes > 1:
            for window in run("list-windows", "-F", "#{window_index}").split()[1:]:
                run("send-keys", "-t", f":{window}", "yes", "Enter")
            term.read_for(1.0)
            got.keys["flood"] = measure(term, keys)
    finally:
        run("kill-server")
        term.close()
    return got


def cell(values: list[float], q: float) -> str:
    return f"{percentile(values, q):8.1f}" if values else f"{'–':>8}"


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def report(
    counts: list[int], ours: dict[int, Figures], theirs: dict[int, Figures | None], keys: int
) -> None:
    print(f"scale: {COLS}x{ROWS}, focused pane runs cat; flood = every other pane runs `yes`")
    heads = ("CPU %", "RSS MB", "tree MB", "idle p50", "idle p99", "chord99", "flood50")
    heads += ("flood99", "fchord99")
    print(f"{'':<12}" + "".join(f"{h:>9}" for h in heads))

    def row(name: str, got: Figures) -> None:
        parts = [f"{got.cpu:9.2f}", f"{got.rss_main:9.1f}", f"{got.rss_tree:9.1f}"]
        idle, flood = got.keys.get("idle", []), got.keys.get("flood", [])
        parts += [" " + cell(idle, 50), " " + cell(idle, 99)]
        parts += [" " + cell(got.chords.get("idle", []), 99)]
        parts += [" " + cell(flood, 50), " " + cell(flood, 99)]
        parts += [" " + cell(got.chords.get("flood", []), 99)]
        print(f"{name:<12}" + "".join(parts))

    for n in counts:
        row(f"zirv {n}", ours[n])
        other = theirs.get(n)
        if other is not None:
            row(f"tmux {n}", other)
    first, last = counts[0], counts[-1]
    if last > first:
        added = last - first
        per_main = (ours[last].rss_main - ours[first].rss_main) / added
        per_tree = (ours[last].rss_tree - ours[first].rss_tree) / added
        line = f"RSS per added idle pane ({first}→{last}): main {per_main:.2f} MB"
        line += f" (goal ≤ 1 MB: {verdict(per_main <= 1.0)}), tree {per_tree:.2f} MB"
        tm_first, tm_last = theirs.get(first), theirs.get(last)
        if tm_first is not None and tm_last is not None:
            tm_per = (tm_last.rss_main - tm_first.rss_main) / added
            line += f"; tmux server {tm_per:.2f} MB"
        print(line)
    top = ours[last]
    print(f"idle CPU at {last} panes: {top.cpu:.2f} % (goal ≤ 0.2 %: {verdict(top.cpu <= 0.2)})")
    if 9 in ours and last != 9:
        at9 = percentile(ours[9].keys.get("flood", []), 99)
        atn = percentile(top.keys.get("flood", []), 99)
        ratio = atn / at9 if at9 == at9 and at9 > 0 else float("nan")
        print(
            f"flood p99 at {last} vs 9 panes: {atn:.1f} / {at9:.1f} ms = {ratio:.2f}x"
            f" (goal ≤ 1.5x: {verdict(ratio <= 1.5)})"
        )
    for n in counts:
        lost = sum(max(0, keys - len(v)) for v in ours[n].keys.values())
        if lost:
            print(f"zirv {n}: {lost} keys never echoed within 2 s")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--panes", default="1,9,30,60", help="comma-separated pane counts")
    parser.add_argument("--keys", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10.0, help="idle CPU window")
    parser.add_argument("--no-tmux", action="store_true")
    args = parser.parse_args()
    counts = sorted({int(x) for x in args.panes.split(",") if x.strip()})
    if not counts or counts[0] < 1 or counts[-1] > MAX_PANES:
        parser.error(f"pane counts must be 1..{MAX_PANES}")
    ours: dict[int, Figures] = {}
    theirs: dict[int, Figures | None] = {}
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for n in counts:
            ours[n] = dashboard(n, args.keys, args.seconds, tmp / f"d{n}")
            theirs[n] = None if args.no_tmux else tmux(n, args.keys, args.seconds, tmp / f"t{n}")
    report(counts, ours, theirs, args.keys)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
