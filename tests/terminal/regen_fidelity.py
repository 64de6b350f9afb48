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
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

from zirv_dash.terminal import TerminalModel  # noqa: E402

PY = sys.executable

# A small Textual app with the widgets agents' UIs are made of.
TEXTUAL_APP = r'''
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Footer, Header, Input, Log, Static

class Demo(App):
    CSS = """
    #side { width: 30; border: round $accent; }
    DataTable { height: 1fr; }
    """
    BINDINGS = [("q", "quit", "Quit"), ("d", "toggle_dark", "Dark")]
    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal():
            with Vertical(id="side"):
                yield Static(
                    "[b]Sessions[/b]\n● claude  [green]idle[/]\n● codex   [yellow]working[/]"
                )
                yield Button("Spawn", variant="primary")
            with Vertical():
                yield DataTable()
                yield Log()
                yield Input(placeholder="Type a message…")
        yield Footer()
    def on_mount(self) -> None:
        t = self.query_one(DataTable)
        t.add_columns("pane", "agent", "state", "tokens")
        for i in range(30):
            t.add_row(f"p{i}", ["claude", "codex", "gemini"][i % 3], "idle", f"{i * 1234:,}")
        log = self.query_one(Log)
        for i in range(20):
            log.write_line(f"line {i}: 中文 wide ✓ emoji-free text")
Demo().run()
'''

COLORS_SH = r"""
printf '\033[1;31mbold red\033[0m \033[38;5;208morange256\033[0m '
printf '\033[38;2;10;200;30mtruecolor\033[0m\n'
for i in $(seq 1 12); do printf '\033[3%dmcolour %d\033[0m ' $((i % 8)) $i; done; echo
printf 'a very long line that wraps: '; for i in $(seq 1 60); do printf 'word%d ' $i; done; echo
printf 'wide: 中文字符 テスト 한국어 | combining: e\xcc\x81 a\xcc\x88 | box: ┌─┬─┐\n'
printf 'tabs:\tone\ttwo\tthree\n'
"""


@dataclass
class Scenario:
    name: str
    argv: list[str]
    cols: int
    rows: int
    # (seconds to wait before, bytes to type); "" types nothing
    keys: list[tuple[float, bytes]] = field(default_factory=list)
    settle: float = 1.0  # quiet time that ends the recording
    max_time: float = 20.0
    env: dict[str, str] = field(default_factory=dict)
    needs: str = ""  # executable that must exist


def _bash(cols: int, rows: int, name: str) -> Scenario:
    return Scenario(
        name,
        ["bash", "--norc", "--noprofile", "-i"],
        cols,
        rows,
        keys=[
            (0.5, b"PS1='\\[\\e[1;32m\\]user@host\\[\\e[0m\\]:\\[\\e[34m\\]\\w\\[\\e[0m\\]$ '\r"),
            (0.3, b"cd /usr/share && ls --color=always -F | head -40\r"),
            (0.5, b"bash " + b"$ZIRV_COLORS_SH" + b"\r"),
            (0.5, b"seq 1 30\r"),
            (0.5, b"echo " + b"x" * (cols + 17) + b"\r"),
            (0.3, b"echo partial line edit" + b"\x1b[D" * 5 + b"XY\x01# \r"),
        ],
    )


def scenarios(work: Path) -> list[Scenario]:
    sample = work / "sample.py"
    shutil.copy(REPO / "zirv_dash" / "terminal" / "screen.py", sample)
    app = work / "textual_app.py"
    app.write_text(TEXTUAL_APP)
    colors = work / "colors.sh"
    colors.write_text(COLORS_SH)
    gitlog = (
        f"git -C {REPO} log --graph --color=always --decorate=short "
        "--format='%C(yellow)%h%Creset %s %C(green)(%an)%Creset' -n 80"
    )
    out: list[Scenario] = []
    for cols, rows in ((80, 24), (120, 40), (100, 30)):
        tag = f"{cols}x{rows}"
        if (cols, rows) != (100, 30):
            out.append(_bash(cols, rows, f"bash-{tag}"))
        out.append(
            Scenario(
                f"vim-{tag}",
                ["vim", "-u", "DEFAULTS", "-i", "NONE", "-n", str(sample)],
                cols,
                rows,
                keys=[
                    (1.0, b":set number cursorline\r"),
                    (0.3, b"40G"),
                    (0.3, b"/def \r"),
                    (0.3, b"\x06"),  # page down
                    (0.3, b":vsplit\r"),
                    (0.3, b"ggOinserted: \xe4\xb8\xad\xe6\x96\x87 wide \xe2\x9c\x93\x1b"),
                    (0.3, b":set list\r"),
                    (0.3, b"\x05\x05\x05"),  # scroll down line by line
                    (0.3, b"\x19\x19"),  # and back up
                    (0.3, b"Vjjj"),  # visual selection highlight
                    (0.3, b"\x1b:split\r"),
                    (0.3, b":set nowrap\r50|"),
                    (0.3, b"\x17w:help\r"),
                ],
            )
        )
        out.append(
            Scenario(
                f"less-{tag}",
                ["sh", "-c", f"{gitlog} --patch | less -R"],
                cols,
                rows,
                keys=[
                    (0.8, b" "),
                    (0.3, b" "),
                    (0.3, b"/screen\r"),
                    (0.3, b"n"),
                    (0.3, b"k"),
                    (0.3, b"-S\r"),  # chop long lines
                    (0.3, b"\x1b[C\x1b[C"),  # scroll right
                    (0.3, b"G"),
                    (0.3, b"g"),
                ],
            )
        )
        out.append(
            Scenario(
                f"top-{tag}",
                ["top", "-d", "0.5"],
                cols,
                rows,
                keys=[(1.2, b""), (0.8, b"c"), (0.8, b"")],
                settle=0.2,
                max_time=4.0,
            )
        )
        out.append(Scenario(f"gitlog-{tag}", ["sh", "-c", gitlog], cols, rows))
        out.append(
            Scenario(
                f"python-{tag}",
                [PY, "-q"],
                cols,
                rows,
                keys=[
                    (0.8, b"import sys; print(sys.version_info[:2])\r"),
                    (0.3, b"[i * i for i in range(40)]\r"),
                    (0.3, b"def f(x):\r"),
                    (0.3, b"    return x + 1\r"),
                    (0.3, b"\r"),
                    (0.3, b"f(41); 1/0\r"),
                    (0.3, b"print('\\u4e2d\\u6587', '\\033[35mmagenta\\033[0m')\r"),
                ],
            )
        )
        out.append(
            Scenario(
                f"textual-{tag}",
                [PY, str(app)],
                cols,
                rows,
                keys=[(2.5, b"\t"), (0.5, b"\x1b[B\x1b[B"), (0.5, b"d"), (0.8, b"")],
                env={"COLORTERM": "truecolor"},
                settle=1.0,
            )
        )
    out.append(_bash(100, 30, "bash-100x30"))
    out.append(
        Scenario(
            "vim-quit-100x30",
            ["sh", "-c", f"echo before vim; vim -u DEFAULTS -i NONE -n {sample}; echo after vim"],
            100,
            30,
            keys=[(1.0, b"G"), (0.3, b":q\r")],
        )
    )
    for cols, rows in ((100, 30), (120, 40), (80, 24)):
        tag = f"{cols}x{rows}"
        out.append(
            Scenario(
                f"claude-{tag}",
                ["claude"],
                cols,
                rows,
                keys=[(6.0, b""), (1.0, b"\x1b[B"), (1.0, b"\r"), (1.5, b"")],
                needs="claude",
                settle=1.5,
                max_time=25,
            )
        )
        out.append(
            Scenario(
                f"codex-{tag}",
                ["codex"],
                cols,
                rows,
                keys=[
                    (6.0, b""),
                    (1.0, b"\x1b[B"),
                    (0.8, b"\x1b[B"),
                    (0.8, b"\r"),
                    (1.5, b"sk-not-a-real-key"),
                    (1.0, b"\x1b"),
                    (1.5, b""),
                ],
                needs="codex",
                settle=1.5,
                max_time=30,
            )
        )
        out.append(
            Scenario(
                f"gemini-{tag}",
                ["gemini"],
                cols,
                rows,
                keys=[
                    (8.0, b""),
                    (1.0, b"\x1b[A"),
                    (1.0, b"\r"),
                    (3.0, b"\x1b[B"),
                    (1.0, b"\x1b[B"),
                    (1.0, b"\r"),
                    (2.0, b"hello gemini \xe4\xb8\xad\xe6\x96\x87"),
                    (1.5, b""),
                ],
                needs="gemini",
                settle=1.5,
                max_time=40,
            )
        )
    for cols, rows in ((80, 24), (120, 40)):
        tag = f"{cols}x{rows}"
        out.append(
            Scenario(
                f"htop-{tag}",
                ["htop", "-d", "5"],
                cols,
                rows,
                keys=[(1.5, b""), (0.8, b"\x1b[B\x1b[B"), (0.8, b"t"), (0.8, b"")],
                needs="htop",
                settle=0.3,
                max_time=6.0,
            )
        )
        out.append(
            Scenario(
                f"mc-{tag}",
                ["mc", "--nosubshell", str(REPO)],
                cols,
                rows,
                keys=[
                    (2.0, b""),
                    (0.5, b"\x1b[B\x1b[B"),
                    (0.5, b"\t"),
                    (0.5, b"\x1b[B"),
                    (0.5, b""),
                ],
                needs="mc",
                settle=1.0,
                max_time=10.0,
            )
        )
    for s in out:
        s.env.setdefault("ZIRV_COLORS_SH", str(colors))
    return out


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
