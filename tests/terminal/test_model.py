"""Behaviour of TerminalModel, one escape-sequence family at a time."""

from __future__ import annotations

import time

import pytest

from zirv_dash.terminal import DEFAULT_ATTR, Attr, TerminalModel


def model(cols: int = 20, rows: int = 5, data: bytes = b"") -> TerminalModel:
    m = TerminalModel(cols, rows)
    m.feed(data)
    return m


def test_plain_text_and_wrap() -> None:
    m = model(10, 3, b"hello world, wrapping")
    assert m.lines() == ["hello worl", "d, wrappin", "g"]
    assert m.cursor == (1, 2)


def test_crlf_and_scroll_into_history() -> None:
    m = model(10, 3)
    for i in range(5):
        m.feed(b"line %d\r\n" % i)
    assert m.lines() == ["line 3", "line 4", ""]
    assert m.history_size == 3
    assert [m.history_text(i) for i in range(3)] == ["line 0", "line 1", "line 2"]


def test_utf8_split_across_feeds() -> None:
    m = model()
    data = "héllo 中文 ✓".encode()
    for b in data:
        m.feed(bytes([b]))
    assert m.lines()[0] == "héllo 中文 ✓"


def test_invalid_utf8_dropped_like_tmux() -> None:
    m = model(data=b"a\xffb\xc3(c\xed\xa0\x80d\xe4\xb8\rX")
    assert m.lines()[0] == "Xb(cd"


def test_wide_chars_occupy_two_cells() -> None:
    m = model(10, 2, "中文ab".encode())
    assert m.lines()[0] == "中文ab"
    assert m.cursor == (6, 0)
    runs = m.row_runs(0)
    assert "".join(t for t, _ in runs) == "中文ab" + " " * 4
    # overwrite the right half of the second wide char: it becomes blank
    m.feed(b"\x1b[1;4HX")
    assert m.lines()[0] == "中 Xab"
    # in column 0 tmux 3.3 keeps the left half (capture shows it); the
    # rendered runs show a blank so the row still covers its width
    m.feed(b"\x1b[1;2HY")
    assert m.lines()[0] == "中Y Xab"
    assert "".join(t for t, _ in m.row_runs(0)) == " Y Xab    "


def test_wide_char_wraps_at_last_column() -> None:
    m = model(5, 2, "abcd中".encode())
    assert m.lines() == ["abcd", "中"]


def test_combining_characters() -> None:
    m = model(data="e\u0301x".encode())
    assert m.lines()[0] == "e\u0301x"
    assert m.cursor == (2, 0)


def test_sgr_16_256_truecolor_semicolon_and_colon() -> None:
    m = model(
        40,
        2,
        b"\x1b[1;31ma\x1b[0;38;5;200;48;2;1;2;3mb\x1b[0;38:2::10:20:30;48:5:7mc"
        b"\x1b[0;38:2:1:2:3md\x1b[0;92;103;3;4;7;9;5;2me\x1b[0m",
    )
    runs = m.row_runs(0)
    assert runs[0] == ("a", Attr(fg=1, bold=True))
    assert runs[1] == ("b", Attr(fg=200, bg="#010203"))
    assert runs[2] == ("c", Attr(fg="#0a141e", bg=7))
    assert runs[3] == ("d", Attr(fg="#010203"))
    assert runs[4] == (
        "e",
        Attr(
            fg=10,
            bg=11,
            italic=True,
            underline=True,
            reverse=True,
            strike=True,
            blink=True,
            dim=True,
        ),
    )
    assert runs[5][1] is DEFAULT_ATTR
    assert sum(len(t) for t, _ in runs) == 40


def test_private_sgr_ignored() -> None:
    m = model(data=b"\x1b[31m\x1b[>4;2mX\x1b[>4m\x1b[?4mY")
    assert m.lines()[0] == "XY"
    assert m.row_runs(0)[0] == ("XY", Attr(fg=1))


def test_background_colour_erase() -> None:
    m = model(5, 2, b"\x1b[44m\x1b[2J\x1b[0m")
    assert m.row_runs(1) == [("     ", Attr(bg=4))]


def test_alternate_screen_1049() -> None:
    m = model(10, 3, b"main\r\nshell\x1b[?1049h")
    assert m.alternate_screen
    assert m.lines() == ["", "", ""]
    m.feed(b"\x1b[Halt\r\n1\r\n2\r\n3\r\n4")
    assert m.history_size == 0  # alt screen never pollutes the scrollback
    m.feed(b"\x1b[?1049l")
    assert not m.alternate_screen
    assert m.lines() == ["main", "shell", ""]
    assert m.cursor == (5, 1)


@pytest.mark.parametrize("mode", [47, 1047])
def test_alternate_screen_47_1047(mode: int) -> None:
    m = model(10, 3, b"main\x1b[?%dhalt" % mode)
    assert m.alternate_screen
    assert m.lines()[0] == "    alt"
    m.feed(b"\x1b[?%dl" % mode)
    assert m.lines()[0] == "main"


def test_scroll_region() -> None:
    m = model(5, 5, b"a\r\nb\r\nc\r\nd\r\ne\x1b[2;4r\x1b[4;1H\n")
    assert m.lines() == ["a", "c", "d", "", "e"]
    m.feed(b"\x1b[2;1H\x1bM")
    assert m.lines() == ["a", "", "c", "d", "e"]


def test_insert_delete_lines_and_chars() -> None:
    m = model(6, 4, b"111\r\n222\r\n333\r\n444\x1b[2;1H\x1b[L")
    assert m.lines() == ["111", "", "222", "333"]
    m.feed(b"\x1b[M\x1b[M")
    assert m.lines() == ["111", "333", "", ""]
    m.feed(b"\x1b[1;1Habcdef\x1b[1;2H\x1b[2P")
    assert m.lines()[0] == "adef"
    m.feed(b"\x1b[2@")
    assert m.lines()[0] == "a  def"
    m.feed(b"\x1b[1;1H\x1b[3X")
    assert m.lines()[0] == "   def"


def test_erase_line_and_display() -> None:
    m = model(5, 3, b"aaaaa\r\nbbbbb\r\nccccc\x1b[2;3H\x1b[K")
    assert m.lines() == ["aaaaa", "bb", "ccccc"]
    m.feed(b"\x1b[1K")
    assert m.lines() == ["aaaaa", "", "ccccc"]
    m.feed(b"\x1b[J")
    assert m.lines() == ["aaaaa", "", ""]
    m.feed(b"\x1b[1J")
    assert m.lines() == ["", "", ""]


def test_decsc_decrc() -> None:
    m = model(data=b"\x1b[3;4H\x1b[31m\x1b7\x1b[H\x1b[0mx\x1b8y")
    assert m.cursor == (4, 2)
    assert m.row_runs(2)[1] == ("y", Attr(fg=1))


def test_modes() -> None:
    m = model()
    assert m.cursor_visible and not m.app_cursor_keys and not m.bracketed_paste
    m.feed(b"\x1b[?25l\x1b[?1h\x1b[?2004h\x1b[?1000h\x1b[?1002h\x1b[?1006h\x1b[?1004h")
    assert not m.cursor_visible and m.app_cursor_keys and m.bracketed_paste
    assert m.mouse_tracking == 1002 and m.mouse_encoding == "sgr" and m.focus_events
    m.feed(b"\x1b[?1002l\x1b[?1006l\x1b[?1015h")
    assert m.mouse_tracking == 1000 and m.mouse_encoding == "urxvt"
    m.feed(b"\x1b[?1000l\x1b[?1015l\x1b[?25h")
    assert m.mouse_tracking == 0 and m.mouse_encoding == "x10" and m.cursor_visible


def test_title_control_chars_removed() -> None:
    m = model(data=b"\x1b]0;hello\x01 \x9cworld\x07x\x1b]2;second\x1b\\y")
    assert m.title == "second"
    assert m.lines()[0] == "xy"
    m.feed(b"\x1b]2;a\x05b\x07")
    assert m.title == "ab"


def test_osc8_hyperlink_does_not_garble() -> None:
    m = model(40, 2, b"see \x1b]8;id=1;https://example.com\x1b\\link\x1b]8;;\x1b\\ here")
    assert m.lines()[0] == "see link here"


def test_dcs_apc_pm_ignored() -> None:
    m = model(data=b"a\x1bP+q544e\x1b\\b\x1b_Gf=100;AAAA\x1b\\c\x1b^pm\x1b\\d\x1bXsos\x1b\\e")
    assert m.lines()[0] == "abcde"
    m = model(data=b"a\x1bkscreen title\x07still\x1b\\b")  # ESC k ends only with ST
    assert m.lines()[0] == "ab"


def test_string_split_across_feeds() -> None:
    m = model()
    for b in b"a\x1b]0;split title\x1b\\b\x1b[31mc":
        m.feed(bytes([b]))
    assert m.title == "split title"
    assert m.lines()[0] == "abc"
    assert m.row_runs(0)[1] == ("c", Attr(fg=1))


def test_replies() -> None:
    m = model(data=b"\x1b[2;3H\x1b[6n\x1b[5n\x1b[c\x1b[>c\x1b[?u\x1b[>q")
    assert m.take_replies() == (
        b"\x1b[2;3R\x1b[0n\x1b[?62;22c\x1b[>84;0;0c\x1b[?0u\x1bP>|zirv-dash(0.1.0)\x1b\\"
    )
    assert m.take_replies() == b""
    # Colours nobody told the model: no answer at all (as tmux gives when its
    # client never reported them), not an invented one.
    m.feed(b"\x1b]10;?\x07\x1b]11;?\x1b\\\x1b]12;?\x07\x1b]10;?;?\x07")
    assert m.take_replies() == b""
    m.default_fg_rgb, m.default_bg_rgb = (0xAA, 0xBB, 0xCC), (0x10, 0x20, 0x30)
    m.feed(b"\x1b]10;?\x07\x1b]11;?\x1b\\")
    assert m.take_replies() == (b"\x1b]10;rgb:aaaa/bbbb/cccc\x07\x1b]11;rgb:1010/2020/3030\x1b\\")


def test_kitty_keyboard_flags() -> None:
    m = model(data=b"\x1b[>1u\x1b[?u")
    assert m.keyboard_flags == 1
    assert m.take_replies() == b"\x1b[?1u"
    m.feed(b"\x1b[<u")
    assert m.keyboard_flags == 0


def test_decrqm() -> None:
    m = model(data=b"\x1b[?2004h\x1b[?2004$p\x1b[?25$p\x1b[?9999$p")
    assert m.take_replies() == b"\x1b[?2004;1$y\x1b[?25;1$y\x1b[?9999;0$y"


def test_synchronized_output() -> None:
    m = model(data=b"\x1b[?2026h")
    assert m.synchronized
    m.feed(b"x\x1b[?2026l")
    assert not m.synchronized


def test_synchronized_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    m = model(data=b"\x1b[?2026h")
    now = time.monotonic()
    monkeypatch.setattr(time, "monotonic", lambda: now + 1.5)
    assert not m.synchronized


def test_dirty_rows_and_versions() -> None:
    m = model(10, 4)
    assert m.take_dirty() == {0, 1, 2, 3}
    v0 = m.version
    r1 = m.row_version(1)
    m.feed(b"\x1b[2;1Hx")
    assert m.take_dirty() == {1}
    assert m.row_version(1) != r1
    assert m.version > v0
    assert m.take_dirty() == set()
    m.feed(b"\x1b[4;1H\n")  # scroll: every row changes
    assert m.take_dirty() == {0, 1, 2, 3}
    m.resize(12, 5)
    assert m.take_dirty() == {0, 1, 2, 3, 4}


def test_row_runs_cover_columns() -> None:
    m = model(8, 2, "\x1b[31m中\x1b[0mab".encode())
    runs = m.row_runs(0)
    assert runs == [("中", Attr(fg=1)), ("ab    ", DEFAULT_ATTR)]


def test_history_runs_padded_and_truncated() -> None:
    m = model(6, 2, b"\x1b[32mgreen\x1b[0m\r\n\r\n")
    assert m.history_size == 1
    assert m.history_runs(0) == [("green", Attr(fg=2)), (" ", DEFAULT_ATTR)]
    m.resize(3, 2)
    assert m.history_runs(0) == [("gre", Attr(fg=2))]


def test_scrollback_bounded_in_bytes() -> None:
    m = TerminalModel(20, 2, scrollback_bytes=1000)
    for i in range(1000):
        m.feed(b"%09d\r\n" % i)
    assert m.history_size <= 100
    assert m.history_text(m.history_size - 1) == "000000998"


def test_resize_keeps_content() -> None:
    m = model(10, 4, b"a\r\nb\r\nc\r\nd")
    m.resize(5, 2)
    assert m.lines() == ["c", "d"]
    assert (m.columns, m.rows) == (5, 2)
    m.resize(5, 4)
    assert m.lines() == ["a", "b", "c", "d"]


def test_dec_graphics() -> None:
    """Line drawing renders as glyphs; the text shows the ASCII letters, as
    tmux's capture-pane does."""
    m = model(data=b"\x1b(0lqqk\x1b(Bx\x1b)0\x0eq\x0fq")
    assert m.lines()[0] == "lqqkxqq"
    assert m.row_runs(0)[0][0].startswith("┌──┐x─q")
    for _ in range(5):
        m.feed(b"\r\n")
    assert m.history_text(0) == "lqqkxqq"
    assert m.history_runs(0)[0][0] == "┌──┐x─q"


def test_unknown_sequences_ignored() -> None:
    m = model(
        data=b"a\x1b[?1;2;3z\x1b[1;2;3$}\x1b[12;1'w\x1b#3\x1b%G\x1b[=5c\x1b[>0;1T\x1bZ"
        b"\x1b[1?2m\x1b[99999999999999999999Cb"
    )
    assert m.lines()[0] == "a" + " " * 18 + "b"


def test_control_inside_csi_is_executed() -> None:
    m = model(data=b"ab\x1b[1\r;3Hx")
    assert m.lines()[0] == "abx"
    assert m.cursor == (3, 0)


def test_rep_repeats_last_char() -> None:
    m = model(data=b"a\x1b[4b")
    assert m.lines()[0] == "aaaaa"


def test_tabs() -> None:
    m = model(30, 2, b"a\tb\tc")
    assert m.lines()[0] == "a       b       c"


# -- tmux-specific behaviour found by differential testing against tmux 3.3 --


def test_rep_only_repeats_ascii_and_up_to_line_end() -> None:
    m = model(10, 3, b"ab\x1b[100b")
    assert m.lines() == ["abbbbbbbbb", "", ""]
    m = model(10, 3, "中\x1b[3b".encode())
    assert m.lines()[0] == "中"
    m = model(10, 3, b"a\x1b[31m\x1b[3b")  # any other sequence in between
    assert m.lines()[0] == "a"


def test_decstbm_zero_bottom_is_one_and_invalid_region_ignored() -> None:
    m = model(10, 5, b"\x1b[3;3H\x1b[3;0r")
    assert m.cursor == (2, 2)  # invalid (3 > 1): ignored, cursor stays
    m.feed(b"\x1b[2;4r")
    assert m.cursor == (0, 0)


def test_linefeed_keeps_pending_wrap() -> None:
    m = model(5, 3, b"abcde\nX")
    assert m.lines() == ["abcde", "", "X"]


def test_insert_line_outside_region_uses_rest_of_screen() -> None:
    m = model(5, 4, b"1\r\n2\r\n3\r\n4\x1b[1;2r\x1b[3;1H\x1b[L")
    assert m.lines() == ["1", "2", "", "3"]


def test_zwj_emoji_sequence_is_one_glyph() -> None:
    m = model(10, 2, "👨\u200d👩\u200d👧X".encode())
    assert m.lines()[0] == "👨\u200d👩\u200d👧X"
    assert m.cursor == (3, 0)


def test_unprintable_characters_dropped() -> None:
    m = model(10, 2, "a\u2028b\u0085c".encode())
    assert m.lines()[0] == "abc"


def test_wide_char_without_autowrap_dropped_at_margin() -> None:
    m = model(5, 2, "\x1b[?7labcd中".encode())
    assert m.lines()[0] == "abcd"


def test_cell_width_matches_runs() -> None:
    from zirv_dash.terminal import cell_width

    m = model(12, 2, "a中e\u0301👨\u200d👩x".encode())
    runs = m.row_runs(0)
    assert sum(cell_width(t) for t, _ in runs) == 12


def test_combining_marks_capped_per_cell_like_tmux() -> None:
    m = model(20, 2, ("a" + "\u0301" * 30 + "X").encode())
    assert m.lines()[0] == "a" + "\u0301" * 10 + "X"  # 21 UTF-8 bytes in a cell
    assert m.cursor == (2, 0)


def test_many_controls_inside_one_csi() -> None:
    m = model(10, 3, b"\x1b[2" + b"\n" * 5000 + b";4Hx")
    assert m.cursor == (4, 1)
    assert m.lines()[1] == "   x"


def test_ich_moves_cells_like_tmux() -> None:
    m = model(10, 2, b"0123456789\x1b[1;3H\x1b[5@")
    assert m.lines()[0] == "01   56234"  # tmux leaves cells it did not move
    m = model(10, 2, b"0123456789\x1b[1;3H\x1b[8@")
    assert m.lines()[0] == "0123456789"  # reaching the margin: nothing moves


def test_sgr_bad_input_read_like_tmux() -> None:
    # bad truecolor component: only "38;2" is skipped, "300;1;1" then reads
    # as codes (300 ignored, 1 = bold)
    m = model(data=b"\x1b[38;2;300;1;1mA\x1b[0;31;38;5;300mB\x1b[0;1:2mC\x1b[0;4:mD\x1b[0;1;;4mE")
    runs = m.row_runs(0)
    assert runs[0] == ("A", Attr(bold=True))
    # B: a bad 256-colour index resets the colour; C: the colon form of a
    # plain code is ignored; D: "4:" without a style is ignored
    assert runs[1] == ("BCD", DEFAULT_ATTR)
    assert runs[2][1] == Attr(underline=True)  # empty parameter = reset


# -- resize re-wraps like tmux (expected screens taken from tmux 3.3) --------


def test_resize_rewraps_wrapped_lines() -> None:
    data = b"short\r\n" + b"x" * 25 + b"\r\nabc\r\n$ "
    m = model(10, 6, data)
    m.resize(20, 6)
    m.feed(b"Q")
    assert m.lines() == ["short", "x" * 20, "x" * 5, "abc", "$ Q", ""]
    m = model(20, 6, data)
    m.resize(10, 6)
    m.feed(b"Q")
    assert m.lines() == ["x" * 10, "x" * 10, "x" * 5, "abc", "$ Q", ""]
    assert m.history_size == 1 and m.history_text(0) == "short"


def test_resize_rewraps_wide_characters() -> None:
    m = model(15, 5, "中文字符テスト".encode() * 3 + b"\r\n$ ")
    m.resize(8, 5)
    m.feed(b"Q")
    assert m.lines() == ["スト中文", "字符テス", "ト", "$ Q", ""]


def test_resize_cursor_line_into_scrollback_goes_home() -> None:
    m = model(20, 6, b"abc" + b"0123456789" * 5 + b"\x1b[1;5H")
    m.resize(13, 6)
    assert m.cursor == (0, 0)


def test_resize_while_alternate_screen_reflows_main_on_exit() -> None:
    m = model(20, 6, b"a\r\n" + b"0123456789" * 5 + b"\x1b[?1049hALT")
    m.resize(13, 6)
    m.feed(b"\x1b[?1049lQ")
    assert m.lines() == ["0123456789012", "3456789012345", "6789012345678", "90123456789Q", "", ""]


def test_backspace_at_column_0_goes_back_over_a_wrap() -> None:
    m = model(5, 3, b"abcdefg\r\x08")
    assert m.cursor == (4, 0)
    m = model(5, 3, b"abc\r\nde\r\x08")
    assert m.cursor == (0, 1)  # not wrapped: stays


def test_line_wrapped_flags() -> None:
    m = model(5, 3, b"abcdefg\r\nxy\r\n12345678")
    # scrollback: "abcde" (wrapped), "fg"; screen: "xy", "12345" (wrapped), "678"
    assert m.history_size == 2
    assert [m.line_wrapped(i) for i in range(5)] == [True, False, False, True, False]
    assert not m.line_wrapped(99)
