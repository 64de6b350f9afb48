"""One supervised session: a child on a PTY, its terminal model, and its state.

The pane never blocks: `read_available()` takes what the kernel has, `pump()`
parses a bounded number of bytes, and the owner decides when to call them. A
pane whose child could not start still exists — it shows why on its screen and
reports itself failed — so a bad config never takes the dashboard down.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import replace

from zirv_dash import paths
from zirv_dash.attention.states import PaneState
from zirv_dash.attention.tracker import AttentionTracker, RepaintFilter, at_input_prompt
from zirv_dash.harnesses.adapters import Adapter
from zirv_dash.panes import words
from zirv_dash.panes.kept import CHILD_FIELDS, Kept
from zirv_dash.panes.ptysession import PtySession, SpawnError
from zirv_dash.panes.spec import PaneSpec
from zirv_dash.terminal import TerminalModel

INBOX_HIGH_WATER = 2 * 1024 * 1024
"""Stop reading a pane's PTY while this much output is still unparsed: the child
then blocks on write, exactly as with a slow terminal."""
SCREEN_CHECK_INTERVAL = 0.1
"""Needs-you patterns are matched against the screen at most this often."""
HIDDEN_SCREEN_CHECK_INTERVAL = 0.5
"""A pane nobody is looking at has its screen read less often: a flooding
neighbour's needs-you prompt is still noticed within half a second."""


class Pane:
    kind = "pty"
    """The pane kind: "pty" (a child on a PTY) or "native" (zirv's own session,
    `zirv_dash.runtime.native_pane`), recorded in the restore roster."""
    remote_host = ""
    """The host whose runtime holds it (`zirv_dash.remote.pane`); empty for this
    machine's panes. A remote pane outlives this dashboard: quitting detaches it."""

    def __init__(
        self,
        spec: PaneSpec,
        columns: int,
        rows: int,
        scrollback_bytes: int,
        idle_quiet_ms: int = 10_000,
    ) -> None:
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
        self.inbox: deque[bytes] = deque()
        """Output read from the PTY but not parsed yet (chunks, oldest first)."""
        self.created_at = time.time()
        self.repaint_bytes = 0
        """Output taken as the child's redraw after our resize, not as work."""
        self.bytes_in = 0
        self._fresh_child(spec.agent, idle_quiet_ms, bool(spec.prompt), screen_dirty=False)

    def _fresh_child(
        self, agent: str, idle_quiet_ms: int, prompted: bool, *, screen_dirty: bool
    ) -> None:
        """What a child starts with, the first or a successor: nothing unparsed,
        written or typed yet, not ended, and a fresh attention tracker."""
        self.inbox.clear()
        self.inbox_bytes = 0
        self._shell_marks = 0
        """OSC 133 marks of this child's model already given to the tracker."""
        now = time.monotonic()
        self.started_mono = now
        self.last_output_at: float | None = None
        self._release_pending = False
        """Output withheld during a hold waits to be parsed before the state follows."""
        self.last_input_at: float | None = None
        self.turn_signal_at: float | None = None
        self.user_typed_since_turn = False
        self.typed_at_dialog = False
        """The operator's last key went to a needs-you dialog (an answer, not a draft)."""
        self.exit_code: int | None = None
        self.exited_at: float | None = None
        self.spawn_error: str | None = None
        self.scroll_offset = 0
        self.tracker = AttentionTracker(
            agent, idle_quiet_ms=idle_quiet_ms, initial_prompt=prompted, started_at=now
        )
        self._screen_checked_at = 0.0
        self._screen_dirty = screen_dirty
        self._repaint = RepaintFilter()
        self._failed_mono: float | None = None
        self.awaiting_frame = False
        """The pane is shown live and a frame is due to confirm it was seen."""

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
        self._failed_mono = time.monotonic()
        self.model_view.feed(words.spawn_failure_screen(self.agent, reason))

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
            self.inbox.append(data)
            self.inbox_bytes += len(data)
        return len(data)

    @property
    def wants_read(self) -> bool:
        return self.inbox_bytes < INBOX_HIGH_WATER

    def pump(self, budget: int) -> int:
        """Parse up to `budget` bytes of pending output. Returns bytes parsed."""
        if not self.inbox:
            return 0
        chunk = self.inbox.popleft()
        if len(chunk) > budget:
            # Keep the rest for later; slicing one chunk is cheap, unlike
            # shifting a large buffer.
            self.inbox.appendleft(chunk[budget:])
            chunk = chunk[:budget]
        self.inbox_bytes -= len(chunk)
        history_before = self.model_view.history_size
        self.model_view.feed(chunk)
        grown = self.model_view.history_size - history_before
        if self.scroll_offset:
            # Keep a scrolled-back view on the same text while output continues,
            # as tmux does (until the byte cap starts dropping the oldest lines).
            self.scroll_offset = min(
                self.scroll_offset + max(0, grown), self.model_view.history_size
            )
        self.bytes_in += len(chunk)
        now = time.monotonic()
        self.last_output_at = now
        last_work = self.tracker.last_output
        if self._repaint.is_repaint(now, len(chunk), scrolled=grown > 0, last_work=last_work):
            # The child redrawing itself for the size we just gave it: not work.
            self.repaint_bytes += len(chunk)
        else:
            self.tracker.output(now)
        if self.model_view.shell_marks != self._shell_marks:
            # The shell's own word (OSC 133) on whether a command runs.
            self._shell_marks = self.model_view.shell_marks
            running = self.model_view.shell_running
            if running is not None:
                self.tracker.shell(running, now)
        self._screen_dirty = True
        if now - self._screen_checked_at >= self._screen_interval():
            self.check_screen(now)
        if self._release_pending and not self.inbox:
            self._release_pending = False
            self.tracker.release(now)
        replies = self.model_view.take_replies()
        if replies and self.pty is not None:
            self.pty.write(replies)
        return len(chunk)

    def release_after_read(self) -> None:
        """Its output was left unread for a while (`runtime.hidden_reads`):
        the state follows again once what waits in the kernel is parsed."""
        self._release_pending = True

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
        self.tracker.exited(code, time.monotonic())
        return code

    def stop(self, grace: float = 5.0) -> None:
        """End the child with the termination ladder (blocking); it then reads as
        stopped. The typed quit sequence is used only at the harness's ordinary
        input prompt (typed into a dialog, its Enter would answer for the user);
        any other screen gets the harness's clean-quit signals."""
        if self.pty is None or self.exit_code is not None:
            return
        self.pty.stop_for(
            self.agent,
            self.adapter.quit_sequence,
            typed_ok=self.at_input_prompt(),
            grace=grace,
            defer_submit=self.adapter.defer_submit,
        ).run()
        self.poll_exit()

    # -- input ------------------------------------------------------------------------------

    @property
    def current_cwd(self) -> str:
        """Where the child says it is (OSC 7, a shell after `cd`), else where it
        was started: what the header shows and restore, spawn-here and the diff
        review use. A reported directory that no longer exists is not used."""
        reported = self.model_view.cwd
        if reported and reported != self.cwd and os.path.isdir(reported):
            return reported
        return self.cwd

    def report(self, data: bytes) -> None:
        """A terminal report for the child (focus in/out): not typing, so it
        neither snaps the view back nor counts as the operator's input."""
        if self.pty is not None and self.exit_code is None and data:
            self.pty.write(data)

    def send(self, data: bytes, typed: bool = True) -> None:
        """Bytes for the child. Operator typing snaps the view back to live, like tmux."""
        if self.pty is None or self.exit_code is not None or not data:
            return
        self.pty.write(data)
        now = time.monotonic()
        self.last_input_at = now
        self._repaint.input(now)
        self.tracker.input(now, submit=b"\r" in data)
        if typed:
            self.user_typed_since_turn = True
            self.typed_at_dialog = self.tracker.on_dialog
            self.scroll_offset = 0

    def deliver(self, text: str) -> str:
        """A whole line from outside (mail, a nudge) for a pane kind with a submit
        path of its own; a PTY pane is typed into instead (`send`)."""
        raise TypeError(f"pane {self.short} takes typed input, not a delivered line")

    def resize(self, columns: int, rows: int) -> None:
        columns, rows = max(1, columns), max(1, rows)
        if (columns, rows) == (self.model_view.columns, self.model_view.rows):
            return
        self.model_view.resize(columns, rows)
        self.scroll_offset = min(self.scroll_offset, self.model_view.history_size)
        if self.pty is not None:
            self.pty.resize(columns, rows)
            if self.alive and self.last_output_at is not None:
                # Its SIGWINCH redraw is ours, not work (a first draw still is).
                self._repaint.resized(time.monotonic(), columns, rows)

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
        now = time.monotonic()
        # A turn boundary ends the operator's claim on the pane if what they typed
        # was submitted, or was a key answering a dialog (`y` at a question, `1`
        # at a trust menu: kept as a draft, it blocked mail and nudges for good).
        # Unsent text typed anywhere else is a draft and stays theirs (nothing
        # may be typed after it) until the screen moves on (`check_screen`).
        submitted = self.last_input_at is None or self.tracker.turn_since == self.last_input_at
        self.turn_signal_at = now
        if submitted or self.typed_at_dialog:
            self.user_typed_since_turn = False
        self.tracker.turn_signal(now)

    def check_screen(self, now: float | None = None) -> None:
        """Match the visible screen against the needs-you patterns (throttled)."""
        if not self._screen_dirty:
            return
        now = time.monotonic() if now is None else now
        self._screen_checked_at = now
        self._screen_dirty = False
        self.tracker.screen(
            self.model_view.lines(),
            now,
            self.model_view.cursor,
            redraw=self._repaint.redrawing(now),
        )
        if self.user_typed_since_turn and self._screen_moved_on():
            # The screen moved on since the last key: it is the empty recognised
            # prompt again, so what was typed (a one-key answer) is no draft.
            self.user_typed_since_turn = False

    def _screen_moved_on(self) -> bool:
        since, typed = self.tracker.prompt_since, self.last_input_at
        return since is not None and typed is not None and since > typed

    def _screen_interval(self) -> float:
        return SCREEN_CHECK_INTERVAL if self.tracker.visible else HIDDEN_SCREEN_CHECK_INTERVAL

    def state(self, now: float | None = None) -> PaneState:
        if self.spawn_error:
            return PaneState.FAILED
        now = time.monotonic() if now is None else now
        if self._screen_dirty and now - self._screen_checked_at >= self._screen_interval():
            # The last output may have landed inside the check's throttle window
            # (and no output came after it): a later state read judges the
            # screen as it is, still at most once per interval (a flood of
            # output must not make every chrome refresh re-read the screen).
            self.check_screen(now)
        return self.tracker.state(now)

    def reason(self, now: float | None = None) -> str | None:
        if self.spawn_error:
            return self.spawn_error
        return self.tracker.reason(time.monotonic() if now is None else now)

    def state_since(self, now: float | None = None) -> float:
        """When the current state began (monotonic seconds)."""
        if self.spawn_error and self._failed_mono is not None:
            return self._failed_mono
        return self.tracker.state_since(time.monotonic() if now is None else now)

    def ended_words(self) -> str:
        """How the child ended, in words ("" while it runs)."""
        return words.ended_words(self.exit_code, self.spawn_error)

    def ended_note(self) -> str:
        """The same, in a few cells for the roster ("exit 3", "TERM", "no start");
        while it runs, the last command's exit status its shell reported (OSC
        133, "$? 1")."""
        ended = words.ended_note(self.exit_code, self.spawn_error)
        last = self.model_view.last_exit
        if ended or last is None or self.exit_code is not None:
            return ended
        return f"$? {last}"

    def is_idle(self, now: float | None = None) -> bool:
        return self.state(now) in (PaneState.IDLE, PaneState.DONE_UNSEEN)

    def at_input_prompt(self) -> bool:
        """True only when the screen is known to be the harness's ordinary input
        prompt, so typed text (a quit command, mail) lands in the composer and
        not in a dialog. Anything not positively recognised is False (see
        `attention.INPUT_PROMPTS`)."""
        if self.pty is None or self.exit_code is not None or self.spawn_error:
            return False
        model = self.model_view
        if not at_input_prompt(self.agent, model.lines(), model.cursor):
            return False
        # A prompt-looking last line of a shell is not enough: a foreground job
        # (vim, a REPL) may be reading the terminal.
        return self.agent != "shell" or self.pty.leader_in_foreground()

    def set_visible(self, visible: bool) -> None:
        """`True` only once a completed frame showed the pane live (no overlay)."""
        self.tracker.set_visible(visible, time.monotonic())
        if not visible:
            self.awaiting_frame = False

    def last_screen_line(self) -> str:
        for line in reversed(self.model_view.lines()):
            if line.strip():
                return line.strip()
        return ""

    def report_lines(self) -> list[str]:
        """What a report of this pane quotes: its screen lines (a native pane,
        which has no screen, says its transcript)."""
        return [line.rstrip() for line in self.model_view.lines()]

    def queues_input_durably(self) -> bool:
        """True when text handed to the pane now waits in a durable queue of its
        own (a native session blocked on an approval), never answering what is
        open. A terminal pane has no such queue: its text waits in the mailbox."""
        return False

    def unknown_tool_outcomes(self) -> list[str]:
        """Tool calls whose outcome is unknown (a native session stopped while they
        ran); a terminal pane cannot know of any."""
        return []

    # -- handover ----------------------------------------------------------------------

    def install_successor(
        self,
        pty: PtySession,
        model_view: TerminalModel,
        adapter: Adapter,
        argv: list[str],
        model: str | None,
        prompted: bool,
    ) -> tuple[PtySession | None, TerminalModel]:
        """Swap in a successor child (issue 6): new PTY, terminal model, harness and
        model, a fresh attention tracker; the short id, session id, role, title and
        first prompt stay. Returns the old (PTY, model) for the caller to retire
        (`kept()`, taken first, has everything needed to put the old child back)."""
        old = (self.pty, self.model_view)
        self.inbox = deque()  # the old child's unparsed output stays with its `Kept`
        # The successor asking for colours (OSC 10/11) hears what its
        # predecessor heard: the outer terminal's, or no answer.
        model_view.default_fg_rgb = self.model_view.default_fg_rgb
        model_view.default_bg_rgb = self.model_view.default_bg_rgb
        self.pty = pty
        self.model_view = model_view
        self.agent = adapter.name
        self.adapter = adapter
        self.model = model
        self.spec = replace(
            self.spec, agent=adapter.name, adapter=adapter, argv=list(argv), model=model
        )
        idle_quiet_ms = int(self.tracker.idle_quiet * 1000)
        self._fresh_child(adapter.name, idle_quiet_ms, prompted, screen_dirty=True)
        return old

    def kept(self) -> Kept:
        """This child's whole state, to put back with `restore` if its successor
        fails (a handover keeps the original until the successor proves itself)."""
        return Kept({name: getattr(self, name) for name in CHILD_FIELDS if hasattr(self, name)})

    def restore(self, kept: Kept) -> None:
        """Put a `kept` child back as it was (its screen, state and unparsed output)."""
        for name, value in kept.fields.items():
            setattr(self, name, value)
        self._screen_dirty = True
