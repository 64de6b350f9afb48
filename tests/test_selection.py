"""Selection text over scrollback + screen: exact across wraps and wide characters."""

from __future__ import annotations

from zirv_dash.dash.selection import (
    ModelLines,
    columns_in_line,
    drag_span,
    line_at,
    matches_in_line,
    search,
    text_between,
    word_at,
)
from zirv_dash.terminal import TerminalModel


def model(text: str, columns: int = 20, rows: int = 5) -> tuple[TerminalModel, ModelLines]:
    m = TerminalModel(columns, rows)
    m.feed(text.replace("\n", "\r\n").encode())
    return m, ModelLines(m)


def test_single_line_and_trailing_blanks() -> None:
    _, src = model("hello world   \nsecond")
    assert text_between(src, (0, 0), (0, 5)) == "hello"
    assert text_between(src, (0, 6), (0, 20)) == "world"
    # Whole rows between: the first from its column, the last up to (not incl.) its end.
    assert text_between(src, (0, 6), (1, 3)) == "world\nsec"
    assert text_between(src, (1, 3), (0, 6)) == ""  # reversed spans are empty


def test_wrapped_line_copies_as_one_line() -> None:
    line = "abcdefghijklmnopqrstuvwxyz0123456789"  # 36 chars over 20 columns
    _, src = model(line + "\nnext")
    assert text_between(src, (0, 0), (1, 20)) == line
    assert text_between(src, (0, 0), (2, 4)) == line + "\nnext"
    assert line_at(src, 1) == ((0, 0), (1, 20))
    assert text_between(src, *line_at(src, 0)) == line


def test_wide_characters_are_never_split() -> None:
    _, src = model("ab漢字cd\n")
    # 漢 occupies columns 2-3, 字 4-5.
    assert text_between(src, (0, 0), (0, 8)) == "ab漢字cd"
    # A span starting on the right half of 漢 or ending inside 字 takes them whole.
    assert text_between(src, (0, 3), (0, 5)) == "漢字"
    assert drag_span(src, (0, 5), (0, 3)) == ((0, 2), (0, 6))
    assert text_between(src, *drag_span(src, (0, 0), (0, 2))) == "ab漢"


def test_wide_characters_across_a_wrap() -> None:
    # 12 wide characters = 24 cells over 20 columns.
    text = "一二三四五六七八九十百千"
    _, src = model(text + "\n")
    assert text_between(src, (0, 0), (1, 20)) == text


def test_scrollback_and_screen_points_are_absolute() -> None:
    m, src = model("\n".join(f"line {i}" for i in range(12)), rows=4)
    history = m.history_size
    assert history == 8
    assert text_between(src, (6, 0), (history + 1, 6)) == "line 6\nline 7\nline 8\nline 9"
    # More output scrolls the screen into the history; the points still name the same text.
    m.feed(b"\r\nmore\r\nlines")
    assert text_between(src, (6, 0), (history + 1, 6)) == "line 6\nline 7\nline 8\nline 9"


def test_words() -> None:
    _, src = model("run ./src/app.py --fast (ok)", columns=40)
    assert text_between(src, *word_at(src, (0, 8))) == "./src/app.py"
    assert text_between(src, *word_at(src, (0, 0))) == "run"
    assert text_between(src, *word_at(src, (0, 24))) == "("
    assert word_at(src, (0, 3)) == ((0, 3), (0, 4))  # a blank run


def test_word_follows_a_wrap_and_wide_words() -> None:
    _, src = model("x " + "w" * 25 + " y\n漢字 z")
    assert text_between(src, *word_at(src, (1, 2))) == "w" * 25
    assert text_between(src, *word_at(src, (2, 1))) == "漢字"


def test_columns_in_line() -> None:
    span = ((2, 5), (4, 3))
    assert columns_in_line(span, 1, 20) is None
    assert columns_in_line(span, 2, 20) == (5, 20)
    assert columns_in_line(span, 3, 20) == (0, 20)
    assert columns_in_line(span, 4, 20) == (0, 3)


def test_search_smart_case_both_directions_and_wide() -> None:
    m, src = model("Error one\nerror two\nfine\n漢 ERROR", rows=3)
    assert m.history_size == 1
    first = search(src, "error", (0, -1), forward=True)
    assert first == ((0, 0), (0, 5))
    second = search(src, "error", first[0], forward=True)
    assert second == ((1, 0), (1, 5))
    third = search(src, "error", second[0], forward=True)
    assert third == ((3, 3), (3, 8))  # after a wide character: cell columns
    assert search(src, "error", third[0], forward=True) == first  # wraps around
    assert search(src, "error", first[0], forward=False) == third
    assert search(src, "Error", (0, -1), forward=True) == first  # capitals: exact case
    assert search(src, "Error", first[0], forward=True) == first
    assert search(src, "nothing", (0, 0), forward=True) is None
    assert matches_in_line(src, 3, "error") == [(3, 8)]


def test_rules_and_full_screen_rows_are_not_joined() -> None:
    rule = "─" * 20
    _, src = model(rule + "\n> prompt")
    assert text_between(src, (0, 0), (1, 8)) == rule + "\n> prompt"
    m, src = model("\x1b[?1049h" + "a" * 20 + "b" * 5)
    assert m.alternate_screen
    assert text_between(src, (0, 0), (1, 5)) == "a" * 20 + "\nbbbbb"
