"""The output thread's way past itself (`screens.direct_writer`): a write goes out
at once only when nothing is in flight, never blocks the caller, and every
byte reaches the terminal in order, a stalled terminal included."""

from __future__ import annotations

import io
import os
import pty
import select
import time
from collections.abc import Iterator

import pytest

from screens.direct_writer import DirectWriter

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def terminal() -> Iterator[tuple[int, io.TextIOWrapper]]:
    """A pty: its master end (the terminal) and its slave end as a text file."""
    master, slave = pty.openpty()
    file = io.TextIOWrapper(io.FileIO(slave, "w", closefd=True), encoding="utf-8")
    try:
        yield master, file
    finally:
        file.close()
        os.close(master)


@pytest.fixture
def writing(
    terminal: tuple[int, io.TextIOWrapper],
) -> Iterator[tuple[int, io.TextIOWrapper, DirectWriter]]:
    """The terminal, and a started writer on its slave end (stopped after)."""
    master, file = terminal
    writer = DirectWriter(file)
    writer.start()
    try:
        yield master, file, writer
    finally:
        writer.stop()


def read_until(master: int, want: bytes, timeout: float = 10.0) -> bytes:
    got = b""
    deadline = time.monotonic() + timeout
    while want not in got:
        left = deadline - time.monotonic()
        assert left > 0, f"{want!r} not in {got[-200:]!r}"
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            got += os.read(master, 65536)
    return got


def wait_idle(writer: DirectWriter) -> None:
    deadline = time.monotonic() + 10
    while writer._in_flight:  # noqa: SLF001 - what the direct path waits on
        assert time.monotonic() < deadline
        time.sleep(0.001)


def test_an_idle_writer_lets_a_write_through_at_once(
    writing: tuple[int, io.TextIOWrapper, DirectWriter],
) -> None:
    master, file, writer = writing
    writer.write("queued-α ")
    read_until(master, "queued-α ".encode())
    wait_idle(writer)
    assert writer.write_now("direct-β")
    assert writer.direct_writes == 1
    assert read_until(master, "direct-β".encode())


def test_a_stalled_terminal_never_blocks_the_caller_and_loses_nothing(
    writing: tuple[int, io.TextIOWrapper, DirectWriter],
) -> None:
    master, file, writer = writing
    # The terminal reads nothing: the thread blocks inside its write.
    # Fewer items than the queue holds, more bytes than a pty buffers.
    chunks = [f"[{n:05d}{'x' * 20000}]" for n in range(10)]
    for chunk in chunks:
        writer.write(chunk)
    started = time.monotonic()
    assert not writer.write_now("late")  # something is in flight: queued instead
    writer.write("late")
    assert time.monotonic() - started < 1.0
    got = read_until(master, b"late")
    assert got.decode() == "".join(chunks) + "late"  # all of it, in order


def test_what_a_full_terminal_does_not_take_follows_in_order(
    writing: tuple[int, io.TextIOWrapper, DirectWriter],
) -> None:
    master, file, writer = writing
    # Fill the terminal's buffer past the thread (it stays idle), then let
    # the terminal take a little: the direct write is taken in part and the
    # rest must follow through the thread, in order.
    filler = os.open(os.ttyname(file.fileno()), os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
    sent = b""
    try:
        while True:
            chunk = f"<{len(sent):07d}>".encode() * 100
            try:
                taken = os.write(filler, chunk)
            except BlockingIOError:
                break
            sent += chunk[:taken]
    finally:
        os.close(filler)
    # ~7 KB: more than the room each read below makes.
    tail = "ωωωωωωωωω|" * 390
    front = b""
    deadline = time.monotonic() + 10
    while True:
        front += os.read(master, 1024)
        started = time.monotonic()
        wrote = writer.write_now(tail)
        assert time.monotonic() - started < 0.5  # never blocked
        if wrote:
            break
        assert time.monotonic() < deadline
    assert writer._in_flight == 1  # noqa: SLF001 - the rest, queued behind it
    got = front + read_until(master, tail.encode())
    assert got == sent + tail.encode()
