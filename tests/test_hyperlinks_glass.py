"""OSC 8 hyperlinks at the glass: the bytes zirv writes to a plain PTY open a
link right before exactly the linked cells and close it (`ESC ] 8 ; ; ST`)
right after them, the style and id kept; `Ctrl+click` and copy mode's `Enter`
ask before anything is opened, and only http/https/file are opened."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from rich.style import Style
from textual.strip import Strip

from tests.ptyglass import PtyGlass
from widgets.terminal_style import run_segments
from zirv_dash.dash import hyperlinks
from zirv_dash.terminal import TerminalModel

OPEN = re.compile(rb"\x1b\]8;([^;\x1b]*);([^\x1b]*)\x1b\\")
CLOSE = b"\x1b]8;;\x1b\\"
SGR = re.compile(rb"\x1b\[[0-9;:]*m")


def linked_texts(raw: bytes) -> list[tuple[bytes, bytes, bytes]]:
    """(params, URI, printed text) of every link opened in `raw`; a link must be
    closed before anything but SGR and text is written."""
    out = []
    for m in OPEN.finditer(raw):
        if not m.group(2):
            continue
        end = raw.index(CLOSE, m.end())
        body = raw[m.end() : end]
        assert b"\x1b]" not in body and not re.search(rb"\x1b\[[0-9;]*[A-HJKf]", body), body
        out.append((m.group(1), m.group(2), SGR.sub(b"", body)))
    return out


def test_a_row_renders_each_link_around_exactly_its_cells() -> None:
    m = TerminalModel(30, 1)
    m.feed(b"a \x1b]8;id=x;https://e.org/1\x1b\\\x1b[31mRED\x1b[0mplain\x1b]8;;\x1b\\ b")
    out = Strip(run_segments(m.row_runs(0))).apply_style(Style(bgcolor="default"))
    raw = out.render(Console(color_system="truecolor")).encode()
    assert [t for *_, t in linked_texts(raw)] == [b"RED", b"plain"]
    assert {p for p, *_ in linked_texts(raw)} == {b"id=x"}
    assert raw.count(CLOSE) == 2 and raw.rstrip().endswith(b"\x1b[0m")


@pytest.fixture
def glass(project: Path, tmp_path: Path) -> Iterator[PtyGlass]:
    g = PtyGlass(project, tmp_path, COLORTERM="truecolor")
    yield g
    g.close()


@pytest.mark.timeout(90)
def test_links_reach_a_plain_pty_around_the_right_cells(glass: PtyGlass) -> None:
    glass.wait_for("▕$")
    start = len(glass.raw)
    # The typed command holds neither link text (split by '') nor the ESC bytes.
    cmd = (
        r"printf 'x \033]8;id=f1;file:///tmp/a.py\033\\%s\033]8;;\033\\ y "
        r"\033]8;;https://example.com/q?a=1\033\\%s\033]8;;\033\\ z\n' 'SRC''FILE' 'WEB''SITE'"
    )
    glass.write(cmd.encode() + b"\r")
    glass.wait_for("x SRCFILE y WEBSITE z")
    glass.wait_raw(b"WEBSITE", start)
    found = linked_texts(bytes(glass.raw[start:]))
    texts = {(uri, text) for _, uri, text in found}
    assert (b"file:///tmp/a.py", b"SRCFILE") in texts
    assert (b"https://example.com/q?a=1", b"WEBSITE") in texts
    assert all(text in (b"SRCFILE", b"WEBSITE") for _, _, text in found), found
    assert b"id=f1" in {p for p, _, _ in found}
    # And our own terminal, reading those bytes, has the links on exactly those cells.
    y = next(i for i, line in enumerate(glass.screen.lines()) if "x SRCFILE y" in line)
    uris = {t.strip(): a.link.uri for t, a in glass.screen.row_runs(y) if a.link is not None}
    assert uris == {"SRCFILE": "file:///tmp/a.py", "WEBSITE": "https://example.com/q?a=1"}


@pytest.mark.parametrize(
    ("uri", "refused"),
    [
        ("https://a.example/", False),
        ("http://a.example/", False),
        ("FILE:///etc/hosts", False),
        ("javascript:alert(1)", True),
        ("ssh://host", True),
        ("no-scheme", True),
    ],
)
def test_only_http_https_and_file_are_opened(uri: str, refused: bool) -> None:
    assert (hyperlinks.refusal(uri) is not None) == refused


def test_the_opener_gets_the_uri_as_one_argument(tmp_path: Path) -> None:
    seen = tmp_path / "seen"
    opener = tmp_path / "opener"
    opener.write_text(f'#!/bin/sh\nprintf "%s|" "$@" > {seen}\n')
    opener.chmod(0o755)
    assert hyperlinks.open_uri("https://a.example/x y;$(id)", str(opener)) is None
    assert seen.read_text() == "https://a.example/x y;$(id)|"
    assert hyperlinks.open_uri("ssh://h", str(opener)) is not None
    failing = tmp_path / "failing"
    failing.write_text("#!/bin/sh\nexit 3\n")
    failing.chmod(0o755)
    assert "exit 3" in (hyperlinks.open_uri("https://a.example/", str(failing)) or "")
