"""What the worktree and diff-review git calls cost (they run in thread workers).

    .venv/bin/python bench/git_review.py [REPO]

Clones REPO (default: this checkout) into a temp dir, so nothing of REPO is
touched, then times, median of 5: `worktree.create`, `worktree.status`,
`worktree.reclaim` (clean), `gitdiff.collect` of a checkout with a 200-line
edit, 20 untracked files and a deletion, and the review overlay's syntax
highlighting of that diff's largest file.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from widgets.diff_view import highlight  # noqa: E402
from zirv_dash.repo import gitdiff, worktree  # noqa: E402

RUNS = 5


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def report(name: str, samples: list[float]) -> None:
    print(f"{name:<34} median {statistics.median(samples):7.1f} ms   max {max(samples):7.1f} ms")


def main() -> None:
    source = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ZIRV_CTX_STATE_DIR"] = str(Path(tmp) / "state")
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(source), str(clone)], check=True)
        files = sum(1 for _ in clone.rglob("*") if ".git" not in _.parts)
        print(f"repository: {source} ({files} files in the checkout)")
        create, status, reclaim = [], [], []
        for i in range(RUNS):
            short = f"bench{i:03d}"
            started = time.perf_counter()
            wt = worktree.create(clone, short)
            create.append((time.perf_counter() - started) * 1000)
            status.append(timed(lambda wt=wt: worktree.status(wt)))  # type: ignore[misc]
            reclaim.append(timed(lambda wt=wt: worktree.reclaim(wt)))  # type: ignore[misc]
        report("worktree.create (git worktree add)", create)
        report("worktree.status", status)
        report("worktree.reclaim (clean)", reclaim)
        tracked = sorted(p for p in clone.rglob("*.py") if ".git" not in p.parts)
        big = max(tracked, key=lambda p: p.stat().st_size)
        lines = big.read_text().splitlines()
        big.write_text("\n".join(f"{line}  # edited" if i < 200 else line
                                 for i, line in enumerate(lines)) + "\n")  # fmt: skip
        tracked[0].unlink()
        for n in range(20):
            (clone / f"untracked_{n}.txt").write_text("new\n" * 50)
        collect = [timed(lambda: gitdiff.collect(clone)) for _ in range(RUNS)]
        result = gitdiff.collect(clone)
        report(f"gitdiff.collect ({len(result.files)} files)", collect)
        largest = max(result.files, key=lambda f: f.added + f.removed)
        shown = largest.added + largest.removed
        report(f"highlight ({shown} changed lines)", [timed(lambda: highlight(largest))
                                                      for _ in range(RUNS)])  # fmt: skip


if __name__ == "__main__":
    main()
