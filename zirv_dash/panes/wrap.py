"""PTY passthrough: run one child in this terminal, as if it were run directly.

Used for inline supervision (`zirv agent` with no live dashboard) and for the
dashboard's small-terminal fallback. The child gets a real PTY sized like the
user's terminal and becomes its session leader with the PTY as controlling
terminal (so resizes reach it as SIGWINCH). Our stdin is put in raw mode when it
is a TTY, so every key (Ctrl+C included) goes to the child, and it is restored
on every exit path.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import textwrap
import threading
import time
import tty
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType

from zirv_dash.fdio import write_all
from zirv_dash.panes import guard, procinfo
from zirv_dash.panes.ptysession import launch_problem

EXIT_TIMEOUT = 124
READ_CHUNK = 65536
MAX_PENDING_INPUT = 1 << 20
KILL_GRACE_SECS = 2.0
QUICK_EXIT_SECS = 10.0
"""A non-zero exit this soon after the start is a failure to start: say so."""


class LaunchError(OSError):
    """The child could not be started (missing binary, bad cwd, …)."""


def terminal_size(*fds: int) -> tuple[int, int]:
    """(rows, cols) of the first fd that is a terminal, else $LINES/$COLUMNS, else 24x80."""
    for fd in fds:
        try:
            if os.isatty(fd):
                size = os.get_terminal_size(fd)
                if size.lines > 0 and size.columns > 0:
                    return size.lines, size.columns
        except OSError:
            continue
    try:
        return int(os.environ.get("LINES", "24")), int(os.environ.get("COLUMNS", "80"))
    except ValueError:
        return 24, 80


def set_winsize(fd: int, rows: int, cols: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def _controlling_tty() -> None:  # runs in the child between fork and exec
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@contextlib.contextmanager
def raw_mode(fd: int) -> Iterator[bool]:
    """Raw mode on `fd` if it is a TTY; the saved attributes always come back."""
    saved = None
    try:
        if os.isatty(fd):
            saved = termios.tcgetattr(fd)
            tty.setraw(fd, termios.TCSANOW)
    except (OSError, termios.error):
        saved = None
    try:
        yield saved is not None
    finally:
        if saved is not None:
            with contextlib.suppress(OSError, termios.error):
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _fd_usable(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _write_all(fd: int, data: bytes) -> None:
    try:
        write_all(fd, data)
    except BrokenPipeError:
        return  # nobody is reading our output any more; keep the child going


def _stop(proc: subprocess.Popen[bytes], start_time: float | None) -> None:
    """End the child's whole session (the termination ladder: SIGHUP/SIGTERM to
    every process group of it, a short grace, SIGKILL, verified in /proc) — jobs
    it left behind included — and reap the child."""
    if proc.poll() is None or procinfo.session_members(proc.pid, start_time):
        procinfo.end_sessions(
            {proc.pid: start_time},
            signals=(signal.SIGHUP, signal.SIGTERM),
            grace=KILL_GRACE_SECS,
        )
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=KILL_GRACE_SECS)
    if proc.poll() is not None and not procinfo.session_members(proc.pid, start_time):
        guard.client().forget(proc.pid)


def _exit_reason(argv0: str, code: int, elapsed: float) -> str | None:
    """What to tell the user when the program failed at once (its own output, if
    any, is already on the terminal; with none, a bare return code says nothing)."""
    if code == 0 or elapsed >= QUICK_EXIT_SECS:
        return None
    if code > 128:
        how = f"was killed by signal {code - 128}"
    elif code == EXIT_TIMEOUT:
        return None
    else:
        how = f"exited with code {code}"
    return f"zirv: {argv0} {how} {elapsed:.1f}s after it started\n"


def _exit_code(rc: int) -> int:
    return 128 - rc if rc < 0 else rc


def _fit_notice(text: str, columns: int) -> str:
    """The notice wrapped at word boundaries to the terminal's width (a narrow
    terminal is the usual reason it is shown at all)."""
    return textwrap.fill(text, max(20, columns), break_long_words=False, break_on_hyphens=False)


def run_wrapped(
    argv: list[str],
    env: dict[str, str],
    cwd: str,
    notice: str | None = None,
    *,
    stdin_fd: int = 0,
    output_fd: int = 1,
    timeout_secs: float | None = None,
    on_start: Callable[[int], None] | None = None,
) -> int:
    """Run `argv` on a PTY wired to this terminal; returns the child's exit code
    (128+N if killed by signal N, 124 if `timeout_secs` ran out).

    `on_start(pid)` runs once the child exists (e.g. to register it). Raises
    `LaunchError` if the child cannot be started.
    """
    if notice:
        first = notice.splitlines()[0] if notice.strip() else notice
        _write_all(2, _fit_notice(first, terminal_size(stdin_fd, output_fd)[1]).encode() + b"\n")
    problem = launch_problem(argv, env, cwd) if argv else None
    if problem is not None:
        raise LaunchError(f"could not start {argv[0]!r}: {problem}")
    proc, master = _launch(argv, env, cwd, terminal_size(stdin_fd, output_fd))
    started = time.monotonic()
    start_time = procinfo.process_start_time(proc.pid)
    guard.client().watch(proc.pid, start_time, env.get("ZIRV_CTX_SESSION"))
    sink = _Sink(output_fd)
    wake_r, wake_w = _wake_pipe()
    try:
        if on_start is not None:
            on_start(proc.pid)
        with _winch_to(wake_w), raw_mode(stdin_fd):
            code = _pump(proc, master, wake_r, stdin_fd, sink, timeout_secs, start_time)
        reason = _exit_reason(argv[0], code, time.monotonic() - started)
        if reason and not sink.written:  # with no output of its own, say why it ended
            with contextlib.suppress(OSError):
                _write_all(2, reason.encode())
        return code
    finally:
        _stop(proc, start_time)
        for fd in (master, wake_r, wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)


def _launch(
    argv: list[str], env: dict[str, str], cwd: str, size: tuple[int, int]
) -> tuple[subprocess.Popen[bytes], int]:
    """Start `argv` as the leader of a new session on a new PTY of `size`
    (rows, cols); returns the process and the master fd."""
    master, slave = os.openpty()
    try:
        set_winsize(slave, *size)
        proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
            preexec_fn=_controlling_tty,
            close_fds=True,
        )
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        os.close(master)
        os.close(slave)
        raise LaunchError(f"could not start {argv[0] if argv else '(empty argv)'}: {exc}") from exc
    os.close(slave)
    return proc, master


def _wake_pipe() -> tuple[int, int]:
    """A non-blocking pipe (read end, write end): a resize writes a byte to it,
    the pump selects on it."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    return wake_r, wake_w


@contextlib.contextmanager
def _winch_to(wake_w: int) -> Iterator[None]:
    """While inside, SIGWINCH writes a byte to `wake_w` (a handler can only be
    set on the main thread; elsewhere resizes are not followed)."""

    def on_winch(_sig: int, _frame: FrameType | None) -> None:
        with contextlib.suppress(OSError):
            os.write(wake_w, b"w")

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old_handler = signal.signal(signal.SIGWINCH, on_winch)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError, TypeError):
            signal.signal(signal.SIGWINCH, old_handler)


def _pump(
    proc: subprocess.Popen[bytes],
    master: int,
    wake_r: int,
    stdin_fd: int,
    sink: _Sink,
    timeout_secs: float | None,
    start_time: float | None,
) -> int:
    os.set_blocking(master, False)
    stdin_open = _fd_usable(stdin_fd)
    pending = bytearray()
    deadline = None if timeout_secs is None else time.monotonic() + timeout_secs
    while True:
        rlist = [master, wake_r]
        if stdin_open and len(pending) < MAX_PENDING_INPUT:
            rlist.append(stdin_fd)
        wlist = [master] if pending else []
        try:
            readable, writable, _ = select.select(rlist, wlist, [], 0.1)
        except InterruptedError:
            continue
        if wake_r in readable:
            _follow_resize(wake_r, master, stdin_fd, sink.fd)
        if master in readable and not _copy_out(master, sink):
            break
        if stdin_fd in readable:
            data = _read_input(stdin_fd)
            if data:
                pending += data
            elif data is not None:
                stdin_open = False  # EOF: the child keeps running without input
        if master in writable and pending:
            _write_input(master, pending)
        if proc.poll() is not None:
            while _copy_out(master, sink, drain=True):
                pass
            break
        if deadline is not None and time.monotonic() >= deadline:
            _stop(proc, start_time)
            while _copy_out(master, sink, drain=True):
                pass
            proc.wait()
            return EXIT_TIMEOUT
    return _exit_code(proc.wait())


def _follow_resize(wake_r: int, master: int, stdin_fd: int, output_fd: int) -> None:
    """Our terminal was resized: give the child's PTY the new size."""
    with contextlib.suppress(OSError):
        os.read(wake_r, 1024)
    rows, cols = terminal_size(stdin_fd, output_fd)
    with contextlib.suppress(OSError):
        set_winsize(master, rows, cols)


def _read_input(stdin_fd: int) -> bytes | None:
    """What the operator typed: b"" at EOF, None when nothing could be read."""
    try:
        return os.read(stdin_fd, READ_CHUNK)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def _write_input(master: int, pending: bytearray) -> None:
    """Write as much queued input as the PTY takes now (dropped if it is gone)."""
    try:
        n = os.write(master, pending)
        del pending[:n]
    except BlockingIOError:
        pass
    except OSError:
        pending.clear()


@dataclass
class _Sink:
    """Where the child's output goes, and how much of it there was."""

    fd: int
    written: int = 0


def _copy_out(master: int, sink: _Sink, drain: bool = False) -> bool:
    """Copy one chunk from the PTY to our output. False at EOF (or, when
    draining, once nothing is left)."""
    try:
        data = os.read(master, READ_CHUNK)
    except BlockingIOError:
        return not drain
    except OSError:
        return False  # EIO: every slave fd is closed
    if not data:
        return False
    _write_all(sink.fd, data)
    sink.written += len(data)
    return True


def main(argv: list[str] | None = None) -> int:
    """`python -m zirv_dash.panes.wrap CMD…`: a manual test hook."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m zirv_dash.panes.wrap CMD [ARGS…]", file=sys.stderr)
        return 2
    return run_wrapped(args, dict(os.environ), os.getcwd(), notice=f"wrapping {args[0]}")


if __name__ == "__main__":
    raise SystemExit(main())
