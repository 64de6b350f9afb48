"""OSC 8 hyperlinks in the model: stored per cell (id + URI), kept through
SGR resets and scrolling, ended by an empty URI, and bounded against hostile
streams (unterminated sequences, huge URIs, floods of distinct links)."""

from __future__ import annotations

import time

from zirv_dash.terminal import TerminalModel
from zirv_dash.terminal.links import MAX_LINKS, MAX_URI, Link


def osc8(uri: str, params: str = "", end: str = "\x1b\\") -> bytes:
    return f"\x1b]8;{params};{uri}{end}".encode()


def links(m: TerminalModel, y: int) -> list[tuple[str, Link | None]]:
    return [(t, a.link) for t, a in m.row_runs(y)]


def cell_links(m: TerminalModel, y: int) -> list[str]:
    """The URI of each cell of row `y` ("" for none)."""
    out: list[str] = []
    for text, attr in m.row_runs(y):
        out += [attr.link.uri if attr.link else ""] * len(text)
    return out


def test_cells_between_open_and_close_carry_the_link() -> None:
    m = TerminalModel(30, 3)
    m.feed(
        b"see " + osc8("https://x.org/a", "id=doc") + b"\x1b[1mLINK\x1b[0m!" + osc8("") + b" tail"
    )
    runs = links(m, 0)
    assert runs[0] == ("see ", None)
    link = runs[1][1]
    assert link is not None and (link.id, link.uri) == ("doc", "https://x.org/a")
    assert runs[1][0] == "LINK" and runs[2] == ("!", link)  # SGR 0 ends no link
    assert runs[3][1] is None
    assert cell_links(m, 0)[:10] == [""] * 4 + ["https://x.org/a"] * 5 + [""]


def test_bel_terminates_and_the_same_link_is_one_object() -> None:
    m = TerminalModel(30, 2)
    m.feed(osc8("file:///tmp/a", end="\x07") + b"A" + osc8("", end="\x07") + b" ")
    m.feed(osc8("file:///tmp/a") + b"B" + osc8(""))
    runs = links(m, 0)
    assert runs[0][1] is runs[2][1] and runs[0][1] is not None


def test_a_link_wraps_scrolls_and_is_erased_with_its_cells() -> None:
    m = TerminalModel(10, 3)
    m.feed(osc8("https://wrap.example/") + b"0123456789ABC" + osc8("") + b"\r\n\r\n\r\n")
    assert m.history_size >= 1
    assert all(a.link is not None for t, a in m.history_runs(m.history_size - 1) if t.strip())
    m.feed(b"\x1b[2J\x1b[H" + osc8("https://e.example/") + b"ab\x1b[1;1H\x1b[K")
    assert all(a.link is None for _, a in m.row_runs(0))


def test_ris_ends_a_link() -> None:
    m = TerminalModel(10, 2)
    m.feed(osc8("https://a.example/") + b"\x1bcX")
    assert links(m, 0)[0][1] is None


def test_a_uri_over_2_kib_is_dropped() -> None:
    m = TerminalModel(20, 2)
    m.feed(osc8("https://a/" + "x" * MAX_URI) + b"long" + osc8(""))
    m.feed(osc8("https://a/" + "x" * (MAX_URI - 20)) + b"ok" + osc8(""))
    assert [a.link is not None for t, a in m.row_runs(0)][:2] == [False, True]
    assert m.links.dropped == 1


def test_a_1_mb_uri_is_dropped_in_linear_time() -> None:
    m = TerminalModel(20, 2)
    start = time.perf_counter()
    m.feed(b"\x1b]8;;https://a/" + b"y" * (1 << 20) + b"\x1b\\text")
    assert time.perf_counter() - start < 2.0
    assert links(m, 0)[0] == ("text" + " " * 16, None)


def test_control_characters_and_non_ascii_make_a_uri_be_dropped() -> None:
    m = TerminalModel(20, 2)
    m.feed(osc8("https://a/\x9b31m") + b"a" + osc8("https://\u00e9/") + b"b" + osc8(""))
    assert all(a.link is None for _, a in m.row_runs(0))


def test_an_unterminated_osc_8_swallows_only_its_own_body() -> None:
    m = TerminalModel(20, 2)
    m.feed(b"\x1b]8;;https://never.example/ and more text")
    m.feed(b" still the body")
    assert m.lines()[0] == ""
    # Any ESC ends the string: what follows draws normally, unlinked.
    m.feed(b"\x1b[31mred")
    assert m.lines()[0] == "red"
    assert all(a.link is None for _, a in m.row_runs(0))


def test_ten_thousand_links_stay_within_the_cap() -> None:
    m = TerminalModel(80, 10, scrollback_bytes=1 << 16)
    start = time.perf_counter()
    data = b"".join(
        osc8(f"https://n.example/{i}") + b"L" + osc8("") + b"\r\n" for i in range(10000)
    )
    m.feed(data)
    assert time.perf_counter() - start < 10.0
    table = m.links
    assert len(table) <= MAX_LINKS
    # The small scrollback let most of them go: later links still get places.
    m.feed(osc8("https://last.example/") + b"Z" + osc8(""))
    assert links(m, m.cursor[1])[0][1] is not None


def test_past_the_cap_new_links_are_dropped_while_the_old_are_on_screen() -> None:
    m = TerminalModel(200, 50, scrollback_bytes=1 << 24)
    m.feed(
        b"".join(osc8(f"https://k.example/{i}") + b"L" + osc8("") for i in range(MAX_LINKS + 50))
    )
    table = m.links
    assert len(table) == MAX_LINKS and table.dropped >= 50


def test_a_session_repaint_carries_the_links() -> None:
    from zirv_dash.session.repaint import repaint

    src = TerminalModel(30, 3)
    src.feed(
        b"a " + osc8("https://r.example/", "id=7") + b"\x1b[4:3mlink\x1b[0m" + osc8("") + b" b"
    )
    src.feed(b"\r\n" + osc8("file:///x") + b"row2")  # still open at the row's end
    copy = TerminalModel(30, 3)
    copy.feed(repaint(src))
    assert cell_links(copy, 0) == cell_links(src, 0)
    assert cell_links(copy, 1) == cell_links(src, 1)
    got = [a for t, a in copy.row_runs(0) if t == "link"][0]
    assert got.underline == 3 and got.link is not None and got.link.id == "7"
