"""Typing in a native pane with a long transcript, against the PTY panes' idle bar.

The dashboard runs with a native first pane whose journal already holds 2,000
transcript items (1,000 exchanges, replayed at start: the pane keeps the newest
500 on screen with one "older items elided" marker, as the spec bounds it). A
glyph is typed into the composer and the clock stops when it is drawn back to the
terminal (bench/ptyterm.py, the same method as bench/latency.py). The bar is the
same measurement in an ordinary dashboard whose shell pane runs `cat`, and a
third column is the Textual floor (bench/echo_app.py, as in bench/latency.py):
the PTY panes' idle bar is p50 <= 1.1x and p99 <= 1.25x that floor. All three run
at once and take turns key by key, so a busy machine skews none alone. The CPU
column is the app process's own user+system time over the typing, per key: it
does not move with a busy neighbour as wall-clock figures do.

    python bench/native.py [--keys 200] [--gap-ms 40]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import latency  # noqa: E402
from ptyterm import PtyTerminal, percentile  # noqa: E402

SESSION = "be0c4a11-0000-4000-8000-000000000001"
ITEMS = 2000
CLEAR = b"\x15"  # Ctrl+U: the composer drops its draft (no turn is started)


def seed_journal(state: Path) -> None:
    """The native pane's journal (named after its short id) with ITEMS items."""
    os.environ["ZIRV_CTX_STATE_DIR"] = str(state)
    from zirv_dash import paths
    from zirv_dash.native.journal import Journal, journal_path

    journal = Journal(journal_path(paths.short_id(SESSION)))
    for n in range(ITEMS // 2):
        journal.append("input", id=f"in-{n}", text=f"question {n}: what does step {n} do?")
        journal.append(
            "assistant",
            id=f"m-{n}",
            text=f"Step {n} reads the config, checks `item {n}` and writes a short report.",
        )
    journal.close()


def serve() -> int:
    """The child: `zirv chat --runtime native`, with the pane's session id pinned
    so it opens the seeded journal."""
    # Before Textual is imported (it reads the frame rate once), as `zirv chat` does.
    os.environ.setdefault("TEXTUAL_FPS", "240")
    from screens.app import run_dashboard
    from zirv_dash import outer_terminal, paths
    from zirv_dash.cli.launch import LaunchOptions
    from zirv_dash.config.layers import load_adapter_gate, load_settings
    from zirv_dash.harnesses import adapters
    from zirv_dash.keymap import load_keymap

    repo = paths.repo_root()
    settings = load_settings(repo)
    options = LaunchOptions(
        repo=repo,
        settings=settings,
        keymap=load_keymap(settings.dash.keymap),
        gate=load_adapter_gate(repo, adapters.names()),
        agent="native",
        agent_reason="configured",
        session_ids=[SESSION],
        spinner=settings.dash.animated,
        outer=outer_terminal.probe(settings.dash.truecolor),
        manage_state=False,
    )
    return run_dashboard(options)


def composer_key(term: PtyTerminal, i: int) -> float | None:
    """One glyph into the native composer; ms until it is drawn (None: lost)."""
    term.read_for(latency.GAP)
    glyph = latency.GLYPHS[i % latency.PER_LINE]
    term.write(glyph.encode())
    took = term.wait_for(glyph.encode(), timeout=2.0)
    if i % latency.PER_LINE == latency.PER_LINE - 1:
        term.write(CLEAR)
        term.read_for(0.1)
    return None if took is None else took * 1000


def line_key(term: PtyTerminal, i: int) -> float | None:
    """One glyph into a line-echoing app (the shell pane running `cat`, the
    Textual floor); ms until it is drawn."""
    term.read_for(latency.GAP)
    glyph = latency.GLYPHS[i % latency.PER_LINE]
    term.write(glyph.encode())
    took = term.wait_for(glyph.encode(), timeout=2.0)
    if i % latency.PER_LINE == latency.PER_LINE - 1:
        term.write(b"\r")
        term.read_for(0.05)
    return None if took is None else took * 1000


def start_native(tmp: Path) -> PtyTerminal:
    repo = tmp / "repo"
    repo.mkdir()
    state = tmp / "state"
    seed_journal(state)
    env = latency.base_env(state)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    old = os.getcwd()
    os.chdir(repo)
    term = PtyTerminal([sys.executable, __file__, "--serve"], latency.COLS, latency.ROWS, env)
    os.chdir(old)
    if term.wait_for(b"older item", timeout=30.0) is None:
        term.close()
        raise SystemExit("the native pane never showed its replayed transcript")
    term.read_for(1.0)
    return term


def start_pty(tmp: Path) -> PtyTerminal:
    repo = tmp / "repo"
    repo.mkdir()
    env = latency.base_env(tmp / "state")
    argv = [sys.executable, "-m", "zirv_dash.cli.main", "chat", "--agent", "shell"]
    old = os.getcwd()
    os.chdir(repo)
    term = PtyTerminal(argv, latency.COLS, latency.ROWS, env)
    os.chdir(old)
    term.read_for(3.0)
    term.write(b"cat\r")
    term.read_for(0.5)
    return term


def start_floor() -> PtyTerminal:
    env = latency.base_env(Path(tempfile.gettempdir()))
    argv = [sys.executable, str(Path(__file__).resolve().parent / "echo_app.py")]
    term = PtyTerminal(argv, latency.COLS, latency.ROWS, env)
    term.read_for(2.0)
    return term


def cpu_seconds(pid: int) -> float:
    """User + system time of one process so far (its own, not its children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


Measure = Callable[[PtyTerminal, int], "float | None"]


class Column:
    def __init__(self, name: str, term: PtyTerminal, measure: Measure) -> None:
        self.name, self.term, self.measure = name, term, measure
        self.took: list[float] = []
        self.cpu = 0.0


def run_all(keys: int, tmp: Path) -> list[Column]:
    """The three apps run at once and take turns, one key each: whatever else
    loads the machine meanwhile weighs on every measurement alike."""
    (tmp / "n").mkdir()
    (tmp / "p").mkdir()
    with contextlib.ExitStack() as stack:
        native = start_native(tmp / "n")
        stack.callback(native.close)
        bar = start_pty(tmp / "p")
        stack.callback(bar.close)
        floor = start_floor()
        stack.callback(floor.close)
        columns = [
            Column(f"native composer, {ITEMS}-item transcript", native, composer_key),
            Column("PTY pane idle (shell running cat)", bar, line_key),
            Column("Textual floor (bench/echo_app.py)", floor, line_key),
        ]
        start = [cpu_seconds(c.term.pid) for c in columns]
        for i in range(keys):
            for column in columns:
                took = column.measure(column.term, i)
                if took is not None:
                    column.took.append(took)
        for column, before in zip(columns, start, strict=True):
            column.cpu = cpu_seconds(column.term.pid) - before
        return columns


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--gap-ms", type=float, default=40.0, help="pause between keys")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve()
    latency.GAP = args.gap_ms / 1000
    with tempfile.TemporaryDirectory() as tmpdir:
        native, bar, floor = run_all(args.keys, Path(tmpdir))
    print(
        f"key-to-glyph latency, {args.keys} keys, one every {args.gap_ms:.0f} ms, "
        f"{latency.COLS}x{latency.ROWS} (ms; CPU: the app's own, per key)"
    )
    print(f"{'where':<44}{'p50':>8}{'p99':>8}{'lost':>6}{'CPU ms':>8}")
    for column in (native, bar, floor):
        values = column.took
        p50 = percentile(values, 50) if values else float("nan")
        p99 = percentile(values, 99) if values else float("nan")
        cpu = column.cpu * 1000 / args.keys
        print(f"{column.name:<44}{p50:8.1f}{p99:8.1f}{args.keys - len(values):>6}{cpu:8.2f}")
    for other, label in ((bar, "the PTY pane"), (floor, "the Textual floor")):
        if native.took and other.took:
            ratio50 = percentile(native.took, 50) / percentile(other.took, 50)
            ratio99 = percentile(native.took, 99) / percentile(other.took, 99)
            print(f"native over {label}: p50 {ratio50:.2f}x, p99 {ratio99:.2f}x")
    if bar.took and floor.took:
        ratio50 = percentile(bar.took, 50) / percentile(floor.took, 50)
        ratio99 = percentile(bar.took, 99) / percentile(floor.took, 99)
        print(f"PTY pane over the Textual floor: p50 {ratio50:.2f}x, p99 {ratio99:.2f}x")
    print("the PTY idle bar: p50 <= 1.10x, p99 <= 1.25x the Textual floor")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
