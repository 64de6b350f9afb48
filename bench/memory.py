"""Memory of a pane with a full scrollback: RSS it adds, against the byte cap.

Each corpus runs in a fresh process: a ``TerminalModel(200, 50)`` with the
default 8 MiB scrollback cap is created, the process's RSS is read, then the
corpus is fed (in 32 KiB chunks) until the scrollback has been filled and
turned over ``--turns`` times (old lines dropped for new ones, as in a long
session), and RSS is read again.  The figure is the growth over the cap;
the target is at most 2x.  RSS is what the system pays -- allocator slack and
fragmentation included -- which ``history_bytes`` (the model's own accounting)
cannot see.

    python bench/memory.py [--turns 3] [--only plain]

``ZIRV_PURE_PYTHON=1`` measures the pure-Python modules where a compiled
build is installed (the line "model:" says which ran).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CAP = 8 * 1024 * 1024
COLS, ROWS = 200, 50
CHUNK = 32 * 1024
_WORDS = "lorem ipsum dolor sit amet request cache worker token parse render".split()


def _lines(rng: random.Random, n: int, styled: bool, wide: bool) -> str:
    out = []
    for k in range(n):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(4, 24))]
        if wide:
            words = [w + "中文" for w in words]
        if styled:
            words = [f"\x1b[{31 + (k + i) % 7}m{w}\x1b[0m" for i, w in enumerate(words)]
        out.append(f"{k:08d} " + " ".join(words) + "\r\n")
    return "".join(out)


# What a long-running pane prints: log lines, coloured output, CJK text,
# lines that wrap, and the blank lines of a flood of line feeds.
CORPORA: dict[str, Callable[[random.Random], bytes]] = {
    "plain": lambda rng: _lines(rng, 4000, False, False).encode(),
    "sgr": lambda rng: _lines(rng, 4000, True, False).encode(),
    "wide": lambda rng: _lines(rng, 4000, False, True).encode(),
    "wrapped": lambda rng: (("x" * 997 + "\r\n") * 500).encode(),
    "blank": lambda rng: b"\n" * 200_000,
}


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measure(name: str, turns: int) -> dict[str, object]:
    """In this process: RSS growth of one pane fed ``name`` until its
    scrollback turned over ``turns`` times."""
    import zirv_dash.terminal as terminal

    block = CORPORA[name](random.Random(7))
    m = terminal.TerminalModel(COLS, ROWS)
    m.feed(block[:CHUNK])  # warm caches (width tables, regexes) before the baseline
    gc.collect()
    before = peak = _rss()
    fed = 0
    fill = 0  # bytes it took to fill the scrollback the first time

    def feed_block() -> None:
        nonlocal fed
        for i in range(0, len(block), CHUNK):
            m.feed(block[i : i + CHUNK])
            fed += len(block[i : i + CHUNK])

    while not fill or fed < fill * (1 + turns):
        feed_block()
        peak = max(peak, _rss())
        if not fill and m.history_bytes >= CAP * 0.98:
            fill = fed
    gc.collect()
    after = _rss()
    return {
        "corpus": name,
        "compiled": terminal.COMPILED,
        "history_bytes": m.history_bytes,
        "lines": m.history_size,
        "fed": fed,
        "grown": after - before,
        "peak": peak - before,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--turns", type=int, default=3, help="times the scrollback turns over")
    ap.add_argument("--only", choices=list(CORPORA), action="append")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.turns)))
        return
    print(f"pane {COLS}x{ROWS}, scrollback cap {CAP / 2**20:.0f} MiB, RSS growth after the")
    print(f"scrollback turned over {args.turns}x (MiB; target: grown <= 2x the cap)")
    cols = ("fed MB", "lines", "charged", "grown", "peak")
    print(f"{'corpus':<9}" + "".join(f"{c:>9}" for c in cols) + f"{'grown/cap':>11}")
    compiled = None
    for name in CORPORA:
        if args.only and name not in args.only:
            continue
        cmd = [sys.executable, __file__, "--child", name, "--turns", str(args.turns)]
        r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        compiled = r["compiled"]
        mib = 2**20
        print(
            f"{name:<9}{r['fed'] / 1e6:>9.1f}{r['lines']:>9}{r['history_bytes'] / mib:>9.2f}"
            f"{r['grown'] / mib:>9.2f}{r['peak'] / mib:>9.2f}{r['grown'] / CAP:>10.2f}x"
        )
    print(f"model: {'Python with its C accelerator' if compiled else 'pure Python'}")


if __name__ == "__main__":
    main()
