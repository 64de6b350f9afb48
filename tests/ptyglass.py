"""The dashboard on a plain PTY, its output kept byte for byte: for what tmux
3.3a cannot show (hyperlinks, focus events), the bytes zirv writes to its
terminal are the test's evidence. A terminal model of our own reads them
along the way, so a test can wait for text to be on the glass."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
import time
from pathlib import Path

from tests.tmuxharness import ZIRV, base_env
from zirv_dash.terminal import TerminalModel


class PtyGlass:
    def __init__(
        self,
        project: Path,
        tmp: Path,
        width: int = 100,
        height: int = 30,
        answer_kitty: bool = True,
        **env: str,
    ):
        self.env = base_env(tmp / "state", tmp / "operator")
        self.env.update(env)
        self.width, self.height = width, height
        pid, fd = pty.fork()
        if pid == 0:  # the child: zirv, in the project, with only this env
            os.chdir(project)
            os.execvpe(ZIRV[0], [*ZIRV, "chat", "--agent", "shell"], self.env)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))
        os.set_blocking(fd, False)
        self.raw = bytearray()
        self.screen = TerminalModel(width, height)
        self.answer_kitty = answer_kitty
        """Answer ``CSI ? u`` (the kitty keyboard query) as kitty does; False:
        as tmux 3.3a and xterm do, not at all."""

    def pump(self, seconds: float = 0.05) -> None:
        ready, _, _ = select.select([self.fd], [], [], seconds)
        if not ready:
            return
        try:
            chunk = os.read(self.fd, 1 << 16)
        except OSError:
            return
        self.raw += chunk
        self.screen.feed(chunk)
        replies = self.screen.take_replies()  # DA1, cursor position: as a terminal answers
        if not self.answer_kitty:
            replies = re.sub(rb"\x1b\[\?[0-9]+u", b"", replies)
        if replies:
            os.write(self.fd, replies)

    def wait_for(self, needle: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(needle in line for line in self.screen.lines()):
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{needle!r} not on the glass:\n" + "\n".join(self.screen.lines())
                )
            self.pump()

    def wait_raw(self, needle: bytes, start: int = 0, timeout: float = 30.0) -> int:
        """Where `needle` is in the output after `start`, once it has been written."""
        deadline = time.monotonic() + timeout
        while (at := self.raw.find(needle, start)) < 0:
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} never written")
            self.pump()
        return at

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            self.pump(0.02)
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                break
        else:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)
