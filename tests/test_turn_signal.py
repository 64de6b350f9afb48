"""Turn-signal socket: a pane binds it, `zirv ctx hook stop` posts to it."""

from __future__ import annotations

import asyncio
import shutil
import socket
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from zirv_dash.attention import turn_signal
from zirv_dash.attention.turn_signal import TurnSignalError, TurnSignalServer, send_turn_signal


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    directory = Path(tempfile.mkdtemp(prefix="zts", dir="/tmp"))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def test_signals_are_received_and_drained(sock_dir: Path) -> None:
    path = sock_dir / "s" / "abcdef12.sock"
    with TurnSignalServer.bind(path) as server:
        assert stat.S_ISSOCK(path.stat().st_mode)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert server.drain() == []  # nothing yet, and it does not block
        assert send_turn_signal(path) is True
        assert send_turn_signal(path, "stop") is True
        assert server.drain() == ["stop", "stop"]
        assert server.drain() == []
    assert not path.exists()


def test_garbage_datagrams_are_ignored(sock_dir: Path) -> None:
    path = sock_dir / "x.sock"
    with TurnSignalServer.bind(path) as server:
        raw = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        for payload in (b"", b"\x00\xff\x1b[2J", b"a" * 100, b"STOP extra words\n"):
            raw.sendto(payload, str(path))
        raw.close()
        assert server.drain() == ["stop"]


def test_send_without_listener_is_false_not_an_error(sock_dir: Path) -> None:
    assert send_turn_signal(sock_dir / "missing.sock") is False
    path = sock_dir / "stale.sock"
    server = TurnSignalServer.bind(path)
    server._sock.close()  # simulate a crashed pane: file left, nobody bound
    assert path.exists()
    assert send_turn_signal(path) is False
    assert send_turn_signal(sock_dir / ("x" * 200)) is False


def test_stale_socket_is_replaced_live_one_refused(sock_dir: Path) -> None:
    path = sock_dir / "abcdef12.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dead.bind(str(path))
    dead.close()
    with TurnSignalServer.bind(path) as server:
        with pytest.raises(TurnSignalError, match="already in use"):
            TurnSignalServer.bind(path)
        assert send_turn_signal(path)
        assert server.drain() == ["stop"]


def test_close_leaves_a_successors_socket_alone(sock_dir: Path) -> None:
    path = sock_dir / "abcdef12.sock"
    first = TurnSignalServer.bind(path)
    first._sock.close()
    second = TurnSignalServer.bind(path)  # replaced the stale file
    first.close()
    assert path.exists()
    second.close()
    assert not path.exists()


def test_too_long_path_is_a_clear_error(sock_dir: Path) -> None:
    path = sock_dir / ("d" * 120) / "abcdef12.sock"
    with pytest.raises(TurnSignalError, match="unix socket limit"):
        TurnSignalServer.bind(path)


async def test_fileno_works_with_the_event_loop(sock_dir: Path) -> None:
    path = sock_dir / "abcdef12.sock"
    loop = asyncio.get_running_loop()
    got: asyncio.Queue[list[str]] = asyncio.Queue()
    with TurnSignalServer.bind(path) as server:
        loop.add_reader(server.fileno(), lambda: got.put_nowait(server.drain()))
        try:
            assert send_turn_signal(path)
            assert await asyncio.wait_for(got.get(), timeout=5) == ["stop"]
        finally:
            loop.remove_reader(server.fileno())


def test_known_kinds() -> None:
    assert turn_signal.KNOWN_KINDS == ("stop",)
