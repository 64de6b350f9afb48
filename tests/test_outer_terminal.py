"""The outer terminal: 24-bit colour detection and the start-up OSC 10/11 query."""

from __future__ import annotations

import os
import pty
import select
import shutil
import subprocess
import termios
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from zirv_dash import outer_terminal as outer


def no_terminfo(term: str, env: Mapping[str, str]) -> bool:
    return False


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"TERM": "xterm-256color"}, False),
        ({"TERM": "xterm-256color", "COLORTERM": "truecolor"}, True),
        ({"TERM": "xterm-256color", "COLORTERM": "24bit"}, True),
        ({"TERM": "xterm-256color", "COLORTERM": "yes"}, False),
        ({"TERM": "screen-256color", "TMUX": "/tmp/tmux-1/default,1,0"}, True),
        ({"TERM": "xterm-kitty"}, True),
        ({"TERM": "alacritty"}, True),
        ({"TERM": "wezterm"}, True),
        ({"TERM": "foot"}, True),
        ({"TERM": "foot-extra"}, True),
        ({"TERM": "xterm-direct"}, True),
        ({"TERM": "xterm-256color", "VTE_VERSION": "7200"}, True),
        ({"TERM": "xterm-256color", "VTE_VERSION": "3405"}, False),
        ({"TERM": "xterm-256color", "WT_SESSION": "abc"}, True),
        ({"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}, True),
        ({"TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"}, True),
        ({"TERM": "xterm-ghostty", "TERM_PROGRAM": "ghostty"}, True),
        ({"TERM": "xterm-256color", "TERM_PROGRAM": "vscode"}, True),
        ({"TERM": "xterm-256color", "TERM_PROGRAM": "Apple_Terminal"}, False),
        ({"TERM": "linux"}, False),
    ],
)
def test_truecolor_detection_matrix(env: dict[str, str], expected: bool) -> None:
    assert outer.detect_truecolor(env, no_terminfo) is expected


def test_terminfo_flag_is_asked_only_for_the_terminal_in_use() -> None:
    asked: list[str] = []

    def terminfo(term: str, env: Mapping[str, str]) -> bool:
        asked.append(term)
        return term == "my-term"

    assert outer.detect_truecolor({"TERM": "my-term"}, terminfo)
    assert not outer.detect_truecolor({"TERM": "other"}, terminfo)
    assert asked == ["my-term", "other"]


@pytest.mark.parametrize(
    ("setting", "env", "expected"),
    [
        ("auto", {"TERM": "xterm-256color", "COLORTERM": "truecolor"}, "truecolor"),
        ("auto", {"TERM": "xterm-256color"}, None),
        ("true", {"TERM": "xterm-256color"}, "truecolor"),
        ("false", {"TERM": "xterm-256color", "COLORTERM": "truecolor"}, "256"),
        ("false", {"TERM": "xterm-kitty"}, "256"),
        ("auto", {"TERM": "xterm-kitty", "TEXTUAL_COLOR_SYSTEM": "standard"}, None),
        ("true", {"TERM": "xterm", "TEXTUAL_COLOR_SYSTEM": "standard"}, "truecolor"),
    ],
)
def test_setting_overrides_detection(
    setting: str, env: dict[str, str], expected: str | None
) -> None:
    assert outer.color_system(setting, env, no_terminfo) == expected


@pytest.fixture
def terminfo_dir(tmp_path: Path) -> Path:
    """A private terminfo database with one entry per flavour of the RGB flag."""
    if shutil.which("tic") is None or shutil.which("infocmp") is None:
        pytest.skip("ncurses tic/infocmp not installed")
    src = tmp_path / "entries.src"
    src.write_text(
        "zirv-plain|no rgb,\n\tcolors#256,\n"
        "zirv-tc|tmux's Tc flag,\n\tTc, colors#256,\n"
        "zirv-rgb|ncurses' RGB flag,\n\tRGB, colors#256,\n"
    )
    out = tmp_path / "terminfo"
    subprocess.run(["tic", "-x", "-o", str(out), str(src)], check=True, capture_output=True)
    return out


@pytest.mark.parametrize(
    ("term", "expected"),
    [("zirv-plain", False), ("zirv-tc", True), ("zirv-rgb", True), ("zirv-missing", False)],
)
def test_terminfo_rgb_reads_the_real_database(
    terminfo_dir: Path, term: str, expected: bool
) -> None:
    env = {"PATH": os.environ["PATH"], "TERMINFO": str(terminfo_dir), "TERM": term}
    assert outer.terminfo_rgb(term, env) is expected
    assert outer.detect_truecolor(env) is expected


# -- the OSC 10/11 query, through a real pty pair ------------------------------------------


@pytest.fixture
def pty_pair() -> Iterator[tuple[int, int]]:
    master, slave = pty.openpty()
    yield master, slave
    os.close(master)
    os.close(slave)


def read_query(master: int) -> bytes:
    got = b""
    deadline = time.monotonic() + 5
    while not got.endswith(b"\x1b[c") and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            got += os.read(master, 1024)
    return got


def run_query(slave: int, timeout: float = 2.0) -> tuple[threading.Thread, list[object]]:
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(outer.query_colors(slave, timeout)))
    thread.start()
    return thread, result


def pending(fd: int) -> bool:
    return bool(select.select([fd], [], [], 0)[0])


def test_answers_are_read_in_raw_mode_and_nothing_is_left(pty_pair: tuple[int, int]) -> None:
    master, slave = pty_pair
    before = termios.tcgetattr(slave)
    thread, result = run_query(slave)
    assert read_query(master) == outer.QUERY
    # Raw while asking: the answer must not be echoed or wait for a newline.
    assert not termios.tcgetattr(slave)[3] & termios.ICANON
    # Split mid-sequence, BEL and ST terminators, 4- and 2-digit channels.
    os.write(master, b"\x1b]10;rgb:ffff/8080/00")
    time.sleep(0.05)
    os.write(master, b"00\x1b\\\x1b]11;rgb:12/34/56\x07\x1b[?62;22c")
    thread.join(5)
    assert result == [((255, 128, 0), (0x12, 0x34, 0x56))]
    assert termios.tcgetattr(slave) == before
    assert not pending(slave)


def test_a_terminal_that_ignores_osc_costs_no_wait(pty_pair: tuple[int, int]) -> None:
    master, slave = pty_pair
    start = time.monotonic()
    thread, result = run_query(slave, timeout=5.0)
    read_query(master)
    os.write(master, b"\x1b[?1;2c")
    thread.join(5)
    assert result == [None]
    assert time.monotonic() - start < 2.0  # the DA1 reply ended the wait, not the 5 s timeout
    assert not pending(slave)


def test_a_silent_terminal_times_out_and_an_unfinished_answer_is_dropped(
    pty_pair: tuple[int, int],
) -> None:
    master, slave = pty_pair
    start = time.monotonic()
    thread, result = run_query(slave, timeout=0.15)
    read_query(master)
    os.write(master, b"\x1b]11;rgb:00")  # the start of an answer, never finished
    thread.join(5)
    assert result == [None]
    assert time.monotonic() - start < 1.5
    assert not pending(slave)


def test_parser_ignores_noise_and_other_replies() -> None:
    colors, done = outer.parse_replies(b"x\x1b]4;1;rgb:ff/00/00\x07\x1b]11;rgb:f/8/0\x1b\\")
    assert colors == {11: (255, 136, 0)} and not done
    colors, done = outer.parse_replies(b"\x1b]10;rgba:ffff/ffff/ffff/ffff\x07\x1b[?65;1c")
    assert colors == {10: (255, 255, 255)} and done


def test_no_terminal_means_no_colours(tmp_path: Path) -> None:
    plain = tmp_path / "file"
    plain.write_text("")
    assert outer.query_tty_colors(str(plain)) is None
    assert outer.query_tty_colors(str(tmp_path / "missing")) is None


def test_keys_typed_before_the_answers_are_kept_for_the_ui(pty_pair: tuple[int, int]) -> None:
    """Keys the user typed while zirv started are read with the answers: they
    come back, in order, without the answers (they used to be dropped)."""
    master, slave = pty_pair
    os.write(master, b"ls\x1b[A")  # typed before the query was sent
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(outer.query(slave, 2.0)))
    thread.start()
    assert read_query(master).endswith(outer.QUERY)  # after the cooked terminal's echo
    os.write(master, b"\x1b]10;rgb:ff/ff/ff\x07q\x1b]11;rgb:00/00/00\x07\x1b[?62c")
    thread.join(5)
    assert result == [(((255, 255, 255), (0, 0, 0)), b"ls\x1b[Aq")]
    assert not pending(slave)


def test_a_silent_terminal_still_gives_back_the_keys(pty_pair: tuple[int, int]) -> None:
    master, slave = pty_pair
    os.write(master, b"hi")
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(outer.query(slave, 0.15)))
    thread.start()
    read_query(master)
    os.write(master, b"\x1b]11;rgb:00")  # an answer cut off by the timeout: not keys
    thread.join(5)
    assert result == [(None, b"hi")]
