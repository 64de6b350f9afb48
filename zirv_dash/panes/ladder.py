"""The termination ladder: quit sequence, clean-quit signals, SIGKILL, stepped
by its owner without blocking; and which signals each harness quits on."""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence
from typing import Protocol


class LadderTarget(Protocol):
    """What a ladder needs of the session it ends (`PtySession`)."""

    stopped: bool
    exit_code: int | None

    @property
    def eof(self) -> bool: ...

    def read(self, limit: int = ...) -> bytes: ...

    def write(self, data: bytes) -> None: ...

    def flush(self) -> bool: ...

    def poll(self) -> int | None: ...

    def session_members(self) -> list[int]: ...

    def session_ended(self) -> bool: ...

    def signal_group(self, sig: int) -> None: ...


CLEAN_QUIT_SIGNALS: dict[str, tuple[int, ...]] = {
    # An interactive shell ignores SIGTERM but treats a hangup as its terminal
    # closing: it hangs up its jobs and exits.
    "shell": (signal.SIGHUP,),
}
DEFAULT_QUIT_SIGNALS: tuple[int, ...] = (signal.SIGTERM,)
"""The agent CLIs (Claude Code, Codex, Gemini CLI and the rest, the demo agent)
exit on SIGTERM, restoring the terminal and saving the session, without
answering whatever dialog is on screen."""
SIGNAL_GRACE: dict[str, float] = {"shell": 1.0}
DEFAULT_SIGNAL_GRACE = 3.0
"""How long a harness gets to act on its quit signal before SIGKILL (an agent may
write its transcript; a shell has nothing to save)."""


def quit_signals(harness: str) -> tuple[int, ...]:
    """The signals a harness treats as "quit now, cleanly" (never a typed answer)."""
    return CLEAN_QUIT_SIGNALS.get(harness, DEFAULT_QUIT_SIGNALS)


def signal_grace(harness: str) -> float:
    return SIGNAL_GRACE.get(harness, DEFAULT_SIGNAL_GRACE)


TERM_GRACE = 1.0
"""SIGHUP/SIGTERM to SIGKILL."""
DEFERRED_ENTER_DELAY = 0.3
"""Seconds between a typed line and its Enter for harnesses that take a line
and its Enter in one read as a paste (codex, gemini): gemini drops an Enter
sent within ~0.1 s of the line."""
KILL_CONFIRM = 2.0
"""How long SIGKILL is repeated (new forks included) before giving up."""


class Ladder:
    """One termination ladder, stepped by its owner without blocking.

    quit: the quit sequence (only when the caller knows it lands in the
    harness's input prompt), up to `quit_grace` for the child to exit by itself;
    signal: `signals` (the harness's clean-quit signals) to every process group of
    the session, up to TERM_GRACE; kill: SIGKILL to all of them, repeated until
    /proc shows none (at most KILL_CONFIRM). `step(now)` does what is due and
    returns True when finished. `drain` reads (and drops) the child's output, for
    owners that no longer show it, so a child blocked on a full PTY can exit."""

    def __init__(
        self,
        session: LadderTarget,
        *,
        quit_sequence: bytes = b"",
        quit_grace: float = 5.0,
        signals: Sequence[int] = (signal.SIGHUP, signal.SIGTERM),
        defer_submit: bool = False,
        drain: bool = True,
        term_grace: float = TERM_GRACE,
        kill_confirm: float = KILL_CONFIRM,
    ) -> None:
        self.session = session
        self.quit_sequence = quit_sequence
        self.quit_grace = quit_grace
        self.signals = tuple(signals)
        self.defer_submit = defer_submit
        self.drain = drain
        self.term_grace = term_grace
        self.kill_confirm = kill_confirm
        self.stage = "start"
        self.deadline = 0.0
        self._enter_at: float | None = None
        self.survivors: list[int] = []

    @property
    def done(self) -> bool:
        return self.stage == "done"

    def step(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        session = self.session
        if self.stage == "done":
            return True
        if self.drain and not session.eof:
            for _ in range(16):
                if not session.read():
                    break
        session.flush()
        if self.stage == "start":
            session.stopped = True
            self._start(now)
        if self.stage == "quit":
            if self._enter_at is not None and now >= self._enter_at:
                session.write(b"\r")
                self._enter_at = None
            if session.poll() is not None or now >= self.deadline:
                self._signal(now)
        elif self.stage == "signal":
            if session.session_ended():
                self.stage = "done"
            elif now >= self.deadline:
                self.stage, self.deadline = "kill", now + self.kill_confirm
        if self.stage == "kill":
            self.survivors = session.session_members()
            if session.poll() is not None and not self.survivors:
                self.stage = "done"
            elif now >= self.deadline:
                self.stage = "done"  # a process stuck in the kernel; reported as survivor
            else:
                session.signal_group(signal.SIGKILL)
        return self.stage == "done"

    def _start(self, now: float) -> None:
        sequence = self.quit_sequence
        if sequence and self.session.poll() is None:
            if self.defer_submit and sequence.endswith(b"\r") and len(sequence) > 1:
                # Codex drops an Enter that arrives in the same read as its text.
                sequence, self._enter_at = sequence[:-1], now + DEFERRED_ENTER_DELAY
            self.session.write(sequence)
            self.stage, self.deadline = "quit", now + self.quit_grace
        else:
            self._signal(now)

    def _signal(self, now: float) -> None:
        if self.session.session_ended():
            self.stage = "done"
            return
        for sig in self.signals:
            self.session.signal_group(sig)
        # A stopped job cannot act on SIGHUP/SIGTERM until it is continued.
        self.session.signal_group(signal.SIGCONT)
        self.stage, self.deadline = "signal", now + self.term_grace

    def run(self, interval: float = 0.02) -> int | None:
        """Step until done (blocking: for CLIs and worker threads); the exit code."""
        return run_ladder(self, interval)


def run_ladder(ladder: Ladder, interval: float = 0.02) -> int | None:
    """Step `ladder` until it is done (blocking: for CLIs and worker threads)."""
    while not ladder.step():
        time.sleep(interval)
    return ladder.session.exit_code
