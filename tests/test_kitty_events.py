"""Key repeats and releases (the kitty keyboard protocol's flag 2) from the
outer terminal to a pane's child: zirv asks a terminal that answers
``CSI ? u`` for event types, reads its press/repeat/release codes in its own
input parser, and sends each child what its own flags ask for. A terminal that
does not answer (tmux 3.3a, xterm) is asked for nothing."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual import events

from screens.driver import InputParser
from screens.kitty_input import PUSH_FLAGS, KittyKey
from tests.ptyglass import PtyGlass
from zirv_dash.key_events import PRESS, RELEASE, REPEAT, encode_event

PRESS_A = b"\x1b[97;;97u"
REPEAT_A = b"\x1b[97;1:2;97u"
RELEASE_A = b"\x1b[97;1:3u"
SHIFT_ENTER = b"\x1b[13;2u"
SHIFT_ENTER_UP = b"\x1b[13;2:3u"
PRESS_Q = b"\x1b[113;;113u"
FROM_OUTER = PRESS_A + REPEAT_A + RELEASE_A + SHIFT_ENTER + SHIFT_ENTER_UP + PRESS_Q
"""What kitty sends for a, a held (one repeat), a let go, Shift+Enter down and
up, then q, under zirv's flags 1|2|8|16."""

WANT = {
    0: b"aa\x1b\rq",  # legacy bytes: presses only (a repeat is one more press)
    1: b"aa\x1b[13;2uq",  # no event types: presses only
    3: b"aa" + RELEASE_A + SHIFT_ENTER + SHIFT_ENTER_UP + b"q",
    31: PRESS_A + REPEAT_A + RELEASE_A + SHIFT_ENTER + SHIFT_ENTER_UP + PRESS_Q,
}


def parse(data: str) -> list[events.Key]:
    parser = InputParser(False)
    return [e for e in parser.feed(data) if isinstance(e, events.Key)]


def test_the_parser_reads_repeats_and_releases_as_their_press_is_named() -> None:
    keys = parse((PRESS_A + REPEAT_A + RELEASE_A + b"\x1b[1;5:3A" + b"\x1b[97;2:3u").decode())
    assert [(type(k), k.key, k.character) for k in keys] == [
        (events.Key, "a", "a"),
        (KittyKey, "a", "a"),
        (KittyKey, "a", "a"),
        (KittyKey, "ctrl+up", None),
        (KittyKey, "shift+a", None),
    ]
    assert [getattr(k, "event_type", PRESS) for k in keys] == [1, 2, 3, 3, 3]


def test_a_release_is_sent_only_after_its_press() -> None:
    held: set[str] = set()
    assert encode_event("x", None, False, 3, RELEASE, held) == b""  # never pressed here
    assert encode_event("up", None, False, 3, PRESS, held) == b"\x1b[A"
    assert encode_event("up", None, False, 3, REPEAT, held) == b"\x1b[1;1:2A"
    assert encode_event("ctrl+up", None, False, 3, RELEASE, held) == b"\x1b[1;5:3A"
    assert encode_event("up", None, False, 3, RELEASE, held) == b""  # already released
    # Enter as legacy bytes has no release; with flag 8 it does.
    assert encode_event("enter", None, False, 3, PRESS, held) == b"\r"
    assert encode_event("enter", None, False, 3, RELEASE, held) == b""
    assert encode_event("enter", None, False, 11, PRESS, held) == b"\x1b[13u"
    assert encode_event("enter", None, False, 11, RELEASE, held) == b"\x1b[13;1:3u"


RECORDER = r"""
import os, sys, tty
tty.setraw(0)
os.write(1, b"\x1b[>" + sys.argv[1].encode() + b"u\x1b[?u")
seen = b""
while True:
    data = os.read(0, 1024)
    if data.startswith(b"\x1b[?") and data.endswith(b"u"):
        os.write(1, b"FLAGS " + data[3:-1] + b" READY\r\n")
        continue
    seen += data
    with open(sys.argv[2], "wb") as out:
        out.write(seen)
    if seen.endswith((b"q", b"\x1b[113;;113u")):
        os.write(1, b"DONE\r\n")
        break
"""


@pytest.fixture
def kitty_glass(project: Path, tmp_path: Path) -> Iterator[PtyGlass]:
    g = PtyGlass(project, tmp_path, COLORTERM="truecolor")
    yield g
    g.close()


@pytest.mark.timeout(90)
@pytest.mark.parametrize("flags", [0, 1, 3, 31])
def test_a_kitty_terminal_is_asked_for_event_types_and_each_child_gets_its_own(
    flags: int, kitty_glass: PtyGlass, tmp_path: Path
) -> None:
    glass = kitty_glass
    glass.wait_for("▕$")
    # Asked (our model answered CSI ? u as kitty does), so event types were pushed.
    assert f"\x1b[>{PUSH_FLAGS}u".encode() in glass.raw and PUSH_FLAGS & 2
    assert b"\x1b[>25u" not in glass.raw
    child, got = tmp_path / "rec.py", tmp_path / "got.bin"
    child.write_text(RECORDER)
    glass.write(f"{sys.executable} {child} {flags} {got}\r".encode())
    glass.wait_for(f"FLAGS {flags} READY")
    glass.write(FROM_OUTER)
    glass.wait_for("DONE")
    assert got.read_bytes() == WANT[flags]


@pytest.mark.timeout(90)
def test_a_terminal_that_does_not_answer_is_asked_for_nothing(
    project: Path, tmp_path: Path
) -> None:
    glass = PtyGlass(project, tmp_path, answer_kitty=False, COLORTERM="truecolor")
    try:
        glass.wait_for("▕$")
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            glass.pump()  # what the start-up writes after the first frame, too
        assert b"\x1b[?u" in glass.raw  # it was asked
        assert not re.search(rb"\x1b\[[>=]\d*u", bytes(glass.raw)), "a kitty push"
    finally:
        glass.close()
    assert b"\x1b[<u" not in glass.raw  # and nothing popped on the way out


@pytest.mark.timeout(90)
def test_the_outer_flags_are_restored_on_the_way_out(project: Path, tmp_path: Path) -> None:
    glass = PtyGlass(project, tmp_path, COLORTERM="truecolor")
    try:
        glass.wait_for("▕$")
        pushed = glass.wait_raw(f"\x1b[>{PUSH_FLAGS}u".encode())
        # Ctrl+A q, then Enter and its release, as kitty sends them under those flags.
        glass.write(b"\x1b[97;5u\x1b[113;;113u")
        glass.wait_for("quit and shut down")
        glass.write(b"\x1b[13u\x1b[13;1:3u")
        left = glass.wait_raw(b"\x1b[?1049l", pushed)
    finally:
        glass.close()
    # Popped (the terminal's stack back to what it was) before the alternate screen is left.
    popped = glass.raw.find(b"\x1b[<u", pushed)
    assert pushed < popped < left
    assert glass.screen.keyboard_flags == 0
