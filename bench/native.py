"""Typing in a native pane with a long transcript, against the PTY panes' idle bar.

The dashboard runs with a native first pane whose journal already holds 2,000
transcript items (1,000 exchanges, replayed at start: the pane keeps the newest
500 on screen with one "older items elided" marker, as the spec bounds it). A
glyph is typed into the composer and the clock stops when it is drawn back to the
terminal (bench/ptyterm.py, the same method as bench/latency.py). The bar is the
same measurement in an ordinary dashboard whose shell pane runs `cat`. Both run
at once and take turns key by key, so a busy machine skews neither alone.

    python bench/native.py [--keys 200] [--gap-ms 40]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
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
    from zirv_dash import adapters, outer_terminal, paths
    from zirv_dash.config import load_adapter_gate, load_settings
    from zirv_dash.keymap import load_keymap
    from zirv_dash.launch import LaunchOptions

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


def pty_key(term: PtyTerminal, i: int) -> float | None:
    """One glyph into the shell pane running `cat`; ms until it is drawn."""
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
    argv = [sys.executable, "-m", "zirv_dash.cli", "chat", "--agent", "shell"]
    old = os.getcwd()
    os.chdir(repo)
    term = PtyTerminal(argv, latency.COLS, latency.ROWS, env)
    os.chdir(old)
    term.read_for(3.0)
    term.write(b"cat\r")
    term.read_for(0.5)
    return term


def run_both(keys: int, tmp: Path) -> tuple[list[float], list[float]]:
    """Both dashboards run at once and take turns, one key each: whatever else
    loads the machine meanwhile weighs on both measurements alike."""
    (tmp / "n").mkdir()
    (tmp / "p").mkdir()
    native = start_native(tmp / "n")
    try:
        bar = start_pty(tmp / "p")
        try:
            ours: list[float] = []
            theirs: list[float] = []
            for i in range(keys):
                for term, measure, out in ((native, composer_key, ours), (bar, pty_key, theirs)):
                    took = measure(term, i)
                    if took is not None:
                        out.append(took)
            return ours, theirs
        finally:
            bar.close()
    finally:
        native.close()


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
        native, bar = run_both(args.keys, Path(tmpdir))
    print(
        f"key-to-glyph latency, {args.keys} keys, one every {args.gap_ms:.0f} ms, "
        f"{latency.COLS}x{latency.ROWS} (ms)"
    )
    print(f"{'where':<44}{'p50':>8}{'p99':>8}{'lost':>6}")
    for name, values in (
        (f"native composer, {ITEMS}-item transcript", native),
        ("PTY pane idle (shell running cat)", bar),
    ):
        p50 = percentile(values, 50) if values else float("nan")
        p99 = percentile(values, 99) if values else float("nan")
        print(f"{name:<44}{p50:8.1f}{p99:8.1f}{args.keys - len(values):>6}")
    if native and bar:
        ratio50 = percentile(native, 50) / percentile(bar, 50)
        ratio99 = percentile(native, 99) / percentile(bar, 99)
        print(f"native over the PTY idle bar: p50 {ratio50:.2f}x, p99 {ratio99:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
