"""A whole buffer reaches a pipe that is full, non-blocking, and read slowly."""

from __future__ import annotations

import os
import threading

import pytest

from zirv_dash.fdio import write_all

pytestmark = pytest.mark.timeout(30)


def _drain(fd: int, into: bytearray) -> None:
    while chunk := os.read(fd, 4096):
        into.extend(chunk)


def test_a_full_non_blocking_pipe_gets_every_byte() -> None:
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    data = bytes(range(256)) * 4096  # 1 MiB: many times a pipe's buffer
    received = bytearray()
    reader = threading.Thread(target=_drain, args=(read_fd, received))
    reader.start()
    try:
        write_all(write_fd, data)
    finally:
        os.close(write_fd)
        reader.join(timeout=20)
        os.close(read_fd)
    assert bytes(received) == data


def test_a_closed_reader_is_the_callers_error() -> None:
    read_fd, write_fd = os.pipe()
    os.close(read_fd)
    try:
        with pytest.raises(BrokenPipeError):
            write_all(write_fd, b"x")
    finally:
        os.close(write_fd)
