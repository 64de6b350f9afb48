"""The programs the fidelity corpus records, and what is typed into them
(used by ``regen_fidelity.py``)."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
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
