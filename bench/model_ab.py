"""Terminal model CPU time, two revisions side by side in one process.

    python bench/model_ab.py BASE [--size-mb 1] [--rounds 5] [--only sgr] [--cols 200 --rows 50]

``BASE`` is a git revision; its ``zirv_dash/terminal`` is extracted into a
temporary directory and imported as a second package (the model has only
relative imports), next to the working tree's.  Both are pure Python
(``ZIRV_PURE_PYTHON=1``).  Each round feeds every corpus of ``throughput.py``
to a fresh model of each revision, alternating, best of 3 per revision in
CPU time (``time.process_time``); a round's ratio is base / working tree
(above 1: the working tree is faster).  On a shared machine the per-round
ratios move; the best-of figures and the spread of the ratios are printed.
``--cold``: every model of the working tree starts without the CUP targets
that models of one size share (as the first model of a process does).
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import random
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["ZIRV_PURE_PYTHON"] = "1"

import throughput  # noqa: E402

from zirv_dash import terminal as working  # noqa: E402

CHUNK = 32 * 1024


def extract(rev: str, into: Path) -> ModuleType:
    """``zirv_dash/terminal`` at ``rev``, imported as package ``model_base``."""
    tar = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "zirv_dash/terminal"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
        tf.extractall(into, filter="data")
    (into / "zirv_dash" / "terminal").rename(into / "model_base")
    sys.path.insert(0, str(into))
    return importlib.import_module("model_base")


def cpu(mod: ModuleType, data: bytes, cols: int, rows: int, cold: bool = False) -> float:
    if cold:
        # CUP targets are shared by the models of one size: start without them
        styled = importlib.import_module(mod.__name__ + ".styled")
        getattr(styled, "_CUP_TABLES", {}).clear()
    m = mod.TerminalModel(cols, rows)
    t0 = time.process_time()
    for i in range(0, len(data), CHUNK):
        m.feed(data[i : i + CHUNK])
    m.take_dirty()
    return time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("base", help="git revision to compare the working tree with")
    ap.add_argument("--size-mb", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cols", type=int, default=throughput.COLS)
    ap.add_argument("--rows", type=int, default=throughput.ROWS)
    ap.add_argument("--only", choices=list(throughput.CORPORA), action="append")
    ap.add_argument(
        "--cold", action="store_true", help="each model starts without the shared CUP targets"
    )
    args = ap.parse_args()
    size = int(args.size_mb * 1_000_000)
    with tempfile.TemporaryDirectory(prefix="zirv-model-ab-") as tmp:
        base = extract(args.base, Path(tmp))
        print(
            f"terminal model CPU time, {args.base} vs working tree, {args.cols}x{args.rows}, "
            f"{size / 1e6:g} MB per corpus, best of 3 per round, {args.rounds} rounds"
        )
        print(f"{'corpus':<9}{'base MB/s':>10}{'new MB/s':>10}{'best':>7}  per-round base/new")
        for name, gen in throughput.CORPORA.items():
            if args.only and name not in args.only:
                continue
            data = gen(size, random.Random(1234))
            best = {"base": float("inf"), "new": float("inf")}
            ratios = []
            for _ in range(args.rounds):
                b = min(cpu(base, data, args.cols, args.rows) for _ in range(3))
                w = min(cpu(working, data, args.cols, args.rows, args.cold) for _ in range(3))
                best["base"] = min(best["base"], b)
                best["new"] = min(best["new"], w)
                ratios.append(b / w)
            rb, rn = len(data) / best["base"] / 1e6, len(data) / best["new"] / 1e6
            spread = " ".join(f"{r:.2f}" for r in ratios)
            print(f"{name:<9}{rb:>10.2f}{rn:>10.2f}{rn / rb:>6.2f}x  {spread}")


if __name__ == "__main__":
    main()
