"""Start-up cost: the dashboard's first frame, and one `zirv ctx send`.

(a) `zirv chat --agent demo` in a real tmux pane (a private server, 120x40): the
clock starts just before `tmux new-session` and stops when `capture-pane` first
shows the dashboard's header row. Each run gets a fresh state dir and HOME (a
second launch would offer a restore roster instead of the plain first frame).
(b) `zirv ctx send --message …` to a throwaway state dir and HOME, as a process
start to exit.

    python bench/startup.py [--runs 5] [--sends 10] [--importtime] [--tree NAME=DIR ...]

`--importtime` also prints the heaviest imports of each (`python -X importtime`,
cumulative microseconds, top level packages only).

`--tree NAME=DIR` (repeatable) compares source trees in one run: DIR holds the
`zirv_dash`, `screens` and `widgets` packages to use (put first on PYTHONPATH,
e.g. an export of an older commit: `git archive <commit> zirv_dash screens
widgets keymaps | tar -x -C /tmp/old`); the runs alternate between the trees,
so a busy neighbour slows every tree alike. Compare the CPU columns.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from procstat import cpu_seconds

SERVER = "startupbench"
COLS, ROWS = 120, 40
HEADER = re.compile(r"zirv · \d+ session")
"""The header's first words: drawn with the first frame (the opening frame)."""
UI_FOOTER = re.compile(r" pid \d+ ")
"""The footer's pid of the pane: drawn by the UI's own first frame only."""
FLOOR_HEADER = re.compile(r"floor · \d+ session")
FLOOR_APP = """\
from textual.app import App
from textual.widgets import Static
class Floor(App[None]):
    def compose(self):
        yield Static("floor · 1 session")
Floor().run()
"""
"""A bare Textual app drawing one header-like line: what the UI toolkit alone
costs to a first frame on this machine."""
FIRST_FRAME_TARGET = 0.5
SEND_TARGET = 0.080
POLL = 0.005
"""capture-pane interval; each capture itself costs a few ms of tmux client."""
FRAME_TIMEOUT = 20.0
FLOOR = "floor"
VENV_BIN = Path(sys.executable).parent
LAUNCH = (
    "import re, sys; sys.argv[0] = 'zirv'; from zirv_dash.cli.main import main; sys.exit(main())"
)
"""What the venv's `zirv` script runs, for a tree given with `--tree`: pip's
script imports `re` before our code (to tidy argv[0]), so this does too."""


def zirv_binary() -> str:
    found = VENV_BIN / "zirv"
    if not found.exists():
        sys.exit(f"no zirv next to {sys.executable}; run this bench with the venv's python")
    return str(found)


def throwaway(root: Path, name: str) -> tuple[Path, dict[str, str]]:
    """A fresh repo, HOME and state dir under `root`, and the environment for them."""
    base = root / name
    repo = base / "repo"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(base / "home"),
        "ZIRV_HOME": str(base / "home" / ".zirv"),
        "ZIRV_CTX_STATE_DIR": str(base / "state"),
        "TERM": "xterm-256color",
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "SHELL": "/bin/sh",
    }
    return repo, env


def tmux(*args: str) -> str:
    done = subprocess.run(
        ["tmux", "-L", SERVER, *args], capture_output=True, text=True, check=False
    )
    return done.stdout


class Launch:
    """One launch's figures: when the header appeared (the first frame) and when
    the UI's own frame did (its footer names the pane's pid, which only the UI
    knows), each with the CPU seconds the process had used by then."""

    def __init__(self) -> None:
        self.first: tuple[float, float] | None = None
        self.ready: tuple[float, float] | None = None


def first_frame(
    root: Path, run: int, importtime: Path | None = None, tree: str | None = None
) -> Launch:
    """Time a `zirv chat --agent demo` from `new-session` to its first frame and
    to the UI's own frame.

    With `importtime` the run also writes `-X importtime` (stderr) to that file;
    with `tree` the packages come from that directory."""
    repo, env = throwaway(root, f"chat{run}-{time.monotonic_ns()}")
    program = zirv_binary()
    if tree is not None:
        env["PYTHONPATH"] = tree
        program = f"{sys.executable} -c {_quote(LAUNCH)}"
    exports = " ".join(f"{k}={_quote(v)}" for k, v in env.items())
    if importtime is not None:
        program = (
            f"{sys.executable} -X importtime -c {_quote(_LOG_IMPORTS.format(log=str(importtime)))}"
        )
    command = f"cd {_quote(str(repo))} && exec env -i {exports} {program} chat --agent demo"
    return _time_launch(f"run{run}", command, HEADER, UI_FOOTER)


def floor_frame(root: Path, run: int) -> Launch:
    """The same clock on the most trivial Textual app drawing a header-like line."""
    repo, env = throwaway(root, f"floor{run}-{time.monotonic_ns()}")
    exports = " ".join(f"{k}={_quote(v)}" for k, v in env.items())
    program = f"{sys.executable} -c {_quote(FLOOR_APP)}"
    command = f"cd {_quote(str(repo))} && exec env -i {exports} {program}"
    return _time_launch(f"floor{run}", command, FLOOR_HEADER, FLOOR_HEADER)


def _time_launch(name: str, command: str, first: re.Pattern[str], ready: re.Pattern[str]) -> Launch:
    launch = Launch()
    start = time.perf_counter()
    tmux("new-session", "-d", "-x", str(COLS), "-y", str(ROWS), "-s", name, command)
    pid = tmux("display-message", "-p", "-t", name, "#{pane_pid}").strip()
    try:
        while launch.ready is None:
            screen = tmux("capture-pane", "-p", "-t", name)
            took = time.perf_counter() - start
            lines = screen.splitlines() or [""]
            if launch.first is None and first.search(lines[0]):
                launch.first = (took, cpu_seconds(pid))
            if launch.first is not None and ready.search(screen):
                launch.ready = (took, cpu_seconds(pid))
            elif took > FRAME_TIMEOUT:
                sys.exit(f"no frame after {FRAME_TIMEOUT:.0f} s; the pane shows:\n{screen}")
            else:
                time.sleep(POLL)
    finally:
        tmux("kill-session", "-t", name)
        _wait_gone(int(pid) if pid.isdigit() else None)
    return launch


_LOG_IMPORTS = """\
import os, sys
# Textual draws on stderr, where -X importtime also writes: the log gets fd 2 and
# the UI a copy of the terminal.
tty = os.dup(2)
os.dup2(os.open({log!r}, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
sys.stderr = sys.__stderr__ = os.fdopen(tty, "w")
sys.argv[0] = "zirv"
from zirv_dash.cli.main import main
sys.exit(main())
"""


def _wait_gone(pid: int | None, timeout: float = 10.0) -> None:
    """The previous dashboard has exited before the next run starts."""
    if pid is None:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def send_once(repo: Path, env: dict[str, str], tree: str | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one `zirv ctx send`."""
    program = [zirv_binary()]
    if tree is not None:
        env = {**env, "PYTHONPATH": tree}
        program = [sys.executable, "-c", LAUNCH]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [*program, "ctx", "send", "--message", "startup bench note"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if done.returncode != 0:
        sys.exit(f"zirv ctx send failed ({done.returncode}): {done.stderr.strip()}")
    return took, cpu


def top_imports(log: str, count: int = 15) -> list[tuple[int, int, str]]:
    """The costliest imports of an -X importtime log: (cumulative us, depth, name)
    for the outermost two levels (deeper ones are inside these figures)."""
    found = []
    for line in log.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( +)(\S+)", line)
        if match is None:
            continue
        depth = (len(match.group(2)) - 1) // 2
        if depth <= 1:
            found.append((int(match.group(1)), depth, match.group(3)))
    return sorted(found, reverse=True)[:count]


def package_costs(log: str, count: int = 12) -> list[tuple[int, str]]:
    """Self import time of an -X importtime log summed per package (our own
    packages per subpackage: `screens.dashboard`, `zirv_dash.native`), costliest
    first: which libraries a start-up pays for, wherever they are imported."""
    totals: dict[str, int] = {}
    for line in log.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s+(\S+)", line)
        if match is None:
            continue
        parts = match.group(2).split(".")
        group = ".".join(parts[:2]) if parts[0] in ("zirv_dash", "screens", "widgets") else parts[0]
        totals[group] = totals.get(group, 0) + int(match.group(1))
    return sorted(((us, name) for name, us in totals.items()), reverse=True)[:count]


def send_importtime(root: Path) -> str:
    repo, env = throwaway(root, "send-importtime")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", zirv_binary(), "ctx", "send", "--message", "x"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stderr


def chat_importtime(root: Path) -> str:
    log = root / "chat-importtime.log"
    first_frame(root, 99, importtime=log)
    return log.read_text() if log.exists() else ""


def python_floor(count: int = 5) -> float:
    """Seconds for the venv's bare interpreter to start and exit (`-c pass`)."""
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def parse_trees(specs: list[str]) -> list[tuple[str, str | None]]:
    """`NAME=DIR` specs as (name, dir); no spec: the installed `zirv` alone."""
    if not specs:
        return [("", None)]
    trees: list[tuple[str, str | None]] = []
    for spec in specs:
        name, sep, directory = spec.partition("=")
        if not sep or not name or not (Path(directory) / "zirv_dash").is_dir():
            sys.exit(f"--tree {spec!r}: expected NAME=DIR with DIR/zirv_dash in it")
        trees.append((name, str(Path(directory).resolve())))
    return trees


def measure(
    root: Path, trees: list[tuple[str, str | None]], runs: int, sends: int
) -> tuple[dict[str, list[Launch]], dict[str, list[tuple[float, float]]]]:
    """First frames and sends per tree, alternating between the trees (and the
    Textual floor, under the name "floor")."""
    frames: dict[str, list[Launch]] = {name: [] for name, _ in trees}
    frames[FLOOR] = []
    sent: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in trees}
    tmux("kill-server")
    # The server and a holder session first, so no run pays for the server start.
    tmux("new-session", "-d", "-x", str(COLS), "-y", str(ROWS), "-s", "hold", "cat")
    try:
        for _, tree in trees:
            first_frame(root, 0, tree=tree)  # warm-up: disk caches, .pyc files
        floor_frame(root, 0)
        for i in range(runs):
            for name, tree in trees:
                frames[name].append(first_frame(root, i + 1, tree=tree))
            frames[FLOOR].append(floor_frame(root, i + 1))
    finally:
        tmux("kill-server")
    targets = {name: (*throwaway(root, f"send-{index}"), tree) for index, (name, tree) in
               enumerate(trees)}  # fmt: skip
    for repo, env, tree in targets.values():
        send_once(repo, env, tree)  # warm-up
    for _ in range(sends):
        for name, (repo, env, tree) in targets.items():
            sent[name].append(send_once(repo, env, tree))
    return frames, sent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="dashboard launches (median)")
    parser.add_argument("--sends", type=int, default=10, help="zirv ctx send runs (median)")
    parser.add_argument("--importtime", action="store_true", help="also list import costs")
    parser.add_argument(
        "--tree", action="append", default=[], metavar="NAME=DIR", help="compare source trees"
    )
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is not on PATH")
    trees = parse_trees(args.tree)
    with tempfile.TemporaryDirectory(prefix="zirv-startup-") as tmp:
        root = Path(tmp)
        load_before = os.getloadavg()[0]
        frames, sends = measure(root, trees, args.runs, args.sends)
        log = ""
        if args.importtime:
            tmux("new-session", "-d", "-x", str(COLS), "-y", str(ROWS), "-s", "hold", "cat")
            try:
                log = chat_importtime(root)
            finally:
                tmux("kill-server")
        floor = python_floor()
        load = f"load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}"
        print(f"start-up, {COLS}x{ROWS} tmux pane, {os.cpu_count()} cores, {load} (s = seconds)")
        print(f"{'figure':<38}{'median':>9}{'min':>9}{'max':>9}{'target':>9}  met{'cpu':>8}")
        for name, _ in trees:
            tag = f" [{name}]" if name else ""
            first = f"first frame, zirv chat --agent demo x{args.runs}{tag}"
            print_row(
                first, [launch.first for launch in frames[name] if launch.first], FIRST_FRAME_TARGET
            )
            ready = [launch.ready for launch in frames[name] if launch.ready]
            print_row(f"  the UI's own first frame{tag}", ready, None)
            print_row(f"zirv ctx send x{args.sends}{tag}", sends[name], SEND_TARGET)
        floors = [launch.first for launch in frames[FLOOR] if launch.first]
        print_row("bare Textual app, first frame (floor)", floors, None)
        print(f"{'python -c pass (floor)':<38}{floor:>8.3f}s")
        if args.importtime:
            for title, text in (("zirv chat", log), ("zirv ctx send", send_importtime(root))):
                print(
                    f"\nheaviest imports, {title} (cumulative ms; indented: imported by the above)"
                )
                for us, depth, name in top_imports(text):
                    print(f"  {us / 1000:8.1f}  {'  ' * depth}{name}")
                grouped = ", ".join(f"{name} {us / 1000:.0f}" for us, name in package_costs(text))
                print(f"  self time by package, ms: {grouped}")
    return 0


def print_row(label: str, timed: list[tuple[float, float]], target: float | None) -> None:
    samples = [wall for wall, _ in timed]
    cpu = statistics.median(c for _, c in timed)
    mid = statistics.median(samples)
    goal, met = (
        ("–", "–") if target is None else (f"{target:.3f}s", "yes" if mid <= target else "no")
    )
    print(
        f"{label:<38}{mid:>8.3f}s{min(samples):>8.3f}s{max(samples):>8.3f}s"
        f"{goal:>9}  {met:<3}{cpu:>7.3f}s"
    )


if __name__ == "__main__":
    raise SystemExit(main())
