"""A minimal terminal for benchmarks: runs a program on a PTY of a given size and
timestamps what it draws, so the dashboard and tmux are measured the same way
(key written to the terminal → glyph drawn back to the terminal)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import termios
import time
from collections.abc import Sequence


class PtyTerminal:
    def __init__(self, argv: Sequence[str], columns: int, rows: int, env: dict[str, str]) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # child
            os.execvpe(argv[0], list(argv), env)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        os.set_blocking(fd, False)
        self.buffer = bytearray()

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def read_for(self, seconds: float) -> bytes:
        end = time.monotonic() + seconds
        out = bytearray()
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    break
                out += chunk
                self._answer_queries(chunk)
        self.buffer += out
        return bytes(out)

    def wait_for(self, needle: bytes, timeout: float) -> float | None:
        """Seconds until `needle` appears in new output (None on timeout)."""
        start = time.perf_counter()
        window = b""
        end = start + timeout
        while True:
            left = end - time.perf_counter()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                return None
            self._answer_queries(chunk)
            # The whole read is searched (a frame can be far larger than the
            # needle's neighbourhood), and only a needle's length of it is kept
            # for a needle split across two reads.
            window += chunk
            if needle in window:
                return time.perf_counter() - start
            window = window[-(len(needle) - 1) :] if len(needle) > 1 else b""

    def _answer_queries(self, chunk: bytes) -> None:
        # Programs probe their terminal; answer like xterm so nobody waits.
        if b"\x1b[6n" in chunk:
            os.write(self.fd, b"\x1b[1;1R")
        if b"\x1b[c" in chunk or b"\x1b[0c" in chunk:
            os.write(self.fd, b"\x1b[?62;22c")

    def close(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGTERM)
        except OSError:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except OSError:
                pass
        time.sleep(0.2)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        os.close(self.fd)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]
