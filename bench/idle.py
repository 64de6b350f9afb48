"""Idle cost: CPU of the dashboard process tree with 9 idle panes over 30 s, and its
memory — next to tmux holding the same 9 idle shells, and to the bare Textual
app (`echo_app.py`, no panes) whose main-process RSS is the floor of issue 33's
goal: the dashboard's main RSS ≤ 1.25x it.

    python bench/idle.py [--seconds 30] [--panes 9]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency import base_env  # noqa: E402
from ptyterm import PtyTerminal  # noqa: E402

CLK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
RSS_GOAL = 1.25
"""Issue 33: the dashboard's main-process RSS with 9 idle panes, at most this
times the bare Textual app's."""


def tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def cpu_ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1])
        except OSError:
            continue
    return total * PAGE / 1e6


def wakeups(pid: int) -> int:
    """Voluntary context switches of every thread of `pid`: each is one sleep
    that something ended (a timer, a poll timeout, an fd turning readable)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            status = (task / "status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                total += int(line.split()[1])
    return total


Sample = tuple[float, float, float, float]
"""CPU % of a core, RSS main MB, RSS tree MB, wake-ups a second of the main process."""


def sample(root: int, seconds: float) -> Sample:
    pids = tree(root)
    before = cpu_ticks(pids)
    woke = wakeups(root)
    start = time.monotonic()
    time.sleep(seconds)
    elapsed = time.monotonic() - start
    pids = tree(root)
    used = (cpu_ticks(pids) - before) / CLK
    rate = (wakeups(root) - woke) / elapsed
    main_rss = rss_mb([root])
    return 100 * used / elapsed, main_rss, rss_mb(pids), rate


def dashboard(panes: int, seconds: float, tmp: Path) -> Sample:
    repo = tmp / "repo"
    repo.mkdir()
    argv = [sys.executable, "-m", "zirv_dash.cli.main", "chat", "--agent", "shell"]
    argv += ["--pane", "shell"] * (panes - 1)
    old = os.getcwd()
    os.chdir(repo)
    term = PtyTerminal(argv, 120, 40, base_env(tmp / "state"))
    os.chdir(old)
    try:
        # Let every pane settle past the idle threshold (10 s of quiet output).
        term.read_for(12.0)
        import threading

        result: list[Sample] = []
        reader = threading.Thread(target=lambda: term.read_for(seconds + 1), daemon=True)
        reader.start()
        result.append(sample(term.pid, seconds))
        reader.join()
        return result[0]
    finally:
        term.close()


def bare_textual(seconds: float, tmp: Path) -> Sample:
    """The bare Textual app of `echo_app.py`, idle on the same terminal size:
    what the UI toolkit alone holds in memory."""
    app = str(Path(__file__).resolve().parent / "echo_app.py")
    term = PtyTerminal([sys.executable, app], 120, 40, base_env(tmp / "state"))
    try:
        term.read_for(2.0)
        import threading

        reader = threading.Thread(target=lambda: term.read_for(seconds + 1), daemon=True)
        reader.start()
        measured = sample(term.pid, seconds)
        reader.join()
        return measured
    finally:
        term.close()


def tmux(panes: int, seconds: float, tmp: Path) -> Sample | None:
    if shutil.which("tmux") is None:
        return None
    sock = f"zirv-idle-{os.getpid()}"
    env = base_env(tmp / "state")
    env["TMUX_TMPDIR"] = str(tmp)
    term = PtyTerminal(
        ["tmux", "-L", sock, "-f", "/dev/null", "new-session", "-x", "120", "-y", "40", "sh"],
        120,
        40,
        env,
    )
    try:
        term.read_for(1.0)
        for _ in range(panes - 1):
            subprocess.run(["tmux", "-L", sock, "new-window", "-d", "sh"], env=env, check=False)
        term.read_for(2.0)
        server = subprocess.run(
            ["tmux", "-L", sock, "display", "-p", "#{pid}"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        import threading

        reader = threading.Thread(target=lambda: term.read_for(seconds + 1), daemon=True)
        reader.start()
        # The tmux server does the work (the client only relays); its tree holds
        # the shells, like the dashboard's.
        measured = sample(int(server), seconds)
        reader.join()
        return measured
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], env=env, check=False)
        term.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--panes", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        (tmp / "d").mkdir()
        (tmp / "t").mkdir()
        (tmp / "b").mkdir()
        ours = dashboard(args.panes, args.seconds, tmp / "d")
        theirs = tmux(args.panes, args.seconds, tmp / "t")
        bare = bare_textual(min(args.seconds, 10.0), tmp / "b")
    print(f"idle cost, {args.panes} idle shell panes, {args.seconds:.0f} s")
    heads = f"{'CPU % of a core':>18}{'RSS main MB':>14}{'RSS tree MB':>14}{'wake-ups/s':>12}"
    print(f"{'':<8}{heads}")
    for name, row in (("zirv", ours), ("tmux", theirs), ("textual", bare)):
        if row is not None:
            print(f"{name:<8}{row[0]:>18.2f}{row[1]:>14.1f}{row[2]:>14.1f}{row[3]:>12.1f}")
    ratio = ours[1] / bare[1]
    met = "yes" if ratio <= RSS_GOAL else "no"
    print(
        f"main RSS vs the bare Textual app (textual: echo_app.py, no panes): "
        f"{ratio:.2f}x (goal <= {RSS_GOAL}x: {met})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
