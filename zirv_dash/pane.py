"""One supervised session: a child on a PTY, its terminal model, and its state.

The pane never blocks: `read_available()` takes what the kernel has, `pump()`
parses a bounded number of bytes, and the owner decides when to call them. A
pane whose child could not start still exists — it shows why on its screen and
reports itself failed — so a bad config never takes the dashboard down.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from zirv_dash import paths
from zirv_dash.adapters import Adapter
from zirv_dash.ptysession import PtySession, SpawnError
from zirv_dash.terminal import TerminalModel

INBOX_HIGH_WATER = 2 * 1024 * 1024
"""Stop reading a pane's PTY while this much output is still unparsed: the child
then blocks on write, exactly as with a slow terminal."""


class PaneState(Enum):
    STARTING = "starting"
    WORKING = "working"
    IDLE = "idle"
    NEEDS_YOU = "needs_you"
    DONE_UNSEEN = "done_unseen"
    EXITED = "exited"
    FAILED = "failed"


STATE_WORDS = {
    PaneState.STARTING: "starting",
    PaneState.WORKING: "working",
    PaneState.IDLE: "idle",
    PaneState.NEEDS_YOU: "needs you",
    PaneState.DONE_UNSEEN: "done",
    PaneState.EXITED: "exited",
    PaneState.FAILED: "failed",
}


@dataclass
class PaneSpec:
    agent: str
    adapter: Adapter
    argv: list[str]
    cwd: str
    role: str = "worker"
    model: str | None = None
    prompt: str | None = None
    session_id: str = field(default_factory=paths.new_session_id)
    headless: bool = False
    requested_by: str | None = None


class Pane:
    def __init__(self, spec: PaneSpec, columns: int, rows: int, scrollback_bytes: int) -> None:
        self.spec = spec
        self.session_id = spec.session_id
        self.short = paths.short_id(spec.session_id)
        self.agent = spec.agent
        self.adapter = spec.adapter
        self.role = spec.role
        self.model = spec.model
        self.cwd = spec.cwd
        self.first_prompt = spec.prompt
        self.title = "orch" if spec.role == "orchestrator" else self.short
        self.model_view = TerminalModel(columns, rows, scrollback_bytes=scrollback_bytes)
        self.pty: PtySession | None = None
        self.inbox = bytearray()
        self.created_at = time.time()
        self.started_mono = time.monotonic()
        self.last_output_at: float | None = None
        self.last_input_at: float | None = None
        self.turn_signal_at: float | None = None
        self.user_typed_since_turn = False
        self.exit_code: int | None = None
        self.exited_at: float | None = None
        self.spawn_error: str | None = None
        self.scroll_offset = 0
        self.seen_done = True
        """False from the moment a turn ends while nobody is looking (done-unseen)."""
        self.attention: str | None = None
        """Reason the pane needs you (a prompt on screen), or None."""
        self.bytes_in = 0

    # -- lifecycle ------------------------------------------------------------------------

    def start(self, env: Mapping[str, str]) -> bool:
        """Spawn the child. On failure the pane shows why and counts as failed."""
        try:
            self.pty = PtySession(
                self.spec.argv,
                cwd=self.cwd,
                env=env,
                columns=self.model_view.columns,
                rows=self.model_view.rows,
            )
        except SpawnError as exc:
            self.fail(str(exc))
            return False
        return True

    def fail(self, reason: str) -> None:
        self.spawn_error = reason
        self.exit_code = 127
        self.exited_at = time.time()
        message = (
            f"\x1b[1;31mzirv: could not start {self.agent}\x1b[0m\r\n"
            f"{reason}\r\n\r\n"
            "\x1b[2mFix the command or install the harness, then spawn a new pane "
            "(Ctrl+A s).\x1b[0m\r\n"
        )
        self.model_view.feed(message.encode())

    @property
    def fd(self) -> int | None:
        if self.pty is None or self.pty.eof:
            return None
        return self.pty.fd

    @property
    def alive(self) -> bool:
        return self.exit_code is None

    def read_available(self, limit: int = 65536) -> int:
        """Move available PTY output into the inbox. Returns bytes read (0 at EOF)."""
        if self.pty is None:
            return 0
        data = self.pty.read(limit)
        if data:
            self.inbox += data
        return len(data)

    @property
    def wants_read(self) -> bool:
        return len(self.inbox) < INBOX_HIGH_WATER

    def pump(self, budget: int) -> int:
        """Parse up to `budget` bytes of pending output. Returns bytes parsed."""
        if not self.inbox:
            return 0
        chunk = bytes(self.inbox[:budget])
        del self.inbox[:budget]
        self.model_view.feed(chunk)
        self.bytes_in += len(chunk)
        self.last_output_at = time.monotonic()
        replies = self.model_view.take_replies()
        if replies and self.pty is not None:
            self.pty.write(replies)
        return len(chunk)

    def poll_exit(self) -> int | None:
        """The exit code once the child has exited and its output is drained."""
        if self.exit_code is not None:
            return self.exit_code
        if self.pty is None:
            return None
        code = self.pty.poll()
        if code is None:
            return None
        if not self.pty.eof:
            # Drain what the child wrote before exiting, so its last lines show.
            while self.read_available():
                pass
            self.pty.finish()
        if self.inbox:
            return None
        self.exit_code = code
        self.exited_at = time.time()
        return code

    def stop(self, grace: float = 5.0) -> None:
        if self.pty is not None and self.exit_code is None:
            self.pty.terminate(self.adapter.quit_sequence, grace)
            self.poll_exit()

    # -- input ------------------------------------------------------------------------------

    def send(self, data: bytes, typed: bool = True) -> None:
        """Bytes for the child. Operator typing snaps the view back to live, like tmux."""
        if self.pty is None or self.exit_code is not None or not data:
            return
        self.pty.write(data)
        self.last_input_at = time.monotonic()
        if typed:
            self.user_typed_since_turn = True
            self.scroll_offset = 0

    def resize(self, columns: int, rows: int) -> None:
        columns, rows = max(1, columns), max(1, rows)
        if (columns, rows) == (self.model_view.columns, self.model_view.rows):
            return
        self.model_view.resize(columns, rows)
        self.scroll_offset = min(self.scroll_offset, self.model_view.history_size)
        if self.pty is not None:
            self.pty.resize(columns, rows)

    # -- scrollback ----------------------------------------------------------------------

    def scroll_by(self, lines: int) -> int:
        """Positive scrolls back (older). Returns the new offset."""
        limit = 0 if self.model_view.alternate_screen else self.model_view.history_size
        self.scroll_offset = max(0, min(limit, self.scroll_offset + lines))
        return self.scroll_offset

    def scroll_top(self) -> None:
        self.scroll_by(self.model_view.history_size)

    def scroll_live(self) -> None:
        self.scroll_offset = 0

    # -- state ----------------------------------------------------------------------------

    def turn_signal(self) -> None:
        self.turn_signal_at = time.monotonic()
        self.user_typed_since_turn = False

    def state(self, idle_quiet_ms: int, now: float | None = None) -> PaneState:
        if self.exit_code is not None:
            return PaneState.FAILED if self.exit_code != 0 else PaneState.EXITED
        if self.attention:
            return PaneState.NEEDS_YOU
        if self.last_output_at is None:
            return PaneState.STARTING
        if self.is_idle(idle_quiet_ms, now):
            return PaneState.IDLE if self.seen_done else PaneState.DONE_UNSEEN
        return PaneState.WORKING

    def is_idle(self, idle_quiet_ms: int, now: float | None = None) -> bool:
        if self.last_output_at is None or self.exit_code is not None:
            return False
        now = time.monotonic() if now is None else now
        if self.adapter.turn_signal and self.turn_signal_at is not None:
            latest = max(self.last_output_at, self.turn_signal_at)
            return now - latest >= 0.5
        latest = self.last_output_at
        if self.last_input_at is not None:
            latest = max(latest, self.last_input_at)
        return (now - latest) * 1000 >= idle_quiet_ms

    def last_screen_line(self) -> str:
        for line in reversed(self.model_view.lines()):
            if line.strip():
                return line.strip()
        return ""
