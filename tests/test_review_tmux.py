"""Mouse review in a real terminal (tmux): wheel, drag-select, copy that lands in
tmux's paste buffer byte for byte, copy-mode search.

tmux cannot click, but mouse reports are just input bytes: `send-keys -l` with
SGR sequences (`ESC [ < b ; x ; y M/m`) is what a terminal sends for a click.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tmuxharness import ZIRV, Tmux, base_env

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(90)]

WIDTH, HEIGHT = 160, 48


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    repo = tmp_path / "proj"
    (repo / ".zirv").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    t = Tmux(repo, base_env(tmp_path / "state", tmp_path / "operator"))
    yield t
    t.kill()


def mouse(t: Tmux, *reports: tuple[int, int, int, bool]) -> None:
    """(button code, 1-based column, 1-based row, press) as SGR reports."""
    for code, x, y, press in reports:
        t.text(f"\x1b[<{code};{x};{y}{'M' if press else 'm'}")
        time.sleep(0.05)  # one report per read, as a terminal sends them


def locate(screen: str, needle: str) -> tuple[int, int]:
    """1-based (column, row) of `needle` in a capture (wide characters: 2 columns)."""
    for row, line in enumerate(screen.splitlines(), start=1):
        if needle in line:
            before = line[: line.index(needle)]
            return (sum(2 if ord(c) > 0x2E7F else 1 for c in before) + 1, row)
    raise AssertionError(f"{needle!r} not on screen:\n{screen}")


def buffer(t: Tmux) -> str:
    return t.run("show-buffer", check=False)


def test_wheel_drag_copy_and_search_in_tmux(tmux: Tmux, tmp_path: Path) -> None:
    tmux.start([*ZIRV, "chat", "--agent", "shell"], WIDTH, HEIGHT)
    tmux.run("set-option", "-s", "set-clipboard", "on")  # accept OSC 52 into a buffer
    screen = tmux.wait_for("▕$")
    origin = locate(screen, "▕$")[0] + 1  # the pane's first column
    cols = WIDTH - origin + 1
    line = "start-" + "x" * (cols - 10) + "漢字" + "ab漢字cd-end"
    (tmp_path / "long.txt").write_text(line + "\nsecond line\n")
    # "n170" can be found only in seq's output (a temporary path may hold "170").
    tmux.text(f"seq -f n%g 1 200; cat {tmp_path / 'long.txt'}")
    tmux.keys("Enter")
    screen = tmux.wait_for("second line")
    x0, y0 = locate(screen, "start-")
    x1, y1 = locate(screen, "-end")
    # Press on "s", drag over the wrap, release on the "d" of "-end".
    mouse(tmux, (0, x0, y0, True), (32, x0 + 6, y0, True), (32, x1 + 3, y1, True))
    mouse(tmux, (0, x1 + 3, y1, False))
    tmux.wait_for("copied selection to clipboard")
    deadline = time.monotonic() + 10
    while buffer(tmux) != line and time.monotonic() < deadline:
        time.sleep(0.1)
    assert buffer(tmux) == line
    # Wheel: three rows a notch through our own scrollback.
    mouse(tmux, (64, x0 + 5, 10, True), (64, x0 + 5, 10, True))
    tmux.wait_for("SCROLL -6")
    # Copy mode: search back for "17", select the line, copy it.
    tmux.keys("C-a", "[")
    tmux.wait_for("copy · arrows")
    tmux.text("?n170")
    tmux.keys("Enter")
    tmux.text("v$y")
    deadline = time.monotonic() + 10
    while buffer(tmux) != "n170" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert buffer(tmux) == "n170"
    tmux.quit("EXITED 0")
    deadline = time.monotonic() + 10
    while tmux.marked_pids() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert tmux.marked_pids() == []  # no orphaned children
