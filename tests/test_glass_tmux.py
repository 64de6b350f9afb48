"""At the glass, in a real terminal (tmux): a pane shows the colours its program
sent the way a plain tmux pane does, the real cursor follows the pane's cursor,
and children asking for the default colours hear the outer terminal's."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from tests.tmuxharness import ZIRV, Tmux
from zirv_dash.terminal import Attr, TerminalModel

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(90)]

WIDTH, HEIGHT = 120, 40
END = "GLASS" + "-END"  # split so the typed command line never matches

# The 16 colours as foreground and background, 256-colour and 24-bit samples,
# and the attributes whose rendering used to be rewritten (dim, bold).
SAMPLE = r"""
for n in 0 1 2 3 4 5 6 7; do printf '\033[3%sm%s' $n $n; done
for n in 0 1 2 3 4 5 6 7; do printf '\033[9%sm%s' $n $n; done
printf '\033[0m|'
for n in 0 1 2 3 4 5 6 7; do printf '\033[4%sm%s' $n $n; done
for n in 0 1 2 3 4 5 6 7; do printf '\033[10%sm%s' $n $n; done
printf '\033[0m\n'
printf '\033[38;5;16ma\033[38;5;100mb\033[38;5;208mc\033[38;5;255md'
printf '\033[48;5;22me\033[48;5;232mf\033[0m|'
printf '\033[38;2;1;2;3mg\033[38;2;250;128;7mh\033[48;2;200;100;50mi\033[48;2;0;0;255mj\033[0m|'
printf '\033[2mdim\033[0m|\033[1mbold\033[0m|\033[2;31mdimred\033[0m|\033[1;35mboldmag\033[0m\n'
printf 'GLASS''-END\n'
"""


def cells(capture: str) -> TerminalModel:
    """The captured screen as a grid of (char, attr) cells: tmux's `capture-pane -e`
    output read back by a terminal model of the same size."""
    model = TerminalModel(WIDTH, HEIGHT)
    model.feed("\r\n".join(capture.rstrip("\n").split("\n")).encode())
    return model


def row_cells(model: TerminalModel, row: int) -> list[tuple[str, Attr]]:
    out: list[tuple[str, Attr]] = []
    for text, attr in model.row_runs(row):
        out.extend((ch, attr) for ch in text)
    return out


def find(model: TerminalModel, needle: str) -> tuple[int, int]:
    for y, line in enumerate(model.lines()):
        x = line.find(needle)
        if x >= 0:
            return x, y
    raise AssertionError(f"{needle!r} not on screen:\n" + "\n".join(model.lines()))


def sample_region(capture: str, width: int) -> list[list[tuple[str, Attr]]]:
    """The two sample rows (from their first cell, `width` cells, trailing blanks
    included: their background must be the terminal's default too)."""
    model = cells(capture)
    x, y = find(model, "0123456701234567|")
    return [row_cells(model, row)[x : x + width] for row in (y, y + 1)]


def run_sample(tmux: Tmux, script: Path, name: str) -> str:
    tmux.text(f"sh {script}", name=name)
    tmux.keys("Enter", name=name)
    tmux.wait_for(END, name=name)
    return tmux.run("capture-pane", "-p", "-e", "-t", name)


def start_dashboard(tmux: Tmux, **env: str) -> None:
    tmux.env.update(env)
    tmux.start([*ZIRV, "chat", "--agent", "shell"], WIDTH, HEIGHT)
    tmux.wait_dashboard()
    tmux.wait_for("▕$")


def test_colours_reach_the_glass_as_in_a_plain_tmux_pane(tmux: Tmux, tmp_path: Path) -> None:
    script = tmp_path / "sample.sh"
    script.write_text(SAMPLE)
    tmux.start(["sh"], WIDTH, HEIGHT, name="plain")
    start_dashboard(tmux, COLORTERM="truecolor")
    plain = run_sample(tmux, script, "plain")
    ours = run_sample(tmux, script, "main")
    width = 60
    want, got = sample_region(plain, width), sample_region(ours, width)
    for row_want, row_got in zip(want, got, strict=True):
        assert "".join(c for c, _ in row_got) == "".join(c for c, _ in row_want)
        diffs = [
            (i, w, g)
            for i, ((_, w), (_, g)) in enumerate(zip(row_want, row_got, strict=True))
            if w != g
        ]
        assert diffs == [], f"cells differ from plain tmux (col, plain, ours): {diffs[:6]}"
    # The SGR tmux sends on: palette colours as palette colours (red is 31, not
    # the theme's pink as 38;2), dim as SGR 2, 24-bit kept.
    line = next(li for li in ours.splitlines() if "dimred" in li)
    for sgr in ("\x1b[2m", "\x1b[38;2;1;2;3m", "\x1b[48;2;200;100;50m"):
        assert sgr in line
    colours = next(li for li in ours.splitlines() if "|" in li and "SESSIONS" not in li)
    for sgr in ("\x1b[31m", "\x1b[35m", "\x1b[91m", "\x1b[95m", "\x1b[41m", "\x1b[105m"):
        assert sgr in colours


def test_without_truecolor_24_bit_is_down_converted(tmux: Tmux, tmp_path: Path) -> None:
    script = tmp_path / "sample.sh"
    script.write_text(SAMPLE)
    # TERM=xterm-256color, no COLORTERM, no Tc flag: a 256-colour terminal.
    start_dashboard(tmux)
    ours = run_sample(tmux, script, "main")
    line = next(li for li in ours.splitlines() if "dimred" in li)
    assert "\x1b[38;2;" not in line and "\x1b[38;5;" in line
    assert "\x1b[2m" in line


def cursor(tmux: Tmux) -> tuple[int, int, int]:
    x, y, flag = tmux.run(
        "display", "-p", "-t", "main", "#{cursor_x} #{cursor_y} #{cursor_flag}"
    ).split()
    return int(x), int(y), int(flag)


def wait_cursor(tmux: Tmux, want: tuple[int, int, int] | None, timeout: float = 10.0) -> None:
    """Wait until the real cursor is visible at `want` (x, y, 1), or hidden (None)."""
    deadline = time.monotonic() + timeout
    while True:
        got = cursor(tmux)
        if got == want or (want is None and got[2] == 0):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"real cursor {got}, want {want or 'hidden'}")
        time.sleep(0.05)


def test_the_real_cursor_follows_the_pane_and_hides_with_it(tmux: Tmux, tmp_path: Path) -> None:
    raw = tmp_path / "raw-output"
    start_dashboard(tmux)
    # Everything the dashboard writes to its terminal, for the cursor shape.
    tmux.run("pipe-pane", "-O", "-t", "main", f"cat >> {raw}")
    tmux.text("printf 'mark-%s\\n' here; printf 'A%sB' Z; sleep 30")
    tmux.keys("Enter")
    tmux.wait_for("mark-here")
    model = cells(tmux.run("capture-pane", "-p", "-e", "-t", "main"))
    x, y = find(model, "AZB")
    wait_cursor(tmux, (x + 3, y, 1))  # just after what the child printed
    tmux.keys("C-c")
    tmux.text("printf '\\033[5 q\\033[?25l'; printf 'hidden'")
    tmux.keys("Enter")
    tmux.wait_for("hidden$")
    px, _ = find(cells(tmux.capture()), "hidden$")
    wait_cursor(tmux, None)  # DECTCEM off: hidden
    tmux.text("printf '\\033[?25h'; echo shown")
    tmux.keys("Enter")
    tmux.wait_for("▕shown")
    _, py = find(cells(tmux.capture()), "▕shown")
    wait_cursor(tmux, (px + 2, py + 1, 1))  # the prompt after "shown"
    # The child's DECSCUSR shape reached the terminal.
    deadline = time.monotonic() + 5
    while b"\x1b[5 q" not in raw.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert b"\x1b[5 q" in raw.read_bytes()
    # An overlay takes the focus: no cursor; closing it brings it back.
    tmux.keys("C-a", "?")
    tmux.wait_for("jump to pane")
    wait_cursor(tmux, None)
    tmux.keys("Escape")
    wait_cursor(tmux, (px + 2, py + 1, 1))


QUERY = r"""
import os, select, sys, termios, tty
fd = sys.stdin.fileno()
saved = termios.tcgetattr(fd)
tty.setraw(fd)
os.write(1, b"\x1b]11;?\x07\x1b]10;?\x07")
data = b""
while data.count(b"\x07") < 2 and select.select([fd], [], [], 3)[0]:
    data += os.read(fd, 256)
termios.tcsetattr(fd, termios.TCSANOW, saved)
print("ANSWER:" + data.replace(b"\x1b", b"^").replace(b"\x07", b"~").decode() + ":")
"""


def _answer(tmux: Tmux, name: str) -> str:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        for line in tmux.capture(name).splitlines():
            if "ANSWER:" in line and line.rstrip().endswith(":"):
                return line.split("ANSWER:")[1].rstrip()[:-1]
        time.sleep(0.1)
    raise AssertionError(f"no answer line in {name}:\n{tmux.capture(name)}")


def test_children_hear_the_outer_terminals_colours(tmux: Tmux, tmp_path: Path) -> None:
    script = tmp_path / "query.py"
    script.write_text(QUERY)
    # An outer terminal with its own default colours that answers OSC 10/11.
    tmux.start(["sleep", "60"], WIDTH, HEIGHT, name="hold")
    tmux.run("set", "-g", "window-style", "fg=#aabbcc,bg=#102030")
    tmux.start(["sh"], WIDTH, HEIGHT, name="plain")
    start_dashboard(tmux)
    # The start-up query's answers were all read: none reached the shell as keys.
    tmux.text("echo clean-$((1+1))")
    tmux.keys("Enter")
    screen = tmux.wait_for("clean-2")
    assert "▕$ echo clean-$((1+1))" in screen and "rgb:" not in screen
    answers = []
    for name in ("plain", "main"):
        tmux.text(f"{sys.executable} {script}", name=name)
        tmux.keys("Enter", name=name)
        answer = _answer(tmux, name)
        answers.append(answer)
        if name == "plain" and not answer:
            pytest.skip("this tmux does not answer OSC 10/11 (3.3 or later does)")
    assert answers[0].startswith("^]11;rgb:1010/2020/3030~^]10;rgb:aaaa/bbbb/cccc~")
    assert answers[1] == answers[0]
