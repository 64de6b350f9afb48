"""Titles (OSC 0/2), the working directory (OSC 7) and a child's notifications
(OSC 9, 777, 99) in the model: parsed, sanitised and bounded."""

from __future__ import annotations

import socket

import pytest

from zirv_dash.terminal import TerminalModel
from zirv_dash.terminal.osc_info import MAX_NOTES, MAX_TITLE


def fed(data: bytes) -> TerminalModel:
    m = TerminalModel(40, 3)
    m.feed(data)
    return m


def test_a_title_is_sanitised_and_bounded() -> None:
    assert fed(b"\x1b]2;\xe2\x80\xaeevil\xe2\x80\x8b name\x07").title == "evil name"
    assert len(fed(b"\x1b]0;" + b"t" * 100_000 + b"\x07").title) == MAX_TITLE
    assert fed(b"\x1b]2;line\xe2\x80\xa8two\x1b\\").title == "line two"


@pytest.mark.parametrize(
    ("url", "cwd"),
    [
        ("file:///tmp/a%20b", "/tmp/a b"),
        ("file://localhost/srv/x", "/srv/x"),
        (f"file://{socket.gethostname()}/home/u", "/home/u"),
        ("kitty-shell-cwd:///var/tmp", "/var/tmp"),
        ("file://elsewhere.example/etc", None),
        ("file://", None),
        ("relative/path", None),
        ("http://localhost/tmp", None),
        ("file:///tmp/%00nul", None),
        ("file:///" + "d" * 20000, None),
    ],
)
def test_osc_7_reports_a_local_directory(url: str, cwd: str | None) -> None:
    m = fed(f"\x1b]7;{url}\x1b\\".encode())
    assert m.cwd == cwd
    if cwd is None:
        m.feed(b"\x1b]7;file:///ok\x07" + f"\x1b]7;{url}\x07".encode())
        assert m.cwd == "/ok"  # a bad report leaves the last good one


def test_notifications_of_every_flavour() -> None:
    m = fed(
        b"\x1b]9;build finished\x07"
        b"\x1b]9;4;1;50\x07"  # ConEmu progress: no notification
        b"\x1b]777;notify;Claude;needs your permission\x1b\\"
        b"\x1b]777;preexec\x07"
        b"\x1b]99;i=1:d=0;Tests\x1b\\\x1b]99;i=1:p=body;3 failed\x1b\\"
        b"\x1b]99;e=1;aGk=\x1b\\"  # base64: not shown
    )
    assert m.has_notifications
    assert m.take_notifications() == [
        ("", "build finished"),
        ("Claude", "needs your permission"),
        ("Tests", "3 failed"),
    ]
    assert m.take_notifications() == [] and not m.has_notifications


def test_a_flood_of_notifications_keeps_the_newest() -> None:
    m = fed(b"".join(b"\x1b]9;note %d\x07" % i for i in range(1000)))
    notes = m.take_notifications()
    assert len(notes) == MAX_NOTES and notes[-1] == ("", "note 999")


def test_kitty_chunks_are_bounded() -> None:
    m = fed(b"".join(b"\x1b]99;i=%d:d=0;x\x1b\\" % i for i in range(1000)))
    assert len(m._kitty_notes) <= MAX_NOTES  # noqa: SLF001
    m.feed(b"\x1b]99;i=z:d=0;" + b"y" * 10000 + b"\x1b\\\x1b]99;i=z;" + b"w" * 10000 + b"\x1b\\")
    assert all(len(t) <= 240 for t, _ in m.take_notifications())
