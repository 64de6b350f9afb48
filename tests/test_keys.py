from __future__ import annotations

import pytest

from zirv_dash.keys import bracket_paste, encode_key, encode_mouse


@pytest.mark.parametrize(
    ("key", "char", "expected"),
    [
        ("a", "a", b"a"),
        ("A", "A", b"A"),
        ("enter", "\r", b"\r"),
        ("shift+enter", None, b"\x1b\r"),
        ("alt+enter", None, b"\x1b\r"),
        ("tab", "\t", b"\t"),
        ("shift+tab", None, b"\x1b[Z"),
        ("escape", "\x1b", b"\x1b"),
        ("backspace", "\x7f", b"\x7f"),
        ("ctrl+c", "\x03", b"\x03"),
        ("ctrl+a", None, b"\x01"),
        ("ctrl+z", None, b"\x1a"),
        ("ctrl+space", None, b"\x00"),
        ("ctrl+at", None, b"\x00"),
        ("ctrl+backslash", None, b"\x1c"),
        ("ctrl+right_square_bracket", None, b"\x1d"),
        ("ctrl+circumflex_accent", None, b"\x1e"),
        ("ctrl+underscore", None, b"\x1f"),
        ("ctrl+slash", None, b"\x1f"),
        ("alt+x", None, b"\x1bx"),
        ("alt+ctrl+x", None, b"\x1b\x18"),
        ("up", None, b"\x1b[A"),
        ("down", None, b"\x1b[B"),
        ("right", None, b"\x1b[C"),
        ("left", None, b"\x1b[D"),
        ("home", None, b"\x1b[H"),
        ("end", None, b"\x1b[F"),
        ("shift+up", None, b"\x1b[1;2A"),
        ("ctrl+left", None, b"\x1b[1;5D"),
        ("ctrl+shift+right", None, b"\x1b[1;6C"),
        ("alt+up", None, b"\x1b[1;3A"),
        ("pageup", None, b"\x1b[5~"),
        ("pagedown", None, b"\x1b[6~"),
        ("delete", None, b"\x1b[3~"),
        ("insert", None, b"\x1b[2~"),
        ("ctrl+pageup", None, b"\x1b[5;5~"),
        ("f1", None, b"\x1bOP"),
        ("f4", None, b"\x1bOS"),
        ("shift+f1", None, b"\x1b[1;2P"),
        ("f5", None, b"\x1b[15~"),
        ("f12", None, b"\x1b[24~"),
        ("ctrl+f5", None, b"\x1b[15;5~"),
        ("question_mark", "?", b"?"),
        ("exclamation_mark", "!", b"!"),
        ("é", "é", "é".encode()),
        ("space", " ", b" "),
    ],
)
def test_encode_key(key: str, char: str | None, expected: bytes) -> None:
    assert encode_key(key, char) == expected


def test_application_cursor_mode() -> None:
    assert encode_key("up", None, app_cursor=True) == b"\x1bOA"
    assert encode_key("shift+up", None, app_cursor=True) == b"\x1b[1;2A"


def test_mouse_sgr_and_x10() -> None:
    assert encode_mouse(64, 3, 4, encoding="sgr") == b"\x1b[<64;3;4M"
    assert encode_mouse(0, 1, 1, press=False, encoding="sgr") == b"\x1b[<0;1;1m"
    assert encode_mouse(0, 10, 5, encoding="x10") == b"\x1b[M" + bytes([32, 42, 37])
    # X10 clamps coordinates so every byte stays valid.
    report = encode_mouse(0, 500, 500, encoding="x10")
    assert report[4] == 223 + 32 and report[5] == 223 + 32
    assert encode_mouse(0, 1, 1, press=False, encoding="x10")[3] == 3 + 32


def test_bracketed_paste() -> None:
    assert bracket_paste("a\nb", True) == b"\x1b[200~a\rb\x1b[201~"
    assert bracket_paste("a\nb", False) == b"a\rb"
    # An embedded end marker cannot end the paste early.
    assert bracket_paste("x\x1b[201~rm -rf /\n", True).count(b"\x1b[201~") == 1


@pytest.mark.parametrize(
    ("key", "char", "expected"),
    [
        ("escape", "\x1b", b"\x1b[27u"),
        ("ctrl+c", "\x03", b"\x1b[99;5u"),
        ("alt+x", None, b"\x1b[120;3u"),
        ("ctrl+alt+x", None, b"\x1b[120;7u"),
        ("shift+enter", None, b"\x1b[13;2u"),
        ("ctrl+enter", None, b"\x1b[13;5u"),
        # Unchanged by "disambiguate": plain text, Enter, Tab, Backspace, arrows.
        ("a", "a", b"a"),
        ("enter", "\r", b"\r"),
        ("tab", "\t", b"\t"),
        ("shift+tab", None, b"\x1b[Z"),
        ("backspace", "\x7f", b"\x7f"),
        ("up", None, b"\x1b[A"),
        ("shift+up", None, b"\x1b[1;2A"),
    ],
)
def test_kitty_disambiguate_when_the_child_pushed_it(
    key: str, char: str | None, expected: bytes
) -> None:
    assert encode_key(key, char, kitty_flags=1) == expected


def test_pane_model_flags_drive_the_encoding() -> None:
    from zirv_dash.terminal import TerminalModel

    model = TerminalModel(80, 24)
    model.feed(b"\x1b[>1u")  # the child pushes "disambiguate"
    assert model.keyboard_flags == 1
    assert encode_key("escape", "\x1b", kitty_flags=model.keyboard_flags) == b"\x1b[27u"
    model.feed(b"\x1b[<u")  # and pops it
    assert encode_key("escape", "\x1b", kitty_flags=model.keyboard_flags) == b"\x1b"
