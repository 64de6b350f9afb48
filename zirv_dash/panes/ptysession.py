"""A child process on a real PTY: spawn, non-blocking I/O, resize, termination.

The master fd is non-blocking so the owner (an asyncio loop, a selector thread or
a test) decides when to read; nothing here blocks except the explicit
`terminate()` ladder (the ladder itself is `ladder.Ladder`). Writes that the
kernel cannot take right now are buffered and flushed by `flush()` — if the
child stops reading, its input queues here rather than blocking the caller.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Mapping, Sequence

from zirv_dash.panes import guard, procinfo
from zirv_dash.panes.ladder import (
    TERM_GRACE,
    Ladder,
    quit_signals,
    run_ladder,
    signal_grace,
)
from zirv_dash.textcheck import os_text_problem

READ_CHUNK = 65536
_HAVE_PROC = os.path.isdir("/proc/self")


class SpawnError(Exception):
    """The child could not be started; the message says why in plain words."""


CHILD_NICE = 4
"""Children run slightly below the dashboard's priority. It only matters when the
CPU is contended (a pane compiling or flooding output): then the one process the
user is typing into — the dashboard — is scheduled first, and a busy agent cannot
make keystrokes lag. An idle dashboard takes nothing from its children."""


CHILD_DEFAULT_SIGNALS = (
    signal.SIGINT,
    signal.SIGQUIT,
    signal.SIGHUP,
    signal.SIGTSTP,
    signal.SIGTTIN,
    signal.SIGTTOU,
)


def _child_setup() -> None:
    # Runs in the child between fork and exec, after setsid (start_new_session).
    # subprocess runs it under its own guard: whatever it raises is reported to
    # the parent as a SubprocessError and the child _exits — it can never return
    # into our code. Only plain syscalls here (no imports, no dlopen).
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    with contextlib.suppress(OSError):
        os.nice(CHILD_NICE)
    # An ignored signal stays ignored across exec: a dashboard started in the
    # background of a script, or under nohup, would hand its children a Ctrl+C
    # (and a hang-up) that does nothing. A pane's child starts as a login shell
    # would, with every terminal signal at its default (as tmux does).
    for sig in CHILD_DEFAULT_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)


def resolve_program(argv0: str, env: Mapping[str, str]) -> str | None:
    if os.path.sep in argv0:
        return argv0 if os.access(argv0, os.X_OK) else None
    return shutil.which(argv0, path=env.get("PATH", os.defpath))


def launch_problem(argv: Sequence[str], env: Mapping[str, str], cwd: str | None) -> str | None:
    """Why this command cannot be passed to exec (a lone surrogate, a NUL), or None.

    Checked before anything is forked, so a bad string from a spawn request or a
    roster is a failed pane with a clear reason, never an exception in a child."""
    for index, arg in enumerate(argv):
        problem = os_text_problem(arg)
        if problem:
            return f"argument {index} of the command {problem}"
    for key, value in env.items():
        problem = os_text_problem(key) or ("contains '='" if "=" in key else None)
        if problem:
            return f"environment variable name {key!r} {problem}"
        problem = os_text_problem(value)
        if problem:
            return f"environment variable {key} {problem}"
    if cwd is not None:
        problem = os_text_problem(cwd)
        if problem:
            return f"working directory {cwd!r} {problem}"
    return None


def _spawn(
    argv: list[str], cwd: str | None, env: dict[str, str], columns: int, rows: int
) -> tuple[subprocess.Popen[bytes], int]:
    """Start `argv` as the leader of a new session whose controlling terminal is a
    new PTY; returns the process and the master fd.

    subprocess (not a hand-rolled fork) does the fork/exec: it encodes argv, env
    and cwd in the parent, reports a failed exec back through a pipe, and _exits
    the child on every error path."""
    master, slave = os.openpty()
    try:
        with contextlib.suppress(OSError):
            fcntl.ioctl(
                slave, termios.TIOCSWINSZ, struct.pack("HHHH", max(1, rows), max(1, columns), 0, 0)
            )
        proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
            preexec_fn=_child_setup,
            close_fds=True,
        )
    except (OSError, subprocess.SubprocessError, ValueError, UnicodeError) as exc:
        os.close(master)
        raise SpawnError(f"{os.path.basename(argv[0])}: {exc}") from exc
    finally:
        os.close(slave)
    return proc, master


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
        problem = launch_problem(argv, env_dict, cwd)
        if problem is not None:
            raise SpawnError(f"cannot start {argv[0]!r}: {problem}")
        program = resolve_program(argv[0], env_dict)
        if program is None:
            raise SpawnError(f"{argv[0]}: command not found on PATH")
        if cwd is not None and not os.path.isdir(cwd):
            raise SpawnError(f"working directory {cwd} does not exist")
        self._proc, master = _spawn([program, *argv[1:]], cwd, env_dict, columns, rows)
        self.argv = list(argv)
        self.pid: int = self._proc.pid
        self.fd: int = master
        os.set_blocking(self.fd, False)
        self._pending = bytearray()
        self.exit_code: int | None = None
        self._eof = False
        self._closed = False
        self.columns = columns
        self.rows = rows
        self.started_at = time.time()
        self.stopped = False
        """True once a termination ladder was started on it: it ended because we
        (the operator, quit, a kill request) ended it, not by itself."""
        self._start_time = procinfo.process_start_time(self.pid)
        guard.client().watch(self.pid, self._start_time, env_dict.get("ZIRV_CTX_SESSION"))

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

    def unread(self) -> int:
        """Bytes the child wrote that wait in the kernel, not read yet (0 when
        that cannot be asked)."""
        try:
            got = fcntl.ioctl(self.fd, termios.FIONREAD, b"\0\0\0\0")
        except OSError:
            return 0
        return int(struct.unpack("i", got)[0])

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

    def leader_in_foreground(self) -> bool:
        """The child (its own process group) owns the terminal: no job it started
        is in the foreground."""
        try:
            return os.tcgetpgrp(self.fd) == self.pid
        except OSError:
            return False

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
        # Popen reaps it: it also keeps the pid from being waited on twice (a
        # reused pid could belong to a newer pane by then).
        code = self._proc.poll()
        if code is None:
            return None
        self.exit_code = 128 - code if code < 0 else code
        return self.exit_code

    @property
    def start_time(self) -> float | None:
        return self._start_time

    def session_members(self) -> list[int]:
        """Live processes of the child's session (its leader included while alive)."""
        if not _HAVE_PROC:
            return [] if self.poll() is not None else [self.pid]
        return [pid for pid, _ in procinfo.session_members(self.pid, self._start_time)]

    def session_ended(self) -> bool:
        """The leader is reaped and nothing else of its session runs."""
        return self.poll() is not None and not self.session_members()

    def signal_group(self, sig: int) -> None:
        """Signal every process group of the child's session (bash puts each job in
        a group of its own; the leader's group alone would miss them)."""
        if _HAVE_PROC:
            procinfo.signal_session(self.pid, sig, self._start_time)
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, sig)

    def kill_now(self) -> None:
        self.stopped = True
        self.signal_group(signal.SIGKILL)
        self.wait(1.0)

    def wait(self, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while True:
            code = self.poll()
            if code is not None or time.monotonic() >= deadline:
                return code
            time.sleep(0.02)

    def ladder(
        self,
        quit_sequence: bytes = b"",
        grace: float = 5.0,
        signals: Sequence[int] = (signal.SIGHUP, signal.SIGTERM),
        defer_submit: bool = False,
        drain: bool = True,
        term_grace: float | None = None,
    ) -> Ladder:
        return Ladder(
            self,
            quit_sequence=quit_sequence,
            quit_grace=grace,
            signals=signals,
            defer_submit=defer_submit,
            drain=drain,
            term_grace=TERM_GRACE if term_grace is None else term_grace,
        )

    def stop_for(
        self,
        harness: str,
        quit_sequence: bytes,
        *,
        typed_ok: bool,
        grace: float = 5.0,
        defer_submit: bool = False,
        drain: bool = True,
    ) -> Ladder:
        """The ladder for a pane of `harness`: its quit sequence only when
        `typed_ok` (the screen is known to be its input prompt), else straight to
        its clean-quit signals."""
        return self.ladder(
            quit_sequence if typed_ok else b"",
            grace,
            quit_signals(harness),
            defer_submit=defer_submit,
            drain=drain,
            term_grace=signal_grace(harness),
        )

    def terminate(self, quit_sequence: bytes = b"", grace: float = 5.0) -> int | None:
        """The termination ladder, blocking: quit sequence → grace → SIGHUP/SIGTERM
        to every group of the session → SIGKILL, verified by walking /proc."""
        run_ladder(self.ladder(quit_sequence, grace))
        self.finish()
        return self.exit_code

    def force_stop(self) -> int | None:
        return self.terminate(b"", 0.0)

    def __del__(self) -> None:
        # An abandoned session still gives its master fd back.
        if not getattr(self, "_closed", True):
            self._closed = True
            with contextlib.suppress(OSError):
                os.close(self.fd)

    def finish(self) -> None:
        """Release the master fd (once the child is gone)."""
        self._eof = True
        if not self._closed:
            # `fd` keeps its number: owners use it to remove their reader.
            self._closed = True
            with contextlib.suppress(OSError):
                os.close(self.fd)
        if self.poll() is not None and not self.session_members():
            guard.client().forget(self.pid)
