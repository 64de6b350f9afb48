"""Every speed figure in one run: the benches one after another, with the machine's
load before each, so one table can be read off a single session.

    python bench/all.py [--quick] [--out FILE]

`--quick` runs shorter versions (fewer keys, smaller corpora) to check the
benches work; the table in bench/README.md comes from a full run. Each bench
prints its own columns (ours next to tmux and the Textual floor where it has
them); this script only runs them in a fixed order and copies what they print.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

FULL: list[tuple[str, list[str]]] = [
    ("idle.py", ["--seconds", "30"]),
    ("latency.py", ["--keys", "200"]),
    ("native.py", ["--keys", "300"]),
    ("throughput.py", ["--size-mb", "4"]),
    ("startup.py", ["--runs", "3", "--sends", "5"]),
    ("memory.py", ["--turns", "1"]),
    ("scale.py", ["--panes", "1,9,30,60", "--keys", "100"]),
]
QUICK: list[tuple[str, list[str]]] = [
    ("idle.py", ["--seconds", "5", "--panes", "3"]),
    ("latency.py", ["--keys", "20"]),
    ("native.py", ["--keys", "20"]),
    ("throughput.py", ["--size-mb", "0.2", "--no-tmux"]),
    ("startup.py", ["--runs", "1", "--sends", "2"]),
    ("memory.py", ["--turns", "1", "--only", "plain"]),
    ("scale.py", ["--panes", "1,3", "--keys", "10", "--seconds", "2", "--no-tmux"]),
]


def header() -> str:
    head = subprocess.run(
        ["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return (
        f"commit {head or '?'}, Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M:%S %Z')}"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="short runs (a smoke test)")
    parser.add_argument("--out", type=Path, help="also write everything printed to FILE")
    args = parser.parse_args()
    lines: list[str] = []

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    say(header())
    failed = 0
    for script, extra in QUICK if args.quick else FULL:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        say(f"\n=== {script} {' '.join(extra)} (load {load}, {time.strftime('%H:%M:%S')})")
        done = subprocess.run(
            [sys.executable, str(HERE / script), *extra],
            capture_output=True,
            text=True,
            check=False,
        )
        for line in done.stdout.rstrip().splitlines():
            say(line)
        if done.returncode != 0:
            failed += 1
            say(f"(exit {done.returncode}) {done.stderr.strip()[-2000:]}")
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
