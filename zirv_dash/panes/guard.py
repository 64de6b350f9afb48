"""A guard process that ends our children's sessions if this process dies.

Every child on a PTY leads its own session, so a hard kill of the dashboard
(`kill -9`, an OOM kill) leaves them running: the kernel's parent-death signal
reaches only the direct child, and a shell ignoring SIGHUP or a job in its own
process group outlives it. The guard is a tiny stdlib-only process started once
per dashboard process. It holds nothing but the read end of one pipe (no PTY,
no directory: it runs in `/` with fds 0-2 only). We write `+ <sid> <start>` when
a session starts and `- <sid>` once it is verified empty. When the pipe reads
EOF — we exited or were killed — the guard runs the termination ladder
(SIGHUP + SIGTERM to every process group of each session still recorded, a
short grace, SIGKILL, verified by walking /proc) and exits. A clean exit has
forgotten every session first, so the guard then exits at once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable
from typing import IO

GRACE_SECS = 1.5
"""SIGHUP/SIGTERM to SIGKILL, after the dashboard died (well inside 5 s)."""
CONFIRM_SECS = 2.0


def end_sessions(
    sessions: dict[int, float | None],
    grace: float = GRACE_SECS,
    confirm: float = CONFIRM_SECS,
) -> list[int]:
    """The ladder for sessions whose owner is gone; returns pids that survived."""
    from zirv_dash.panes import procinfo

    return procinfo.end_sessions(sessions, grace=grace, confirm=confirm).survivors


def serve(stream: Iterable[str]) -> tuple[dict[int, float | None], dict[int, str]]:
    """Read the owner's messages until EOF: the sessions still recorded then
    (leader pid → start time) and their panes' session ids."""
    sessions: dict[int, float | None] = {}
    ids: dict[int, str] = {}
    for line in stream:
        parts = line.split()
        try:
            if len(parts) in (3, 4) and parts[0] == "+":
                sid = int(parts[1])
                sessions[sid] = float(parts[2]) if parts[2] != "-" else None
                if len(parts) == 4:
                    ids[sid] = parts[3]
            elif len(parts) == 2 and parts[0] == "-":
                sessions.pop(int(parts[1]), None)
                ids.pop(int(parts[1]), None)
        except ValueError:
            continue  # only we write this pipe; a garbled line is skipped, not fatal
    return sessions, ids


def main(argv: list[str]) -> int:
    # No terminal signals reach us (own session), but be explicit: only EOF ends us.
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_IGN)
    sessions, ids = serve(sys.stdin)
    if sessions:
        end_sessions(sessions)
        if argv:
            note_escapes(sessions, ids, argv[0])
    return 0


def note_escapes(sessions: dict[int, float | None], ids: dict[int, str], directory: str) -> None:
    """Record what left these sessions (setsid) after they were ended: it is not
    ours to kill, but `zirv ctx status` and the next launch must show it."""
    from pathlib import Path

    from zirv_dash.panes import escapes

    escapes.note(Path(directory), escapes.find(sessions, ids.values()))


class GuardClient:
    """Our side of the pipe. Thread-safe; a guard that cannot start or dies is
    restarted on the next message (and told every session again)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stdin: IO[bytes] | None = None
        self._sessions: dict[int, float | None] = {}
        self._ids: dict[int, str] = {}
        self._fd = -1

    @property
    def sessions(self) -> set[int]:
        """Sessions being watched (leaders' pids)."""
        with self._lock:
            return set(self._sessions)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def watch(self, sid: int, start_time: float | None, session_id: str | None = None) -> None:
        """Watch session `sid`; `session_id` is the pane's ZIRV_CTX_SESSION (what
        its processes carry, so those that leave the session can be found)."""
        with self._lock:
            self._sessions[sid] = start_time
            if session_id and session_id.isprintable() and " " not in session_id:
                self._ids[sid] = session_id
            self._send(_add_line(sid, start_time, self._ids.get(sid)))

    def forget(self, sid: int) -> None:
        with self._lock:
            self._ids.pop(sid, None)
            if sid in self._sessions:
                del self._sessions[sid]
                self._send(f"- {sid}\n".encode())

    def close(self) -> None:
        """Close the pipe (the guard ends whatever is still recorded, then exits)."""
        with self._lock:
            proc, stdin = self._proc, self._stdin
            self._proc = self._stdin = None
            self._fd = -1
        if stdin is not None:
            with contextlib.suppress(OSError):
                stdin.close()
        if proc is not None and not self._sessions:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=2.0)

    def _send(self, line: bytes) -> None:
        for _attempt in range(2):
            if self._stdin is None and not self._start():
                return
            assert self._stdin is not None
            try:
                self._stdin.write(line)
                self._stdin.flush()
                return
            except OSError:
                self._stdin = None  # the guard died; start another and resend
                self._fd = -1
                self._proc = None

    def _start(self) -> bool:
        script = os.path.abspath(__file__)
        try:
            from zirv_dash import paths

            escaped = [str(paths.state_dir() / "escaped")]
        except OSError:
            escaped = []
        try:
            proc = subprocess.Popen(
                [sys.executable, "-S", "-E", script, *escaped],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                close_fds=True,
                start_new_session=True,
                cwd="/",
            )
        except (OSError, subprocess.SubprocessError):
            return False
        assert proc.stdin is not None
        self._proc, self._stdin = proc, proc.stdin
        self._fd = proc.stdin.fileno()
        try:
            for sid, start in self._sessions.items():
                proc.stdin.write(_add_line(sid, start, self._ids.get(sid)))
            proc.stdin.flush()
        except OSError:
            self._proc = self._stdin = None
            self._fd = -1
            return False
        return True


def _add_line(sid: int, start_time: float | None, session_id: str | None) -> bytes:
    start = "-" if start_time is None else repr(start_time)
    tail = f" {session_id}" if session_id else ""
    return f"+ {sid} {start}{tail}\n".encode()


_client: GuardClient | None = None
_client_lock = threading.Lock()


def client() -> GuardClient:
    """This process's guard (started on first use)."""
    global _client
    with _client_lock:
        if _client is None:
            _client = GuardClient()
        return _client


def _after_fork_in_child() -> None:
    # A forked copy must not hold the pipe open (the guard would never see EOF)
    # nor speak for the parent's sessions.
    global _client
    # Only a plain int and a syscall: locks held by other threads at the fork
    # (the pipe's buffer lock among them) are never taken here.
    fd = _client._fd if _client is not None else -1
    if fd >= 0:
        with contextlib.suppress(OSError):
            os.close(fd)
    _client = None


os.register_at_fork(after_in_child=_after_fork_in_child)


if __name__ == "__main__":
    # Started by path with -S -E: make the package importable, nothing else.
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    raise SystemExit(main(sys.argv[1:]))
