"""Key-to-glyph latency of two versions of the dashboard, alternating in one run.

On a shared machine a neighbour's load moves every wall-clock figure from one
minute to the next, so two versions are only comparable measured side by side:
each round runs the dashboard of version A and of version B (in alternating
order), with the same phases as `latency.py` (idle, three hidden panes flooding,
`Ctrl+A ?` under flood), and the samples of all rounds are pooled per version.

    python bench/latency_ab.py [--rounds 3] [--keys 150] BASE [OTHER]

BASE and OTHER are git revisions of this repository (OTHER defaults to the
working tree). Each revision is exported with `git archive` to a temporary
directory and put first on the dashboard's PYTHONPATH.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import latency  # noqa: E402
from ptyterm import percentile  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PHASES = ("idle", "flood", "chord under flood")


def export(revision: str, into: Path) -> Path:
    """The tree of `revision`, or the working tree for "" (no copy)."""
    if not revision:
        return ROOT
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("other", nargs="?", default="", help="default: the working tree")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keys", type=int, default=150)
    args = parser.parse_args()
    names = [args.base, args.other or "working tree"]
    pooled: list[dict[str, list[float]]] = [{}, {}]
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        trees = [export(args.base, tmp / "a"), export(args.other, tmp / "b")]
        for number in range(args.rounds):
            order = (0, 1) if number % 2 == 0 else (1, 0)
            for which in order:
                run_dir = tmp / f"run-{number}-{which}"
                run_dir.mkdir()
                env = {"PYTHONPATH": str(trees[which])}
                results = latency.run_dashboard(args.keys, run_dir, extra_env=env)
                line = []
                for phase, samples in results.items():
                    pooled[which].setdefault(phase, []).extend(samples)
                    line.append(f"{phase} p50 {percentile(samples, 50):.1f}")
                print(f"round {number} {names[which]}: " + ", ".join(line), flush=True)
    print(f"\nkey-to-glyph, ms, {args.rounds} rounds pooled (A = {names[0]}, B = {names[1]})")
    print(f"{'phase':<20}{'A p50':>8}{'A p90':>8}{'A p99':>8}{'B p50':>8}{'B p90':>8}{'B p99':>8}")
    for phase in PHASES:
        cells = ""
        for which in (0, 1):
            samples = pooled[which].get(phase, [])
            for q in (50, 90, 99):
                cells += f"{percentile(samples, q):8.1f}" if samples else f"{'–':>8}"
        print(f"{phase:<20}{cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
