"""An observer draws a session at its own terminal's size: letterboxed when
larger, cropped around the cursor when smaller, with a status line saying why."""

from __future__ import annotations

from zirv_dash.session.observer_view import ObserverView
from zirv_dash.terminal import TerminalModel


def shown(frame: bytes, columns: int, rows: int) -> list[str]:
    glass = TerminalModel(columns, rows)
    glass.feed(frame)
    return glass.lines()


def session(columns: int, rows: int, text: bytes) -> ObserverView:
    view = ObserverView(columns, rows)
    view.feed(text)
    return view


def test_a_larger_terminal_shows_the_session_letterboxed_with_a_status_line() -> None:
    view = session(20, 4, b"one\r\ntwo\r\nthree")
    view.status = "busy: abc controls it"
    lines = shown(view.frame(40, 10), 40, 10)
    assert lines[:3] == ["one", "two", "three"]
    assert all(line == "" for line in lines[4:9])  # below the session: blank
    assert lines[9].startswith(" [20x4] busy: abc controls it")


def test_a_smaller_terminal_is_cropped_around_the_cursor_never_wrapped() -> None:
    rows = b"\r\n".join(f"row{i:02d}-".encode() + b"x" * 60 for i in range(20))
    view = session(80, 24, rows + b"\r\n$ ")
    lines = shown(view.frame(30, 6), 30, 6)
    assert lines[4] == "$"  # the cursor's row is in view
    assert lines[0].startswith("row16-") and len(lines[0]) == 30  # cut at the edge
    assert lines[-1].startswith(" [80x24] watching")
    # The cursor far right: the view follows it.
    view.feed(b"y" * 60)
    lines = shown(view.frame(30, 6), 30, 6)
    assert lines[4].endswith("y" * 29)


def test_a_wide_character_cut_by_the_edge_is_a_blank() -> None:
    view = session(10, 2, "ab漢字cd\r".encode())
    lines = shown(view.frame(3, 3), 3, 3)
    assert lines[0] == "ab"  # 漢 straddles the edge: blank (trailing blanks trimmed)
