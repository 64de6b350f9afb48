"""Record the fidelity corpus: real programs' output and tmux's screen of it.

For every scenario below this script

1. runs the program on a fresh PTY of a known size (TERM=xterm-256color,
   a throw-away HOME), types the scripted keys with pauses, and records every
   byte the program writes.  While recording, a ``TerminalModel`` plays the
   terminal: its query answers (DA, CPR, OSC 10/11 ...) are written back, as
   the dashboard would do, so programs that wait for them (Codex, Ink apps)
   get going;
2. replays the recorded bytes into a detached tmux pane of the same size
   (``stty -echo -opost; cat stream`` so the pane's tty passes them through
   untouched and tmux's own query answers are not echoed) and saves
   ``tmux capture-pane -p`` plus the cursor position as the expected screen.

Output goes to ``tests/terminal/data/<name>.bin`` (the stream) and
``<name>.json`` (size; expected rows and cursor at every checkpoint; tmux's
styled capture, ``capture-pane -p -e -N``, of the final screen).
``test_fidelity.py`` replays the streams into ``TerminalModel`` and compares;
tmux is only needed here.

    python tests/terminal/regen_fidelity.py [--only NAME ...] [--list] [--styled-only]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

from tests.terminal.fidelity_scenarios import Scenario, scenarios  # noqa: E402
from zirv_dash.terminal import TerminalModel  # noqa: E402

# -- recording ---------------------------------------------------------------------


def record(sc: Scenario, home: Path) -> tuple[bytes, list[int]]:
    """Run the scenario; return the output and the stream offsets at which
    keys were typed (the program was waiting there: good checkpoints)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", sc.rows, sc.cols, 0, 0))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "COLUMNS": str(sc.cols),
        "LINES": str(sc.rows),
        "GIT_PAGER": "cat",
        "PAGER": "less",
        **sc.env,
    }
    proc = subprocess.Popen(
        sc.argv,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=str(home),
        start_new_session=True,
        preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
    )
    os.close(slave)
    model = TerminalModel(sc.cols, sc.rows)
    out = bytearray()
    start = time.monotonic()
    keys = list(sc.keys)
    next_at = start + (keys[0][0] if keys else 0)
    last_data = time.monotonic()
    marks: list[int] = []
    try:
        while True:
            now = time.monotonic()
            if now - start > sc.max_time:
                break
            if not keys and now - last_data > sc.settle:
                break
            if keys and now >= next_at:
                _, data = keys.pop(0)
                if out and (not marks or marks[-1] != len(out)):
                    marks.append(len(out))
                if data:
                    os.write(master, data)
                next_at = now + (keys[0][0] if keys else 0)
                last_data = now
            r, _, _ = select.select([master], [], [], 0.05)
            if r:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
                model.feed(chunk)
                reply = model.take_replies()
                if reply:
                    os.write(master, reply)
                last_data = time.monotonic()
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        os.close(master)
    return bytes(out), marks


# -- tmux reference -------------------------------------------------------------------


def tmux_screen(
    stream: Path, cols: int, rows: int, styled: bool = False
) -> tuple[list[str], tuple[int, int]]:
    """tmux's screen for ``stream``: ``capture-pane -p`` rows (or, with
    ``styled``, ``capture-pane -p -e -N``: every cell, SGR included) and the
    cursor."""
    sock = f"zirv-fid-{os.getpid()}-{time.monotonic_ns()}"
    conf = stream.with_suffix(".tmux.conf")
    conf.write_text("set -g status off\nset -g history-limit 10000\n")
    base = ["tmux", "-L", sock, "-f", str(conf)]
    cmd = f"stty -echo -opost -icanon; cat '{stream}'; tmux -L {sock} wait-for -S done; sleep 600"
    subprocess.run(
        base + ["new-session", "-d", "-x", str(cols), "-y", str(rows), cmd],
        check=True,
        env={**os.environ, "TERM": "xterm-256color"},
    )
    try:
        subprocess.run(base + ["wait-for", "done"], check=True, timeout=60)
        time.sleep(0.3)  # let tmux parse the tail of the stream
        size = subprocess.run(
            base + ["display", "-p", "#{pane_width}x#{pane_height}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        assert size == f"{cols}x{rows}", size
        flags = ["-p", "-e", "-N"] if styled else ["-p"]
        screen = subprocess.run(
            base + ["capture-pane", *flags], check=True, capture_output=True
        ).stdout.decode("utf-8", "replace")
        cur = subprocess.run(
            base + ["display", "-p", "#{cursor_x},#{cursor_y}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    finally:
        subprocess.run(base + ["kill-server"], check=False, stderr=subprocess.DEVNULL)
        conf.unlink(missing_ok=True)
    lines = screen.split("\n")[:rows]
    lines += [""] * (rows - len(lines))
    cx, cy = (int(v) for v in cur.split(","))
    if styled:
        return lines, (cx, cy)
    return [ln.rstrip(" ") for ln in lines], (cx, cy)


def add_styled(names: list[str]) -> None:
    """Store tmux's styled capture of each recording's final screen (the
    attribute check in test_fidelity.py) without re-recording."""
    for meta_path in sorted(DATA.glob("*.json")):
        if names and not any(n in meta_path.stem for n in names):
            continue
        meta = json.loads(meta_path.read_text())
        stream = meta_path.with_suffix(".bin")
        styled, _ = tmux_screen(stream, meta["cols"], meta["rows"], styled=True)
        meta["final_styled"] = styled
        meta_path.write_text(json.dumps(meta, ensure_ascii=False, indent=0) + "\n")
        print(f"{meta_path.stem}: styled capture stored")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    ap.add_argument(
        "--styled-only", action="store_true", help="only (re)capture the styled final screens"
    )
    args = ap.parse_args()
    DATA.mkdir(exist_ok=True)
    if args.styled_only:
        add_styled(args.only)
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for sc in scenarios(work):
            if args.list:
                print(sc.name)
                continue
            if args.only and not any(o in sc.name for o in args.only):
                continue
            if sc.needs and shutil.which(sc.needs) is None:
                print(f"skip {sc.name}: {sc.needs} not installed")
                continue
            home = work / f"home-{sc.name}"
            home.mkdir()
            data, marks = record(sc, home)
            stream = DATA / f"{sc.name}.bin"
            stream.write_bytes(data)
            checkpoints = []
            for off in marks:
                part = work / "prefix.bin"
                part.write_bytes(data[:off])
                lines, cursor = tmux_screen(part, sc.cols, sc.rows)
                checkpoints.append({"offset": off, "cursor": cursor, "lines": lines})
            lines, cursor = tmux_screen(stream, sc.cols, sc.rows)
            checkpoints.append({"offset": len(data), "cursor": cursor, "lines": lines})
            styled, _ = tmux_screen(stream, sc.cols, sc.rows, styled=True)
            (DATA / f"{sc.name}.json").write_text(
                json.dumps(
                    {
                        "cols": sc.cols,
                        "rows": sc.rows,
                        "argv": sc.argv[:1],
                        "checkpoints": checkpoints,
                        "final_styled": styled,
                    },
                    ensure_ascii=False,
                    indent=0,
                )
                + "\n"
            )
            print(f"{sc.name}: {len(data)} bytes, {sum(1 for ln in lines if ln)} non-empty rows")


if __name__ == "__main__":
    main()
