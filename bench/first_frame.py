"""The UI's own first frame, timed from inside: CPU seconds, wall seconds and
modules loaded when the dashboard's first frame is drawn, against a bare
Textual app's, in one run with the launches alternating.

Each launch runs on a private PTY (120x40) in a fresh interpreter, HOME and
state dir. The clock is read in the process itself, in the after-refresh
callback of its first screen (the dashboard's `_start_initial_panes`, the bare
app's `call_after_refresh` from `on_mount`): the moment the first frame has been
drawn and the keys reach the pane. Then the process exits. CPU time is the
process's own `process_time()` (interpreter start-up included), so a busy
neighbour on the shared machine moves it far less than the wall clock, which
`startup.py` measures from outside through tmux.

    python bench/first_frame.py [--runs 7] [--callgrind] [--tree NAME=DIR ...]

`--callgrind` runs every launch under `valgrind --tool=callgrind` and reports
the instructions executed up to the first frame (the process exits there):
a count no neighbour on the machine moves, for comparing trees (slow: ~20 s
a launch).

`--tree` as in `startup.py` (DIR holds `zirv_dash`, `screens`, `widgets`, and
`keymaps`, first on PYTHONPATH); without it the installed tree is measured.
The goal of issue 33: CPU and wall ≤ 1.3x the bare Textual app's.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

GOAL = 1.3
TIMEOUT = 60.0
"""Seconds a launch may take to its first frame (more under valgrind)."""
FLOOR = "bare Textual"
_ZIRV = """\
import sys, time
sys.argv[0] = "zirv"
def report():
    import json
    cpu = time.process_time()
    with open({out!r}, "w") as f:
        json.dump({{"cpu": cpu, "at": time.time(), "modules": sorted(sys.modules)}}, f)
class Hook:
    # Wraps the dashboard screen's after-first-frame callback once the module is
    # loaded (where the UI loads it, so the import order is the real one). Not
    # an importlib.abc.MetaPathFinder: importing that loads importlib.resources.
    def find_spec(self, name, path=None, target=None):
        if name != "screens.dashboard":
            return None
        sys.meta_path.remove(self)
        import importlib.util
        spec = importlib.util.find_spec(name)
        load = spec.loader.exec_module
        def exec_module(module):
            load(module)
            original = module.DashboardScreen._start_initial_panes
            def first_frame(screen):
                report()
                original(screen)
                screen.app.exit(0)
            module.DashboardScreen._start_initial_panes = first_frame
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, Hook())
from zirv_dash.cli.main import main
sys.exit(main(["chat", "--agent", "demo"]))
"""
_BARE = """\
import os, sys, time
os.environ.setdefault("TEXTUAL_FPS", "240")
from textual.app import App
from textual.widgets import Static
def report():
    import json
    cpu = time.process_time()
    with open({out!r}, "w") as f:
        json.dump({{"cpu": cpu, "at": time.time(), "modules": sorted(sys.modules)}}, f)
class Floor(App[None]):
    def compose(self):
        yield Static("floor · 1 session")
    def on_mount(self):
        self.call_after_refresh(self.first_frame)
    def first_frame(self):
        report()
        self.exit()
Floor().run()
"""


def launch(root: Path, script: str, tree: str | None, callgrind: bool = False) -> dict[str, float]:
    """One launch on a private PTY: its figures at the first frame (with
    `callgrind`, also `instructions`: the count up to that frame)."""
    base = Path(tempfile.mkdtemp(dir=root))
    repo = base / "repo"
    (repo / ".git").mkdir(parents=True)
    out = base / "first-frame.json"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(base / "home"),
        "ZIRV_HOME": str(base / "home" / ".zirv"),
        "ZIRV_CTX_STATE_DIR": str(base / "state"),
        "TERM": "xterm-256color",
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "SHELL": "/bin/sh",
    }
    if tree is not None:
        env["PYTHONPATH"] = tree
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    argv = [sys.executable, "-c", script.format(out=str(out))]
    if callgrind:
        # Exits at the first frame, so the count stops there (callgrind writes
        # it as the process ends); the children it starts run natively.
        argv[-1] = argv[-1].replace(", f)\n", ", f)\n    import os; os._exit(0)\n", 1)
        argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={base}/cg.out", *argv]
    start = time.time()
    child = subprocess.Popen(
        argv,
        cwd=repo,
        env=env,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        start_new_session=True,
    )
    os.close(follower)
    deadline = time.monotonic() + (TIMEOUT * 10 if callgrind else TIMEOUT)
    try:
        while child.poll() is None and time.monotonic() < deadline:
            if select.select([leader], [], [], 0.1)[0]:
                try:
                    os.read(leader, 65536)
                except OSError:
                    break
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(leader)
    if not out.exists():
        sys.exit("a launch never drew its first frame")
    found = json.loads(out.read_text())
    ours = [m for m in found["modules"] if m.split(".")[0] in ("zirv_dash", "screens", "widgets")]
    counted = float("nan")
    if callgrind:
        for line in (base / "cg.out").read_text(errors="replace").splitlines():
            if line.startswith(("summary:", "totals:")):
                counted = float(line.split()[1])
                break
    return {
        "instructions": counted,
        "cpu": found["cpu"],
        "wall": found["at"] - start,
        "modules": len(found["modules"]),
        "ours": len(ours),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--callgrind", action="store_true", help="count instructions (slow)")
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=DIR")
    args = parser.parse_args()
    trees: list[tuple[str, str | None]] = [("zirv", None)]
    if args.tree:
        trees = []
        for spec in args.tree:
            name, _, directory = spec.partition("=")
            if not (Path(directory) / "zirv_dash").is_dir():
                sys.exit(f"--tree {spec!r}: expected NAME=DIR with DIR/zirv_dash in it")
            trees.append((name, str(Path(directory).resolve())))
    figures: dict[str, list[dict[str, float]]] = {name: [] for name, _ in [*trees, (FLOOR, None)]}
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="zirv-first-frame-") as tmp:
        root = Path(tmp)
        for _, tree in trees:
            launch(root, _ZIRV, tree)  # warm-up: disk caches, .pyc files
        launch(root, _BARE, None)
        grind = args.callgrind
        for _ in range(args.runs):
            for name, tree in trees:
                figures[name].append(launch(root, _ZIRV, tree, grind))
            figures[FLOOR].append(launch(root, _BARE, None, grind))
    print(
        f"the UI's own first frame, 120x40 PTY, median of {args.runs}, "
        f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{'':<16}{'cpu s':>8}{'wall s':>8}{'modules':>9}{'ours':>6}{'cpu x':>7}{'wall x':>8}  met"
    )
    floor = {k: statistics.median(f[k] for f in figures[FLOOR]) for k in ("cpu", "wall")}
    for name, runs in figures.items():
        mid = {k: statistics.median(f[k] for f in runs) for k in ("cpu", "wall", "modules", "ours")}
        cpu_x, wall_x = mid["cpu"] / floor["cpu"], mid["wall"] / floor["wall"]
        met = "–" if name == FLOOR else ("yes" if max(cpu_x, wall_x) <= GOAL else "no")
        print(
            f"{name:<16}{mid['cpu']:>8.3f}{mid['wall']:>8.3f}{mid['modules']:>9.0f}"
            f"{mid['ours']:>6.0f}{cpu_x:>6.2f}x{wall_x:>7.2f}x  {met}"
        )
    if args.callgrind:
        # Under valgrind the CPU and wall columns above are valgrind's, not the app's.
        base = statistics.median(f["instructions"] for f in figures[FLOOR])
        for name, runs in figures.items():
            mid = statistics.median(f["instructions"] for f in runs)
            print(
                f"{name:<16}{mid / 1e9:>8.3f} G instructions to the first frame{mid / base:>7.2f}x"
            )
    print(f"goal: cpu and wall <= {GOAL}x the bare Textual app's")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
