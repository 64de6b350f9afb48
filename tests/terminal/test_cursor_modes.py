"""The cursor state a child controls: where ``CSI ? 1049 l`` puts it, its
DECSCUSR shape and its DECTCEM visibility (the UI draws the real cursor
from these).

The alternate-screen cases were checked against tmux 3.3a with
``diff_tmux.py`` (text, cursor and the rendition of the last cell); the
expectations below are tmux's answers, and ``test_alternate_cursor_live_tmux``
replays them against a live tmux where one is installed.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from zirv_dash.terminal import Attr, TerminalModel

# name: (bytes, tmux's cursor after them) -- at 20x6, ending with an "X"
# drawn where the cursor was, so the text check sees the position too.
ALT_CASES: dict[str, tuple[bytes, tuple[int, int]]] = {
    # The second leave restores again: tmux keeps the saved position.
    "leave_twice": (b"abc\r\n\x1b[3;5H\x1b[?1049h\x1b[?1049l\x1b[1;1H\x1b[?1049lX", (5, 2)),
    # dialog(1): leaves with 1047 (no restore), draws, then 1049 l restores.
    "left_by_1047": (b"abc\x1b[3;5H\x1b[?1049hzz\x1b[?1047l\x1b[1;1H\x1b[?1049lX", (5, 2)),
    "never_saved": (b"abc\x1b[3;5H\x1b[?1049lX", (5, 2)),
    "enter_twice_saves_once": (b"\x1b[3;5H\x1b[?1049h\x1b[5;7H\x1b[?1049h\x1b[?1049lX", (5, 2)),
    "kept_across_ris": (b"\x1b[3;5H\x1b[?1049h\x1b[?1049l\x1bc\x1b[?1049lX", (5, 2)),
}


def fed(data: bytes = b"", cols: int = 20, rows: int = 6) -> TerminalModel:
    m = TerminalModel(cols, rows)
    m.feed(data)
    return m


@pytest.mark.parametrize("name", sorted(ALT_CASES))
def test_leaving_alternate_screen_restores_saved_cursor(name: str) -> None:
    data, cursor = ALT_CASES[name]
    m = fed(data)
    assert m.cursor == cursor
    assert m.lines()[cursor[1]].endswith("X")
    assert not m.alternate_screen


def test_leaving_twice_restores_the_saved_rendition_too() -> None:
    """The rendition saved by 1049 h comes back on every 1049 l (tmux)."""
    m = fed(b"\x1b[3;5H\x1b[31m\x1b[?1049h\x1b[32m\x1b[?1049l\x1b[1;1H\x1b[34m\x1b[?1049lX")
    assert m.lines()[2] == "    X"
    assert ("X", Attr(fg=1)) in m.row_runs(2)


def test_any_switch_saves_the_rendition_only_1049_the_position() -> None:
    """tmux saves the cell on every switch (47/1047 too) but the position
    only on 1049: the last 1049 l has the old place and the newer colour."""
    m = fed(
        b"\x1b[3;5H\x1b[31m\x1b[?1049h\x1b[32m\x1b[?1047l\x1b[33m\x1b[?1047h\x1b[?1047l"
        b"\x1b[1;1H\x1b[34m\x1b[?1049lX"
    )
    assert m.cursor == (5, 2)
    assert ("X", Attr(fg=3)) in m.row_runs(2)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_alternate_cursor_live_tmux() -> None:
    """The same bytes in a live tmux pane give the same screen and cursor."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from diff_tmux import compare

    for name, (data, _) in ALT_CASES.items():
        # diff_tmux gives tmux a moment to draw what cat wrote; a loaded
        # machine may need longer, so a difference must hold on a retry.
        diffs = compare(data, 20, 6)
        for _ in range(2):
            if diffs:
                diffs = compare(data, 20, 6)
        assert diffs == [], name


@pytest.mark.parametrize("ps", range(7))
def test_decscusr_shape_is_recorded(ps: int) -> None:
    m = fed(b"\x1b[%d q" % ps)
    assert m.cursor_shape == ps


def test_decscusr_default_ignored_values_and_ris() -> None:
    m = fed()
    assert m.cursor_shape == 0
    m.feed(b"\x1b[5 q")
    assert m.cursor_shape == 5
    m.feed(b"\x1b[7 q\x1b[99 q")  # no such style: ignored, as tmux does
    assert m.cursor_shape == 5
    m.feed(b"\x1b[ q")  # no parameter is 0, the default
    assert m.cursor_shape == 0
    m.feed(b"\x1b[2 q\x1bc")
    assert m.cursor_shape == 0


def test_shape_and_visibility_changes_bump_the_version() -> None:
    """The UI redraws the real cursor when the version moves."""
    m = fed()
    v = m.version
    m.feed(b"\x1b[6 q")
    assert m.version > v
    v = m.version
    m.feed(b"\x1b[?25l")
    assert not m.cursor_visible and m.version > v
    m.feed(b"\x1b[?25h")
    assert m.cursor_visible
    m.feed(b"\x1b[?25l\x1bc")
    assert m.cursor_visible  # RIS shows it again
