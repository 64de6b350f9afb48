"""Differential testing of TerminalModel against a live tmux (a dev tool).

Generates byte streams, plays each into a fresh detached tmux pane and into
``TerminalModel`` at the same size, and compares every row of text, the
cursor and (``sgr``) every cell's attributes.  On a mismatch it bisects the
generated operations to the first one that makes the screens differ.  This is
how the tmux quirks the model reproduces were found; rerun it after changing
the model (needs tmux; takes a few minutes).

    python tests/terminal/diff_tmux.py ops    [--seed N] [--count N]
    python tests/terminal/diff_tmux.py ink    [--seed N] [--count N]
    python tests/terminal/diff_tmux.py sgr    [--seed N] [--count N]
    python tests/terminal/diff_tmux.py cuts   [--seed N]  # the corpus cut at random points
    python tests/terminal/diff_tmux.py resize [--seed N] [--count N]

Known remaining differences: tmux's hidden state after some overwrites of
half a wide character, a zero width joiner right after ASCII text, and where
the cursor lands after a resize when it sat beyond the text of its line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from zirv_dash.terminal import TerminalModel, cell_width  # noqa: E402

TMP = Path(tempfile.mkdtemp(prefix="zirv-diff-"))


def tmux_run(
    data: bytes,
    cols: int,
    rows: int,
    resize: tuple[int, int] | None = None,
    after: bytes = b"",
    styled: bool = False,
) -> tuple[list[str], tuple[int, int]]:
    """tmux's rows (``capture-pane -p``, or ``-p -e -N`` when ``styled``) and
    cursor after ``data`` -- and, with ``resize``, a resize and ``after``."""
    sock = f"zirv-diff-{os.getpid()}-{time.monotonic_ns()}"
    first, second = TMP / "a.bin", TMP / "b.bin"
    first.write_bytes(data)
    second.write_bytes(after)
    conf = TMP / "tmux.conf"
    conf.write_text("set -g status off\n")
    base = ["tmux", "-L", sock, "-f", str(conf)]
    cmd = (
        f"stty -echo -opost -icanon; cat '{first}'; tmux -L {sock} wait-for -S one; "
        f"tmux -L {sock} wait-for go; cat '{second}'; tmux -L {sock} wait-for -S two; sleep 600"
    )
    env = {**os.environ, "TERM": "xterm-256color"}
    subprocess.run(
        base + ["new-session", "-d", "-x", str(cols), "-y", str(rows), cmd], check=True, env=env
    )
    try:
        subprocess.run(base + ["wait-for", "one"], check=True, timeout=60)
        time.sleep(0.2)
        if resize:
            subprocess.run(
                base + ["resize-window", "-x", str(resize[0]), "-y", str(resize[1])], check=True
            )
            time.sleep(0.3)
        subprocess.run(base + ["wait-for", "-S", "go"], check=True)
        subprocess.run(base + ["wait-for", "two"], check=True, timeout=60)
        time.sleep(0.2)
        flags = ["-p", "-e", "-N"] if styled else ["-p"]
        out = subprocess.run(base + ["capture-pane", *flags], check=True, capture_output=True)
        cur = subprocess.run(
            base + ["display", "-p", "#{cursor_x},#{cursor_y}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    finally:
        subprocess.run(base + ["kill-server"], check=False, stderr=subprocess.DEVNULL)
    height = resize[1] if resize else rows
    lines = out.stdout.decode("utf-8", "replace").split("\n")[:height]
    lines += [""] * (height - len(lines))
    cx, cy = (int(v) for v in cur.split(","))
    return (lines if styled else [ln.rstrip(" ") for ln in lines]), (cx, cy)


def compare(
    data: bytes, cols: int, rows: int, resize: tuple[int, int] | None = None, after: bytes = b""
) -> list[str]:
    """Differences between tmux and the model (empty when they agree)."""
    want, (cx, cy) = tmux_run(data, cols, rows, resize, after)
    m = TerminalModel(cols, rows)
    m.feed(data)
    if resize:
        m.resize(*resize)
        m.feed(after)
    width = m.columns
    out = [
        f"row {y}: tmux {w!r}\n        ours {g!r}"
        for y, (w, g) in enumerate(zip(want, m.lines(), strict=True))
        if w != g
    ]
    if (min(cx, width - 1), cy) != m.cursor:
        out.append(f"cursor: tmux {(cx, cy)} ours {m.cursor}")
    return out


def compare_attrs(data: bytes, cols: int, rows: int) -> list[str]:
    """Per-cell attribute differences (tmux's styled capture read back by a
    model; trailing erased cells are not compared, tmux does not carry them)."""
    styled, _ = tmux_run(data, cols, rows, styled=True)
    plain, _ = tmux_run(data, cols, rows)
    ref = TerminalModel(cols, rows)
    ref.feed("\r\n".join(styled).encode())
    m = TerminalModel(cols, rows)
    m.feed(data)
    out = []
    for y in range(rows):
        used = cell_width(plain[y])
        want = [a for t, a in ref.row_runs(y) for _ in range(cell_width(t))][:used]
        got = [a for t, a in m.row_runs(y) for _ in range(cell_width(t))][:used]
        if want != got:
            x = next(i for i, (a, b) in enumerate(zip(want, got, strict=True)) if a != b)
            out.append(f"row {y} col {x}: tmux {want[x]} ours {got[x]}")
    return out


# -- generators ------------------------------------------------------------------------

WORDS = ["abc", "hello world", "中文", "x", "0123456789", "e\u0301", "🙂", "─│┼", "\u00ad"]


def gen_ops(rng: random.Random, cols: int, rows: int) -> bytes:
    """One random operation: text, controls, motions, erasing, scrolling,
    regions, modes, alternate screens, tabs, REP, resets."""
    k = rng.randrange(30)
    n = rng.choice([0, 1, 2, 3, 7, 50])
    s: str
    if k < 7:
        s = rng.choice(WORDS) * rng.randint(1, 3)
    elif k < 10:
        s = rng.choice(["\r\n", "\n", "\r", "\x08", "\t", "\x1bD", "\x1bM", "\x1bE"])
    elif k == 10:
        s = f"\x1b[{rng.randint(1, rows)};{rng.randint(1, cols)}H"
    elif k == 11:
        s = f"\x1b[{n}" + rng.choice("ABCDEFGd`")
    elif k == 12:
        s = f"\x1b[{rng.randint(0, 3)}J"
    elif k == 13:
        s = f"\x1b[{rng.randint(0, 2)}K"
    elif k == 14:
        s = f"\x1b[{n}" + rng.choice("X@PLMST")
    elif k == 15:
        s = f"\x1b[{rng.randint(1, rows)};{rng.randint(1, rows)}r"
    elif k == 16:
        s = rng.choice(["\x1b7", "\x1b8", "\x1b[s", "\x1b[u"])
    elif k == 17:
        s = rng.choice(["\x1b[?6h", "\x1b[?6l", "\x1b[?7l", "\x1b[?7h"])
    elif k == 18:
        s = rng.choice(["\x1b[?1049h", "\x1b[?1049l", "\x1b[?47h", "\x1b[?47l", "\x1b[?1047h"])
    elif k == 19:
        s = rng.choice(["\x1bH", "\x1b[g", "\x1b[3g", f"\x1b[{n}Z"])
    elif k == 20:
        s = rng.choice(["\x1b[4h", "\x1b[4l"])
    elif k == 21:
        s = f"\x1b[{rng.choice(['0', '1', '31', '44', '7'])}m"
    elif k == 22:
        s = "\x1bc" if rng.random() < 0.2 else "\x1b#8"
    elif k == 23:
        s = f"\x1b[{n}b"
    else:
        s = "".join(rng.choice(WORDS) for _ in range(2))
    return s.encode()


INK_LINES = [
    "⏺ Reading file src/main.py",
    "  ⎿  Read 120 lines (ctrl+r to expand)",
    "✻ Thinking… (12s · esc to interrupt)",
    "╭" + "─" * 30 + "╮",
    "中文输入 测试 🙂 emoji ✓",
    "> 你好，世界！ hello world with a long tail that wraps around the screen edge",
    "\x1b[2mdim text\x1b[22m and \x1b[1mbold\x1b[0m",
    "\x1b[38;2;215;119;87m● claude\x1b[39m",
    "\x1b]8;;https://x.y\x07link\x1b]8;;\x07 text",
]


def gen_ink(rng: random.Random, cols: int, rows: int, state: dict[str, int]) -> bytes:
    """Ink-style log-update frames: erase the previous frame line by line,
    draw a new one; plus plain lines, cursor/sync toggles and full clears."""
    k = rng.random()
    if k < 0.7:
        prev = state.get("prev", 0)
        s = "\x1b[2K\x1b[1A" * prev + "\x1b[2K\x1b[G" if prev else ""
        count = rng.randint(1, rows)
        s += "\r\n".join(rng.choice(INK_LINES) for _ in range(count))
        state["prev"] = count - 1
    elif k < 0.8:
        s = "\r\n" + rng.choice(INK_LINES) + "\r\n"
        state["prev"] = 0
    elif k < 0.9:
        s = rng.choice(["\x1b[?25l", "\x1b[?25h", "\x1b[?2026h", "\x1b[?2026l"])
    else:
        s = "\x1b[2J\x1b[3J\x1b[H"
        state["prev"] = 0
    return s.encode()


SGR_CODES = (
    "0 1 2 3 4 5 7 9 21 22 23 24 25 27 29 39 49 4:0 4:3 31 42 93 104 38;5;200 48;5;17 "
    "38;2;1;2;3 48;2;250;0;9 38:5:44 48:2::10:20:30 38:2:7:8:9 58;5;3 53 8 28 6 38;5;300 "
    "38;2;300;1;1 38;5 ;1 1;;4"
).split(" ")


def gen_sgr(rng: random.Random) -> bytes:
    s = ""
    for _ in range(12):
        codes = ";".join(rng.choice(SGR_CODES) for _ in range(rng.randint(1, 3)))
        s += f"\x1b[{codes}m" + rng.choice(["ab", "xyz", " ", "中", "q"])
        if rng.random() < 0.1:
            s += "\r\n"
    return s.encode()


# -- drivers ---------------------------------------------------------------------------


def bisect(ops: list[bytes], cols: int, rows: int) -> int:
    """Index of the first operation after which the screens differ."""
    lo, hi = 0, len(ops)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if compare(b"".join(ops[:mid]), cols, rows):
            hi = mid
        else:
            lo = mid
    return hi - 1


def run_generated(name: str, seed: int, count: int) -> int:
    bad = 0
    for s in range(seed, seed + count):
        rng = random.Random(s)
        if name == "ops":
            cols, rows, nops = 30, 10, 60
            ops = [gen_ops(rng, cols, rows) for _ in range(nops)]
        else:
            cols, rows = rng.choice([(40, 10), (60, 15), (30, 8)])
            state: dict[str, int] = {}
            ops = [gen_ink(rng, cols, rows, state) for _ in range(25)]
        if not compare(b"".join(ops), cols, rows):
            continue
        bad += 1
        k = bisect(ops, cols, rows)
        print(f"seed {s}: first difference after op #{k} {ops[k][:80]!r}")
        print("   before:", b"".join(ops[max(0, k - 4) : k])[-120:])
        for line in compare(b"".join(ops[: k + 1]), cols, rows):
            print("  ", line)
    return bad


def run_sgr(seed: int, count: int) -> int:
    bad = 0
    for s in range(seed, seed + count):
        data = gen_sgr(random.Random(s))
        diffs = compare_attrs(data, 20, 6)
        if diffs:
            bad += 1
            print(f"seed {s}: {data!r}\n  ", diffs[0])
    return bad


def run_cuts(seed: int) -> int:
    rng = random.Random(seed)
    bad = 0
    for meta_path in sorted((HERE / "data").glob("*.json")):
        meta = json.loads(meta_path.read_text())
        data = meta_path.with_suffix(".bin").read_bytes()
        for _ in range(4):
            off = rng.randrange(1, len(data) + 1)
            diffs = compare(data[:off], meta["cols"], meta["rows"])
            if diffs:
                bad += 1
                print(f"{meta_path.stem} cut at {off}:", *diffs[:3], sep="\n  ")
    return bad


RESIZE_WORDS = ["hello ", "world", "中文", "x" * 17, "\r\n", "abc", "🙂", "\t", "0123456789"]


def run_resize(seed: int, count: int) -> int:
    rng = random.Random(seed)
    bad = 0
    for _ in range(count):
        c1, c2 = rng.randint(8, 30), rng.randint(8, 30)
        r1, r2 = rng.randint(3, 10), rng.randint(3, 10)
        data = "".join(rng.choice(RESIZE_WORDS) for _ in range(rng.randint(3, 40))).encode()
        after = "".join(rng.choice(RESIZE_WORDS) for _ in range(rng.randint(0, 5))).encode()
        diffs = compare(data, c1, r1, (c2, r2), after)
        if diffs:
            bad += 1
            print(f"{(c1, r1)} -> {(c2, r2)} {data!r} then {after!r}:", *diffs[:3], sep="\n  ")
    return bad


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("mode", choices=["ops", "ink", "sgr", "cuts", "resize"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=40)
    args = ap.parse_args()
    runners: dict[str, Callable[[], int]] = {
        "ops": lambda: run_generated("ops", args.seed, args.count),
        "ink": lambda: run_generated("ink", args.seed, args.count),
        "sgr": lambda: run_sgr(args.seed, args.count),
        "cuts": lambda: run_cuts(args.seed),
        "resize": lambda: run_resize(args.seed, args.count),
    }
    bad = runners[args.mode]()
    print(f"{args.mode}: {bad} case(s) differ from tmux")


if __name__ == "__main__":
    main()
