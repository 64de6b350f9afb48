"""A headless inline run that sits at a needs-you screen ends (`zirv agent`, no terminal).

With nobody at a terminal, a login screen, a trust menu or a y/n question is never
answered: the run would wait for ever. The worker's output (the tee's copy) is
drawn into a terminal model and its screen matched against the needs-you patterns
(`attention.patterns`, the same the dashboard uses); a needs-you screen that
persists for `secs` stops the worker's process group, and the run reports
`state: "needs_you"` with a non-zero exit.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

from zirv_dash.attention.patterns import detect_needs_you
from zirv_dash.terminal import TerminalModel

DEFAULT_SECS = 30
EXIT_NEEDS_YOU = 75
"""EX_TEMPFAIL: the run can be retried once someone answers the CLI (logs in)."""
CHECK_SECS = 0.25
KILL_AFTER_SECS = 3.0


class NeedsYouWatch:
    def __init__(self, agent: str, secs: float, columns: int, rows: int) -> None:
        self.agent = agent
        self.secs = secs
        self.pid: int | None = None
        self.reason: str | None = None
        """Set once the run was ended: what the screen asked for."""
        self._model = TerminalModel(max(20, columns), max(5, rows))
        self._lock = threading.Lock()
        self._dirty = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="needs-you", daemon=True)

    def start(self, pid: int) -> NeedsYouWatch:
        self.pid = pid
        self._thread.start()
        return self

    def feed(self, data: bytes) -> None:
        """The worker's output (the tee's thread)."""
        with self._lock:
            self._model.feed(data)
            self._model.take_replies()  # the PTY side answered them already
            self._dirty = True

    @property
    def fired(self) -> bool:
        return self.reason is not None

    def _run(self) -> None:
        since: float | None = None
        reason: str | None = None
        while not self._stop.wait(CHECK_SECS):
            with self._lock:
                if self._dirty:
                    self._dirty = False
                    reason = detect_needs_you(self.agent, self._model.lines())
            now = time.monotonic()
            if reason is None:
                since = None
                continue
            since = now if since is None else since
            if now - since >= self.secs:
                self._end(reason)
                return

    def _end(self, reason: str) -> None:
        self.reason = reason
        if self.pid is None:
            return
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGTERM)  # the child leads its own session
        # A CLI at a dialog may ignore SIGTERM: the run must end all the same.
        if not self._stop.wait(KILL_AFTER_SECS):
            with contextlib.suppress(OSError):
                os.killpg(self.pid, signal.SIGKILL)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(1.0)
