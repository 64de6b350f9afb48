"""Who needs you: the per-pane attention state machine.

`AttentionTracker` folds timestamped events (output, operator input, turn
signal, screen, viewed, exit) into one of `PaneState`. Entering needs-you is
immediate; leaving it waits until the prompt has been gone for
`NEEDS_YOU_DEBOUNCE` so a repaint never flickers the row. `next_deadline()`
says when the state could next change with no new event, so the UI can arm one
timer instead of polling. Pure (no clocks, no I/O), so the dashboard, tests and
a later persistent runtime share it.

What a screen means lives next door and is re-exported here, so
`zirv_dash.attention.tracker` stays the one import for callers:

- `patterns`: the recorded needs-you prompt table (`PATTERNS`,
  `detect_needs_you`, `match_needs_you`);
- `input_prompts`: each harness's ordinary empty composer (`INPUT_PROMPTS`,
  `at_input_prompt`);
- `repaint_filter`: a redraw after our own resize is not work (`RepaintFilter`);
- `states`: the states themselves and how an exit code reads (`PaneState`,
  `Transition`, `ended_state`, `killed_by`).
"""

from __future__ import annotations

from collections.abc import Sequence

from zirv_dash.attention.input_prompts import INPUT_PROMPTS, InputPrompt, at_input_prompt
from zirv_dash.attention.patterns import (
    NEEDS_ANSWER,
    NEEDS_APPROVAL,
    NEEDS_LOGIN,
    NEEDS_PERMISSION,
    PATTERNS,
    PATTERNS_VERSION,
    SCAN_LINES,
    ScreenPattern,
    detect_needs_you,
    match_needs_you,
    patterns_for,
)
from zirv_dash.attention.repaint_filter import (
    REPAINT_BYTES_PER_CELL,
    REPAINT_SLACK,
    REPAINT_WINDOW,
    RepaintFilter,
)
from zirv_dash.attention.states import (
    ENDED_STATES,
    MAX_SIGNAL,
    SIGNAL_EXIT_BASE,
    PaneState,
    Transition,
    ended_state,
    killed_by,
)

__all__ = [
    "ENDED_STATES",
    "INPUT_PROMPTS",
    "MAX_SIGNAL",
    "NEEDS_ANSWER",
    "NEEDS_APPROVAL",
    "NEEDS_LOGIN",
    "NEEDS_PERMISSION",
    "NEEDS_YOU_DEBOUNCE",
    "PATTERNS",
    "PATTERNS_VERSION",
    "REPAINT_BYTES_PER_CELL",
    "REPAINT_SLACK",
    "REPAINT_WINDOW",
    "SCAN_LINES",
    "SIGNAL_EXIT_BASE",
    "SIGNAL_IDLE_DEBOUNCE",
    "AttentionTracker",
    "InputPrompt",
    "PaneState",
    "RepaintFilter",
    "ScreenPattern",
    "Transition",
    "at_input_prompt",
    "detect_needs_you",
    "ended_state",
    "killed_by",
    "match_needs_you",
    "patterns_for",
]

NEEDS_YOU_DEBOUNCE = 0.5
"""Seconds a prompt must be gone before needs-you is left."""
SIGNAL_IDLE_DEBOUNCE = 0.5
"""Seconds of quiet after a turn signal (and the last output) before idle."""


class AttentionTracker:
    """The state of one pane, from timestamped events (seconds, monotonic).

    Idle: a turn signal (Claude Code's Stop hook) plus `SIGNAL_IDLE_DEBOUNCE`
    of output quiet, or `idle_quiet_ms` of quiet since the last output and the
    last operator input (for harnesses without a signal, or a missing hook).

    Done-unseen: the pane went idle after a turn (a submitted input, a turn
    signal after the operator's input, or the launch prompt when
    `initial_prompt`) and has not been on screen at the live view since. Only
    `viewed()` / `set_visible(True)` clear it, and the caller makes those calls
    only once a completed frame has shown the pane live; selecting a pane is not
    looking at it, and a hidden pane is never "just seen".

    `state_since(t)` is when the current state began: the exact event or
    deadline time, not when someone happened to ask.
    """

    def __init__(
        self,
        agent: str,
        *,
        idle_quiet_ms: int = 10_000,
        initial_prompt: bool = False,
        started_at: float = 0.0,
    ) -> None:
        self.agent = agent
        self.idle_quiet = max(idle_quiet_ms, 0) / 1000.0
        self._last_output: float | None = None
        self._last_input: float | None = None
        self._signal_at: float | None = None
        self._turn_since: float | None = started_at if initial_prompt else None
        self._last_viewed: float = float("-inf")
        self._visible = False
        self._needs_reason: str | None = None
        self._needs_clear_since: float | None = None
        self._at_prompt = False
        """The last screen checked was the harness's recognised input prompt."""
        self._prompt_since: float | None = None
        """When the screen became the recognised input prompt (None: it is not)."""
        self._draft_since: float | None = None
        self._drafting = False
        """The operator is typing a line they began at the recognised prompt (a
        draft hides the empty composer, yet the harness still waits for them)."""
        self._exit_code: int | None = None
        self._shell_running: bool | None = None
        """Shell integration (OSC 133): a command runs (True), the shell is at its
        prompt (False); None while the child never sent the marks."""
        self._shell_prompt_at: float | None = None
        self.unreachable: str | None = None
        """Why its terminal cannot be reached now (a remote host's link is down,
        `zirv_dash.remote.pane`): it reads as disconnected until that clears."""
        self._held_since: float | None = None
        """While its output is left unread (`hold`): since when."""
        self._reported = PaneState.STARTING
        # Time-in-state bookkeeping: the state last settled, since when, and the
        # moment up to which the deadlines have been walked.
        self._current = PaneState.STARTING
        self._since = started_at
        self._settled_to = started_at

    # --- events --------------------------------------------------------------

    def output(self, t: float) -> None:
        """The child wrote something."""
        self._settle(t)
        self._last_output = t
        self._mark(t)

    def input(self, t: float, submit: bool = False) -> None:
        """The operator typed (or text was injected); `submit` starts a new turn."""
        self._settle(t)
        self._last_input = t
        if submit:
            self._signal_at = None
            self._turn_since = t
            self._drafting = False
            self._draft_since = None
        elif not self._drafting and self._at_prompt:
            # Typing begins at the recognised prompt: the harness waits for the
            # operator's line, and the echo of each key is not work.
            self._drafting = True
            self._draft_since = t
        self._mark(t)

    def turn_signal(self, t: float) -> None:
        """The harness reported the end of a turn (or that it waits at its prompt).

        A signal before the operator ever typed and without a launch prompt
        finishes no turn: the harness only says it is ready, so it goes idle
        without a `◆`."""
        self._settle(t)
        self._signal_at = t
        self._drafting = False
        self._draft_since = None
        if self._turn_since is None and self._last_input is not None:
            self._turn_since = t
        self._mark(t)

    def shell(self, running: bool, t: float) -> None:
        """The shell said (OSC 133) a command runs (`C`) or it is at its prompt
        (`A`, `B`, `D`): from now on that is the state, exactly -- working while
        a command runs however quiet it is, idle at the prompt at once."""
        self._settle(t)
        self._shell_running = running
        if running:
            self._shell_prompt_at = None
        else:
            self._shell_prompt_at = t
            self._drafting = False
            self._draft_since = None
            if self._turn_since is None and self._last_input is not None:
                self._turn_since = t
        self._mark(t)

    def screen(
        self,
        lines: Sequence[str],
        t: float,
        cursor: tuple[int, int] | None = None,
        redraw: bool = False,
    ) -> None:
        """The visible screen changed; `lines` are its rows, `cursor` (x, y).

        `redraw`: the screen is the child's redraw for a size zirv gave it (our
        zoom or sidebar toggle; `RepaintFilter.redrawing`). A frame drawn half
        way (qwen erases its screen and draws its history back in pieces) is
        not evidence the prompt or a dialog went away, so it can only confirm
        them: it never ends the prompt's recognition, restarts its clock, or
        starts needs-you clearing. Our own resize never changes the state."""
        self._settle(t)
        at_prompt = at_input_prompt(self.agent, lines, cursor)
        if at_prompt and not self._at_prompt:
            self._prompt_since = t
        elif not at_prompt and not redraw:
            self._prompt_since = None
        self._at_prompt = at_prompt or (redraw and self._at_prompt)
        reason = detect_needs_you(self.agent, lines)
        if reason is not None:
            self._needs_reason = reason
            self._needs_clear_since = None
        elif self._needs_reason is not None and self._needs_clear_since is None and not redraw:
            self._needs_clear_since = t
        self._mark(t)

    def viewed(self, t: float) -> None:
        """A completed frame showed this pane at the live view (no overlay)."""
        self._settle(t)
        self._last_viewed = max(self._last_viewed, t)
        self._mark(t)

    def set_visible(self, visible: bool, t: float) -> None:
        """The pane is (or stops being) on screen at the live view.

        `True` only once a completed frame has shown it; `False` as soon as it is
        hidden, scrolled back or covered. A pane that was visible was seen up to
        the moment it is hidden; a hidden pane is not seen at all."""
        if visible or self._visible:
            self.viewed(t)
        self._visible = visible

    @property
    def on_dialog(self) -> bool:
        """The last screen checked showed a needs-you dialog (a question, a menu)."""
        return self._needs_reason is not None

    @property
    def prompt_since(self) -> float | None:
        """When the screen became the recognised input prompt (None: it is not now)."""
        return self._prompt_since

    @property
    def drafting(self) -> bool:
        """The operator is typing a line begun at the recognised prompt."""
        return self._drafting

    @property
    def visible(self) -> bool:
        return self._visible

    def hold(self, t: float) -> None:
        """From `t` the child's output is left unread (a key on its way to
        another pane): its quiet is not seen from then on, so no state is
        entered on it; states read meanwhile are those of `t`."""
        if self._held_since is None:
            self._settle(t)
            self._held_since = t

    def release(self, t: float) -> None:
        """What the child wrote while unread has been taken in (`output` was
        called for it if it was work): from `t` its quiet is seen again, and
        the deadlines inside the hold are walked with what it wrote."""
        if self._held_since is None:
            return
        self._held_since = None
        self._settle(t)
        self._mark(t)

    def _seen(self, t: float) -> float:
        """`t`, or the start of a hold under way: what could be seen last."""
        held = self._held_since
        return t if held is None or t < held else held

    def exited(self, code: int, t: float) -> None:
        self._settle(t)
        self._exit_code = code
        self._mark(t)

    # --- queries -------------------------------------------------------------

    @property
    def last_output(self) -> float | None:
        """When the child last wrote something that counts as work."""
        return self._last_output

    @property
    def turn_since(self) -> float | None:
        """When the current turn began (a submit, a turn signal or the launch
        prompt), or None if no turn has started."""
        return self._turn_since

    def _needs_you(self, t: float) -> str | None:
        if self._needs_reason is None:
            return None
        cleared = self._needs_clear_since
        if cleared is not None and t - cleared >= NEEDS_YOU_DEBOUNCE:
            return None
        return self._needs_reason

    def idle_since(self, t: float) -> float | None:
        """When the current idle period began, or None if the pane is not idle at `t`."""
        if self._last_output is None or self._shell_running:
            return None
        candidates: list[float] = []
        if self._shell_prompt_at is not None:
            candidates.append(self._shell_prompt_at)  # the shell's own word: no debounce
        if self._signal_at is not None:
            candidates.append(max(self._signal_at, self._last_output) + SIGNAL_IDLE_DEBOUNCE)
        if self._prompt_since is not None:
            # The recognised input prompt is as good as a turn signal.
            candidates.append(max(self._prompt_since, self._last_output) + SIGNAL_IDLE_DEBOUNCE)
        if self._draft_since is not None:
            candidates.append(self._draft_since)
        activity = max(self._last_output, self._last_input or self._last_output)
        candidates.append(activity + self.idle_quiet)
        reached = [c for c in candidates if c <= t]
        return min(reached) if reached else None

    def state(self, t: float) -> PaneState:
        t = self._seen(t)
        if self._exit_code is not None:
            return ended_state(self._exit_code)
        if self.unreachable is not None:
            return PaneState.DISCONNECTED
        if self._needs_you(t) is not None:
            return PaneState.NEEDS_YOU
        if self._last_output is None:
            return PaneState.STARTING
        idle_at = self.idle_since(t)
        if idle_at is None:
            return PaneState.WORKING
        if not self._waits_for_input(idle_at):
            return PaneState.UNKNOWN
        seen = t if self._visible else self._last_viewed
        if self._turn_since is not None and seen < idle_at:
            return PaneState.DONE_UNSEEN
        return PaneState.IDLE

    def _waits_for_input(self, idle_at: float) -> bool:
        """Is the quiet period that began at `idle_at` known to be a wait at the
        prompt? Yes when the harness said so (a turn signal after its last
        output), when the screen is its recognised input prompt, or when the
        operator typed last or is drafting a line begun at that prompt."""
        output = self._last_output if self._last_output is not None else idle_at
        if self._shell_running is False:
            return True  # at the prompt OSC 133 marked
        if self._signal_at is not None and self._signal_at >= output:
            return True
        if self._at_prompt or self._drafting:
            return True
        return self._last_input is not None and self._last_input >= output

    def state_since(self, t: float) -> float:
        """When the state shown at `t` began. Idle and done-unseen are one quiet
        period: looking at a `◆` pane does not restart its idle clock."""
        self._settle(t)
        self._mark(t)
        return self._since

    def reason(self, t: float) -> str | None:
        """A short explanation for the state, where there is one."""
        state = self.state(t)
        if state is PaneState.NEEDS_YOU:
            return self._needs_you(t)
        if state is PaneState.DISCONNECTED:
            return self.unreachable
        code = self._exit_code
        if state is PaneState.FAILED and code is not None:
            return f"exit code {code}"
        if state is PaneState.STOPPED and code is not None:
            return f"killed by signal {killed_by(code)}"
        return None

    def poll(self, t: float) -> Transition | None:
        """The transition since the last poll, if the state changed."""
        state = self.state(t)
        if state is self._reported:
            return None
        transition = Transition(self._reported, state, self.reason(t), t)
        self._reported = state
        return transition

    def next_deadline(self, t: float) -> float | None:
        """The earliest time after `t` at which the state may change with no new
        event (arm one timer for it), or None if it cannot."""
        if self._exit_code is not None:
            return None
        deadlines: list[float] = []
        if self._needs_reason is not None and self._needs_clear_since is not None:
            deadlines.append(self._needs_clear_since + NEEDS_YOU_DEBOUNCE)
        if self._last_output is not None:
            if self._signal_at is not None:
                deadlines.append(max(self._signal_at, self._last_output) + SIGNAL_IDLE_DEBOUNCE)
            if self._prompt_since is not None:
                deadlines.append(max(self._prompt_since, self._last_output) + SIGNAL_IDLE_DEBOUNCE)
            activity = max(self._last_output, self._last_input or self._last_output)
            deadlines.append(activity + self.idle_quiet)
        future = [d for d in deadlines if d > t]
        return min(future) if future else None

    # --- time in state -------------------------------------------------------

    def _settle(self, t: float) -> None:
        """Walk the deadlines passed since the last event, so a state entered
        between events (idle after quiet, needs-you left after its debounce)
        starts at its deadline rather than at the next event."""
        t = self._seen(t)
        at = self._settled_to
        while at < t:
            deadline = self.next_deadline(at)
            if deadline is None or deadline > t:
                break
            self._enter(self.state(deadline), deadline)
            at = deadline
        self._settled_to = max(self._settled_to, t)

    def _mark(self, t: float) -> None:
        """After an event at `t`: a state it changed starts at `t`."""
        self._enter(self.state(t), t)

    def _enter(self, state: PaneState, t: float) -> None:
        if state is self._current:
            return
        quiet = (PaneState.IDLE, PaneState.DONE_UNSEEN)
        if not (state in quiet and self._current in quiet):
            self._since = t
        self._current = state
