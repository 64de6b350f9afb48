"""The kitty keyboard protocol for children that push flags 1, 3 (with event
types) and 31 (everything): encodings as kitty sends them, and a round trip
through a real pane whose child pushes the flags and reports what it got."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from tests.test_review_ui import plain_shell
from zirv_dash.keys import encode_key

__all__ = ["plain_shell"]  # the fixture, used by name

CASES = [
    # key, character, flags 1, flags 3, flags 31
    ("a", "a", b"a", b"a", b"\x1b[97;;97u"),
    ("A", "A", b"A", b"A", b"\x1b[97:65;2;65u"),
    ("enter", None, b"\r", b"\r", b"\x1b[13u"),
    ("shift+enter", None, b"\x1b[13;2u", b"\x1b[13;2u", b"\x1b[13;2u"),
    ("tab", None, b"\t", b"\t", b"\x1b[9u"),
    ("ctrl+i", None, b"\x1b[105;5u", b"\x1b[105;5u", b"\x1b[105;5u"),
    ("escape", None, b"\x1b[27u", b"\x1b[27u", b"\x1b[27u"),
    ("backspace", None, b"\x7f", b"\x7f", b"\x1b[127u"),
    ("ctrl+shift+a", None, b"\x1b[97;6u", b"\x1b[97;6u", b"\x1b[97:65;6u"),
    ("alt+x", None, b"\x1b[120;3u", b"\x1b[120;3u", b"\x1b[120;3u"),
    ("up", None, b"\x1b[A", b"\x1b[A", b"\x1b[A"),
    ("ctrl+up", None, b"\x1b[1;5A", b"\x1b[1;5A", b"\x1b[1;5A"),
    ("f1", None, b"\x1bOP", b"\x1bOP", b"\x1b[P"),
    ("f3", None, b"\x1bOR", b"\x1bOR", b"\x1b[13~"),
    ("pagedown", None, b"\x1b[6~", b"\x1b[6~", b"\x1b[6~"),
    ("space", " ", b" ", b" ", b"\x1b[32;;32u"),
]


@pytest.mark.parametrize(("key", "character", "one", "three", "all_"), CASES)
def test_encodings(key: str, character: str | None, one: bytes, three: bytes, all_: bytes) -> None:
    assert encode_key(key, character, False, 1) == one
    assert encode_key(key, character, False, 3) == three
    assert encode_key(key, character, False, 31) == all_


def test_flag_8_without_16_sends_no_text_and_4_adds_the_shifted_key() -> None:
    assert encode_key("a", "a", False, 8) == b"\x1b[97u"
    assert encode_key("A", "A", False, 8) == b"\x1b[97;2u"
    assert encode_key("A", "A", False, 12) == b"\x1b[97:65;2u"
    assert encode_key("ctrl+shift+a", None, False, 5) == b"\x1b[97:65;6u"


KEYS_CHILD = r"""
import os, sys, tty
tty.setraw(0)
os.write(1, b"\x1b[>" + sys.argv[1].encode() + b"u\x1b[?u")
seen = b""
while True:
    data = os.read(0, 1024)
    if b"\x1b[?" in data and data.endswith(b"u"):
        os.write(1, b"FLAGS " + data[3:-1] + b" READY\r\n")
        continue
    seen += data
    os.write(1, b"\r\x1b[KGOT " + seen.hex().encode() + b"|")
    if seen.endswith((b"q", b"\x1b[113;;113u", b"\x1b[113u")):
        break
"""


@pytest.mark.timeout(60)
@pytest.mark.parametrize("flags", [1, 3, 31])
async def test_a_child_gets_keys_as_it_asked(flags: int, tmp_path: Path, plain_shell: Path) -> None:
    child = tmp_path / "keys.py"
    child.write_text(KEYS_CHILD)
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: bool(dash.panes) and "$" in screen_text(dash.panes[0]))
        pane = dash.panes[0]
        pane.send(f"{sys.executable} {child} {flags}\r".encode())
        # The child's query is answered with the flags it pushed.
        await wait_for(pilot, lambda: f"FLAGS {flags} READY" in screen_text(pane))
        await pilot.press("A", "shift+enter", "tab", "ctrl+i", "escape")
        want = (
            b"".join(
                encode_key(k, c, False, flags)
                for k, c in (("A", "A"), ("shift+enter", None), ("tab", None), ("ctrl+i", None))
            )
            + b"\x1b[27u"
        )
        # (the report may wrap: the rows joined)
        got = lambda: "".join(pane.model_view.lines())  # noqa: E731
        await wait_for(pilot, lambda: f"GOT {want.hex()}|" in got(), what=got)
        if flags == 31:
            assert want.startswith(b"\x1b[97:65;2;65u\x1b[13;2u\x1b[9u\x1b[105;5u")
        await pilot.press("q")
