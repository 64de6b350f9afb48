"""The dashboard's terminal driver on a real PTY: keys (and a lone Esc, which
needs the parser's timeout) still arrive, the app still exits, and with no
input the input thread does not wake."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual import events

ROOT = Path(__file__).resolve().parent.parent

APP = """
import sys, threading
sys.path.insert(0, {root!r})
from textual.app import App
from screens.driver import ButtonMotionDriver

LOG = {log!r}

def note(text):
    with open(LOG, "a") as handle:
        handle.write(text + "\\n")

class Probe(App[None]):
    def get_driver_class(self):
        return ButtonMotionDriver

    def on_mount(self):
        self.call_after_refresh(self._note_input_thread)

    def _note_input_thread(self):
        for thread in threading.enumerate():
            if thread.name == "textual-input":
                note(f"tid {{thread.native_id}}")

    def on_key(self, event):
        note(f"key {{event.key}}")
        if event.key == "q":
            self.exit()

Probe().run()
note("exited")
"""


class Child:
    def __init__(self, tmp: Path) -> None:
        self.log = tmp / "log.txt"
        script = tmp / "probe.py"
        script.write_text(APP.format(root=str(ROOT), log=str(self.log)))
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.executable, [sys.executable, str(script)])
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.pid, self.fd = pid, fd

    def lines(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def await_line(self, want: str, timeout: float = 30.0) -> list[str]:
        """Keep the PTY drained (the app blocks on a full one) until `want` is logged."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if want in self.lines():
                return self.lines()
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    os.read(self.fd, 65536)
                except OSError:
                    pass
        raise AssertionError(f"{want!r} never logged; log: {self.lines()}")

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        os.close(self.fd)


@pytest.fixture
def child(tmp_path: Path) -> Iterator[Child]:
    proc = Child(tmp_path)
    try:
        yield proc
    finally:
        proc.close()


def switches(pid: int, tid: int) -> int:
    """How many times the thread has gone to sleep and been woken (voluntarily)."""
    status = Path(f"/proc/{pid}/task/{tid}/status").read_text()
    for line in status.splitlines():
        if line.startswith("voluntary_ctxt_switches:"):
            return int(line.split()[1])
    raise AssertionError("no voluntary_ctxt_switches")


def test_input_thread_sleeps_until_input(child: Child) -> None:
    tid = _await_tid(child)
    before = switches(child.pid, tid)
    # One second of nothing: Textual's own thread wakes ten times in it.
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        ready, _, _ = select.select([child.fd], [], [], 0.05)
        if ready:
            try:
                os.read(child.fd, 65536)
            except OSError:
                pass
    assert switches(child.pid, tid) - before <= 1


def test_keys_lone_escape_and_exit_still_arrive(child: Child) -> None:
    _await_tid(child)
    os.write(child.fd, b"a")
    child.await_line("key a")
    # A lone Esc is only told from the start of a sequence by the parser's
    # timeout: the thread must wake for it without any further input.
    os.write(child.fd, b"\x1b")
    child.await_line("key escape")
    os.write(child.fd, b"q")
    child.await_line("exited")


def _await_tid(child: Child) -> int:
    end = time.monotonic() + 30.0
    while time.monotonic() < end:
        for line in child.lines():
            if line.startswith("tid "):
                return int(line.split()[1])
        ready, _, _ = select.select([child.fd], [], [], 0.05)
        if ready:
            try:
                os.read(child.fd, 65536)
            except OSError:
                pass
    raise AssertionError(f"no input thread logged; log: {child.lines()}")


def test_esc_then_the_prefix_in_one_read_is_both_keys(child: Child) -> None:
    # Textual read Esc + Ctrl+A as Alt+Ctrl+A and dropped the Alt: the Esc that
    # was to close a dialog was lost, and the prefix went to that dialog.
    _await_tid(child)
    os.write(child.fd, b"\x1b\x01")
    lines = child.await_line("key ctrl+a")
    assert lines[-2:] == ["key escape", "key ctrl+a"]
    os.write(child.fd, b"\x1bx")  # Esc and a printable key: Alt+x, as before
    assert child.await_line("key alt+x")[-1] == "key alt+x"
    os.write(child.fd, b"q")
    child.await_line("exited")


@pytest.mark.parametrize(
    ("data", "keys"),
    [
        ("\x1b\x01", ["escape", "ctrl+a"]),
        ("\x1b\x02s", ["escape", "ctrl+b", "s"]),
        ("\x1bx", ["alt+x"]),
        ("\x1b\r", ["enter"]),  # Alt+Enter stays one key, no Esc to cancel a draft
        ("\x1b[A", ["up"]),
    ],
)
def test_the_parser_keeps_an_esc_before_a_control_key(data: str, keys: list[str]) -> None:
    from screens.driver import InputParser

    parser = InputParser(False)
    got = [e.key for e in parser.feed(data) if isinstance(e, events.Key)]
    deadline = time.monotonic() + 5
    while len(got) < len(keys) and time.monotonic() < deadline:
        time.sleep(0.02)
        got += [e.key for e in parser.tick() if isinstance(e, events.Key)]
    assert got == keys
