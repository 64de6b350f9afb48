"""A styled run (text mixed with SGR, CUP and EL) is cut at every "ESC [" and
each piece ("<params><final><text>") is looked up whole, then by what comes
before its first "m", then taken apart.  Texts that look like parameters or
finals ("1;31m", "5H", "mK", ";2") are where such a shortcut could go wrong,
so they are drawn here among the sequences, together with the modes that
switch the shortcuts off.  A stream must leave exactly the state it leaves in
a model whose styled-run pattern takes plain text only, so that every
sequence goes through the general CSI dispatch."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.terminal.model_state import model_state
from zirv_dash.terminal import TerminalModel, sgr_graph
from zirv_dash.terminal.widths import narrow_class

COLS, ROWS = 12, 5

SGR = st.sampled_from(["", "0", "1", "1;31", "38;5;42", "48;2;1;2;3", "44", "7", "4:3", ";"])
# Forms the styled path moves to itself, and others it hands to the CSI dispatch.
CUP = st.sampled_from(["", ";", "2;3", "5;12", "9;99", "0;0", "3", ";7", "12345", "123456", "1:2"])
CUP_ODD = st.sampled_from(["2;3;4", ";;", "3:", ":", "0;0;0", "99999;1"])
EL = st.sampled_from(["", "0", "1", "2", "3", "00", "1;2", "2:1", ":", "0;1"])
# Texts made of what parameters and finals are made of, and plain words.
TEXT = st.text(alphabet="0123456789;:mHKab ", min_size=1, max_size=14) | st.sampled_from(
    ["1;31m", "5H", "mK", ";2", "K", "m", "H", "word", "x" * COLS]
)
# Wide characters: pieces then start and end on halves of them.
WIDE = st.sampled_from(["中", "中文", "中文中文中文", "a中b"])
ODD = st.sampled_from(
    [
        "\x1b[?7l",  # autowrap off and on
        "\x1b[?7h",
        "\x1b[4h",  # insert mode
        "\x1b[4l",
        "\x1b[2;4r\x1b[?6h",  # origin mode in a region
        "\x1b[?6l\x1b[r",
        "\x1b(0",  # DEC graphics
        "\x1b(B",
        "\u200d",  # a pending joiner
        "\x1b[2b",  # REP: what the last run left to repeat
        "\r\n",
        "\x1b[?1049h",
        "\x1b[?1049l",
    ]
)
TOKEN = st.one_of(
    SGR.map(lambda p: f"\x1b[{p}m"),
    CUP.map(lambda p: f"\x1b[{p}H"),
    CUP_ODD.map(lambda p: f"\x1b[{p}H"),
    st.tuples(st.integers(1, ROWS), st.integers(1, COLS)).map(lambda p: f"\x1b[{p[0]};{p[1]}H"),
    EL.map(lambda p: f"\x1b[{p}K"),
    TEXT,
    TEXT,
    WIDE,
    ODD,
)


def _state(m: TerminalModel) -> tuple[object, ...]:
    return model_state(m)


def _fed_fast_and_general(data: bytes) -> tuple[TerminalModel, TerminalModel]:
    """``data`` fed whole to a model, and to one whose styled-run pattern
    takes plain text only (every sequence through the CSI dispatch)."""
    fast = TerminalModel(COLS, ROWS, scrollback_bytes=1 << 16)
    fast.feed(data)
    general = TerminalModel(COLS, ROWS, scrollback_bytes=1 << 16)
    general._styled = re.compile(f"[{narrow_class()}]+")  # noqa: SLF001
    general.feed(data)
    return fast, general


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TOKEN, min_size=1, max_size=60), st.booleans())
def test_styled_pieces_equal_sequences_one_by_one(tokens: list[str], fresh_graph: bool) -> None:
    if fresh_graph:
        sgr_graph.reset()  # transitions met for the first time, in every form
    data = "".join(tokens).encode()
    fast, general = _fed_fast_and_general(data)
    assert _state(fast) == _state(general)


def test_a_text_that_looks_like_a_sequence_is_text() -> None:
    """Pieces whose text starts like parameters or holds an "m" before the
    sequence's own final: drawn as text, the sequences performed."""
    m = TerminalModel(COLS, ROWS)
    m.feed(b"\x1b[2;1H\x1b[m1;31m\x1b[3;1H5;2Hm\x1b[1;5H\x1b[1m;2K")
    assert m.lines()[:3] == ["    ;2K", "1;31m", "5;2Hm"]
    assert m.cursor == (7, 0)
    assert m.row_runs(0)[1][1].bold


def test_a_unicode_digit_is_no_cup_parameter() -> None:
    """``ESC [ ٣ H`` is not a CUP (only ASCII digits are parameters): no
    cell may hold the ESC of it, whatever the styled run around it."""
    fast, general = _fed_fast_and_general("\x1b[1;1Hab\x1b[٣Hcd\x1b[2;2Hef".encode())
    assert _state(fast) == _state(general)
    assert not any("\x1b" in cell for row in fast._screen.chars for cell in row)  # noqa: SLF001
