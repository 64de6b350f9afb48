"""A child process on a real PTY: spawn, non-blocking I/O, resize, termination.

The master fd is non-blocking so the owner (an asyncio loop, a selector thread or
a test) decides when to read; nothing here blocks except the explicit
`terminate()` ladder. Writes that the kernel cannot take right now are buffered
and flushed by `flush()` — if the child stops reading, its input queues here
rather than blocking the caller.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import shutil
import signal
import struct
import termios
import time
from collections.abc import Mapping, Sequence

import ptyprocess

READ_CHUNK = 65536
_PR_SET_PDEATHSIG = 1


class SpawnError(Exception):
    """The child could not be started; the message says why in plain words."""


CHILD_NICE = 4
"""Children run slightly below the dashboard's priority. It only matters when the
CPU is contended (a pane compiling or flooding output): then the one process the
user is typing into — the dashboard — is scheduled first, and a busy agent cannot
make keystrokes lag. An idle dashboard takes nothing from its children."""


def _child_setup() -> None:
    # Runs in the child between fork and exec. If the dashboard dies without a
    # clean shutdown (SIGKILL), the kernel sends the child SIGHUP, the same signal
    # a closing terminal sends, so no agent outlives its dashboard.
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGHUP, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    try:
        os.nice(CHILD_NICE)
    except OSError:
        pass


def resolve_program(argv0: str, env: Mapping[str, str]) -> str | None:
    if os.path.sep in argv0:
        return argv0 if os.access(argv0, os.X_OK) else None
    return shutil.which(argv0, path=env.get("PATH", os.defpath))


class PtySession:
    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        columns: int = 80,
        rows: int = 24,
    ) -> None:
        if not argv:
            raise SpawnError("empty command")
        env_dict = dict(os.environ if env is None else env)
        program = resolve_program(argv[0], env_dict)
        if program is None:
            raise SpawnError(f"{argv[0]}: command not found on PATH")
        if cwd is not None and not os.path.isdir(cwd):
            raise SpawnError(f"working directory {cwd} does not exist")
        try:
            self._proc = ptyprocess.PtyProcess.spawn(
                [program, *argv[1:]],
                cwd=cwd,
                env=env_dict,
                dimensions=(max(1, rows), max(1, columns)),
                preexec_fn=_child_setup,
            )
        except (OSError, ptyprocess.PtyProcessError) as exc:
            raise SpawnError(f"{argv[0]}: {exc}") from exc
        self.argv = list(argv)
        self.pid: int = self._proc.pid
        self.fd: int = self._proc.fd
        os.set_blocking(self.fd, False)
        self._pending = bytearray()
        self.exit_code: int | None = None
        self._eof = False
        self.columns = columns
        self.rows = rows
        self.started_at = time.time()

    # -- I/O --------------------------------------------------------------------------

    def read(self, limit: int = READ_CHUNK) -> bytes:
        """Whatever is available now (b"" if nothing). Sets `eof` when the child side closed."""
        if self._eof:
            return b""
        try:
            return os.read(self.fd, limit) or self._mark_eof()
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno in (errno.EIO, errno.EBADF):
                return self._mark_eof()
            raise

    def _mark_eof(self) -> bytes:
        self._eof = True
        return b""

    @property
    def eof(self) -> bool:
        return self._eof

    def write(self, data: bytes) -> None:
        """Queue `data` for the child and write as much as the kernel takes now."""
        if self._eof or not data:
            return
        self._pending += data
        self.flush()

    def flush(self) -> bool:
        """Write queued bytes; True when nothing is left queued."""
        while self._pending and not self._eof:
            try:
                n = os.write(self.fd, self._pending[:READ_CHUNK])
            except BlockingIOError:
                return False
            except OSError:
                self._pending.clear()
                return True
            del self._pending[:n]
        return not self._pending

    @property
    def has_pending_writes(self) -> bool:
        return bool(self._pending)

    # -- size ---------------------------------------------------------------------------

    def resize(self, columns: int, rows: int) -> None:
        columns, rows = max(1, columns), max(1, rows)
        if (columns, rows) == (self.columns, self.rows):
            return
        self.columns, self.rows = columns, rows
        if self._eof:
            return
        with contextlib.suppress(OSError):
            fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))

    # -- lifecycle --------------------------------------------------------------------

    def poll(self) -> int | None:
        """Exit code once the child has exited (128+N for a signal), else None."""
        if self.exit_code is not None:
            return self.exit_code
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            self.exit_code = self.exit_code if self.exit_code is not None else 0
            return self.exit_code
        if pid == 0:
            return None
        if os.WIFSIGNALED(status):
            self.exit_code = 128 + os.WTERMSIG(status)
        else:
            self.exit_code = os.WEXITSTATUS(status)
        return self.exit_code

    def signal_group(self, sig: int) -> None:
        """Signal the child's whole process group (it leads its own session)."""
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, sig)

    def kill_now(self) -> None:
        self.signal_group(signal.SIGKILL)
        self.wait(1.0)

    def wait(self, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while True:
            code = self.poll()
            if code is not None or time.monotonic() >= deadline:
                return code
            time.sleep(0.02)

    def terminate(self, quit_sequence: bytes = b"", grace: float = 5.0) -> int | None:
        """The termination ladder: quit sequence → grace → SIGTERM → SIGKILL."""
        if self.poll() is None and quit_sequence:
            self.write(quit_sequence)
            if self.wait(grace) is not None:
                self.finish()
                return self.exit_code
        return self.force_stop()

    def force_stop(self) -> int | None:
        if self.poll() is None:
            # SIGHUP first: an interactive shell ignores SIGTERM but not a hangup.
            self.signal_group(signal.SIGHUP)
            self.signal_group(signal.SIGTERM)
            if self.wait(1.0) is None:
                self.signal_group(signal.SIGKILL)
                self.wait(1.0)
        else:
            # The leader is gone but its group may not be (a backgrounded job).
            self.signal_group(signal.SIGKILL)
        self.finish()
        return self.exit_code

    def finish(self) -> None:
        """Release the master fd (once the child is gone)."""
        self._eof = True
        # We reap the child ourselves; tell ptyprocess so its finaliser neither
        # waits on nor signals a pid that may already belong to someone else.
        self._proc.terminated = True
        self._proc.closed = True
        with contextlib.suppress(OSError):
            self._proc.fileobj.close()
