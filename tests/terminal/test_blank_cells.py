"""Blanked cells (EL, ECH) are copied from blanks shared by count; a blank in
a background colour (BCE) must still take that colour, and a blank of the same
count in the default rendition right after must not."""

from __future__ import annotations

from zirv_dash.terminal import DEFAULT_ATTR, TerminalModel


def test_erased_cells_take_the_background_only_when_there_is_one() -> None:
    m = TerminalModel(10, 3)
    m.feed(b"abcdefghij\x1b[1;6H\x1b[K")  # default: five default blanks
    m.feed(b"\x1b[2;1Habcdefghij\x1b[2;6H\x1b[44m\x1b[K")  # five blue ones
    m.feed(b"\x1b[0m\x1b[3;1Habcdefghij\x1b[3;6H\x1b[5X")  # five default again (ECH)
    attrs = m._screen.attrs  # noqa: SLF001 - the cells themselves
    assert m.lines() == ["abcde", "abcde", "abcde"]
    assert attrs[0][5:] == [DEFAULT_ATTR] * 5
    assert [a.bg for a in attrs[1][5:]] == [4] * 5
    assert attrs[1][5].bold is False and attrs[1][5].fg is None  # only the background
    assert attrs[2][5:] == [DEFAULT_ATTR] * 5
    assert type(m._screen.chars[0]) is list  # noqa: SLF001 - rows stay lists
