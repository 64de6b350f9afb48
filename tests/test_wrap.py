"""PTY passthrough with real children on real PTYs."""

from __future__ import annotations

import os
import signal
import termios
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from zirv_dash.panes import procinfo, wrap


class Capture:
    """The read end of a pipe drained by a thread, so the child never blocks."""

    def __init__(self) -> None:
        self.r, self.w = os.pipe()
        self.buf = bytearray()
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        while chunk := os.read(self.r, 65536):
            with self.cond:
                self.buf += chunk
                self.cond.notify_all()
        os.close(self.r)

    def wait_for(self, needle: bytes, timeout: float = 10) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: needle in self.buf, timeout)

    def text(self) -> str:
        os.close(self.w)
        self.thread.join(5)
        return self.buf.decode(errors="replace")


@pytest.fixture
def out() -> Iterator[Capture]:
    cap = Capture()
    yield cap
    try:
        os.close(cap.w)
    except OSError:
        pass


@pytest.fixture
def devnull() -> Iterator[int]:
    fd = os.open(os.devnull, os.O_RDONLY)
    yield fd
    os.close(fd)


@pytest.fixture
def fake_tty() -> Iterator[tuple[int, int]]:
    """(master, slave): the slave plays the user's terminal on our stdin."""
    master, slave = os.openpty()
    yield master, slave
    os.close(master)
    os.close(slave)


def env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color"}


def run(argv: list[str], stdin_fd: int, out: Capture, **kw: object) -> int:
    return wrap.run_wrapped(argv, env(), "/", stdin_fd=stdin_fd, output_fd=out.w, **kw)  # type: ignore[arg-type]


def test_exit_code_and_output(
    out: Capture, devnull: int, capfd: pytest.CaptureFixture[str]
) -> None:
    rc = run(["/bin/sh", "-c", "echo hi; exit 3"], devnull, out, notice="inline: one\nsecond")
    assert rc == 3
    assert "hi" in out.text()
    assert capfd.readouterr().err == "inline: one\n"


def test_stdin_is_forwarded(out: Capture) -> None:
    r, w = os.pipe()
    os.write(w, b"exit 4\n")
    os.close(w)
    try:
        assert run(["/bin/sh"], r, out) == 4
    finally:
        os.close(r)


def test_killed_by_signal(out: Capture, devnull: int) -> None:
    assert run(["/bin/sh", "-c", "kill -TERM $$"], devnull, out) == 128 + signal.SIGTERM


def test_timeout(out: Capture, devnull: int) -> None:
    rc = run(["/bin/sh", "-c", "echo started; exec sleep 30"], devnull, out, timeout_secs=0.3)
    assert rc == wrap.EXIT_TIMEOUT
    assert "started" in out.text()


def test_launch_error_leaks_nothing(out: Capture, devnull: int) -> None:
    before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(wrap.LaunchError, match="no-such-binary"):
        run(["/no-such-binary-zirv"], devnull, out)
    assert len(os.listdir("/proc/self/fd")) == before


def test_big_output_and_input_are_not_lost(out: Capture, devnull: int) -> None:
    rc = run(["/bin/sh", "-c", "head -c 1000000 /dev/zero | tr '\\0' a"], devnull, out)
    assert rc == 0
    assert out.text().count("a") == 1_000_000
    # 200 KB of input into a child that reads it all in non-canonical mode (sent only
    # once the child has left canonical mode, which caps a line at 4 KB).
    r, w = os.pipe()
    cap = Capture()

    def feed() -> None:
        cap.wait_for(b"ready")
        os.write(w, b"b" * 200_000)
        os.close(w)

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        script = "stty -icanon -echo; echo ready; head -c 200000 | wc -c"
        rc = run(["/bin/sh", "-c", script], r, cap, timeout_secs=20)
        assert rc == 0 and "200000" in cap.text()
    finally:
        feeder.join(5)
        os.close(r)


def test_size_without_a_terminal(
    out: Capture, devnull: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LINES", "33")
    monkeypatch.setenv("COLUMNS", "101")
    assert run(["/bin/sh", "-c", "stty size"], devnull, out) == 0
    assert "33 101" in out.text()


def test_tty_stdin_raw_mode_is_restored(out: Capture, fake_tty: tuple[int, int]) -> None:
    master, slave = fake_tty
    wrap.set_winsize(slave, 40, 120)
    before = termios.tcgetattr(slave)
    seen_raw: list[bool] = []

    def user() -> None:
        assert out.wait_for(b"ready")
        seen_raw.append(not termios.tcgetattr(slave)[3] & termios.ICANON)
        os.write(master, b"hello\r")

    t = threading.Thread(target=user)
    t.start()
    rc = run(["/bin/sh", "-c", 'stty size; echo ready; read line; echo "got $line"; exit 9'],
             slave, out)  # fmt: skip
    t.join(5)
    text = out.text()
    assert rc == 9 and "40 120" in text and "got hello" in text
    assert seen_raw == [True]
    assert termios.tcgetattr(slave) == before


def test_terminal_restored_and_child_killed_on_error(
    fake_tty: tuple[int, int], tmp_path: Path
) -> None:
    _, slave = fake_tty
    before = termios.tcgetattr(slave)
    pidfile = tmp_path / "pid"
    full = os.open("/dev/full", os.O_WRONLY)  # every write fails with ENOSPC
    try:
        with pytest.raises(OSError):
            wrap.run_wrapped(
                ["/bin/sh", "-c", f"echo $$ > {pidfile}; echo x; exec sleep 30"],
                env(), "/", stdin_fd=slave, output_fd=full,
            )  # fmt: skip
    finally:
        os.close(full)
    assert termios.tcgetattr(slave) == before
    pid = int(pidfile.read_text())
    assert not procinfo.pid_exists(pid)


def test_sigwinch_is_forwarded(out: Capture, fake_tty: tuple[int, int]) -> None:
    _, slave = fake_tty
    wrap.set_winsize(slave, 20, 70)
    original = signal.getsignal(signal.SIGWINCH)

    def resize() -> None:
        assert out.wait_for(b"ready")
        wrap.set_winsize(slave, 30, 100)
        os.kill(os.getpid(), signal.SIGWINCH)

    t = threading.Thread(target=resize)
    t.start()
    script = "trap 'stty size; exit 7' WINCH; echo ready; while :; do sleep 0.05; done"
    rc = run(["/bin/sh", "-c", script], slave, out, timeout_secs=20)
    t.join(5)
    assert rc == 7
    assert "30 100" in out.text()
    assert signal.getsignal(signal.SIGWINCH) == original
