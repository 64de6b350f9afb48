"""Who needs you: screen patterns for approval prompts and a per-pane state machine.

Two parts, both pure (no clocks, no I/O), so the dashboard, tests and a later
persistent runtime share them:

- `detect_needs_you(agent, lines)` looks at the bottom of a pane's visible
  screen for a permission/approval prompt or a question, using a versioned
  table of patterns per harness (`PATTERNS`, `PATTERNS_VERSION`). Each pattern
  needs *several* cues at once (the question *and* its numbered choices, or a
  footer only a picker draws), so a model merely writing "Do you want to
  proceed?" in its answer does not turn a row into ▲.
- `AttentionTracker` folds timestamped events (output, operator input, turn
  signal, screen, viewed, exit) into one of `PaneState`. Entering needs-you is
  immediate; leaving it waits until the prompt has been gone for
  `NEEDS_YOU_DEBOUNCE` so a repaint never flickers the row. `next_deadline()`
  says when the state could next change with no new event, so the UI can arm
  one timer instead of polling.

The prompt texts were taken from the vendors' own sources and docs: Claude
Code's permission dialog ("Do you want to proceed?" over "❯ 1. Yes"), its
AskUserQuestion picker ("Enter to select · ↑/↓ to navigate · Esc to cancel"),
Codex's approval overlay ("Would you like to run the following command?",
"› 1. Yes, proceed (y)", "Press enter to confirm or esc to cancel") and Gemini
CLI's tool confirmation ("Apply this change?", "Allow execution of: 'npm'?",
"● 1. Yes, allow once", "Waiting for user confirmation..."). The first-run
dialogs (folder trust, login, API key) were recorded from the real CLIs and
are kept as fixtures in tests/data/attention/real. Bump `PATTERNS_VERSION`
whenever the table changes meaning.

- `at_input_prompt(agent, lines, cursor)` is the positive counterpart: True
  only when the screen is that harness's ordinary, empty composer with no
  dialog and no running turn (`INPUT_PROMPTS`). Typed quit commands are sent
  only then; an unknown or ambiguous screen is False, never "at the prompt".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

PATTERNS_VERSION = 2
SCAN_LINES = 20
"""How many bottom (non-blank-trailing) screen lines `detect_needs_you` reads."""
NEEDS_YOU_DEBOUNCE = 0.5
"""Seconds a prompt must be gone before needs-you is left."""
SIGNAL_IDLE_DEBOUNCE = 0.5
"""Seconds of quiet after a turn signal (and the last output) before idle."""

NEEDS_PERMISSION = "needs permission"
NEEDS_APPROVAL = "needs approval"
NEEDS_ANSWER = "needs an answer"
NEEDS_LOGIN = "needs login"


@dataclass(frozen=True)
class ScreenPattern:
    """All of `cues` must match (each on some line) within the bottom `window`
    lines, and no `blockers` line may appear below the last line matching the
    first cue: a prompt is the last interactive thing on a screen, so the
    harness's own input box under it means the text above is only transcript.
    """

    name: str
    harnesses: tuple[str, ...]
    """Harness names this applies to; empty means every harness."""
    reason: str
    cues: tuple[re.Pattern[str], ...]
    window: int = SCAN_LINES
    blockers: tuple[re.Pattern[str], ...] = ()


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# A numbered choice, optionally behind a selection caret or radio dot.
_CARET = r"(?:[▌❯›>▶●○◉▸*•]\s*){0,2}"
_YES_CHOICE = _re(rf"^{_CARET}1[.)]\s+yes\b")
_NUMBERED_CHOICE = _re(rf"^{_CARET}[1-9][.)]\s+\S")
# The harnesses' own input boxes: seen below a "prompt", they mean it was answered.
_CLAUDE_COMPOSER = (_re(r"^[>❯](?:\s*$|\s+(?![1-9][.)]\s))"), _re(r"^\? for shortcuts|^⏵⏵"))
_CODEX_COMPOSER = (_re(r"^›(?:\s*$|\s+(?![1-9][.)]\s))"),)
_GEMINI_COMPOSER = (_re(r"^>\s+type your message"),)

PATTERNS: tuple[ScreenPattern, ...] = (
    # --- Claude Code -------------------------------------------------------
    ScreenPattern(
        name="claude-permission",
        harnesses=("claude",),
        reason=NEEDS_PERMISSION,
        cues=(
            _re(
                r"^do you want to (?:proceed|make this edit|create|delete|overwrite|allow|run|"
                r"fetch|use)\b|^allow this (?:command|tool)\b|^do you want to allow claude\b"
            ),
            _YES_CHOICE,
        ),
        blockers=_CLAUDE_COMPOSER,
    ),
    ScreenPattern(
        name="claude-plan-approval",
        harnesses=("claude",),
        reason=NEEDS_APPROVAL,
        cues=(_re(r"^would you like to proceed\?"), _YES_CHOICE),
        blockers=_CLAUDE_COMPOSER,
    ),
    ScreenPattern(
        name="claude-trust-folder",
        harnesses=("claude",),
        reason=NEEDS_PERMISSION,
        cues=(_re(r"^do you trust the files in this folder\?"), _re(r"yes, proceed")),
        blockers=_CLAUDE_COMPOSER,
    ),
    ScreenPattern(
        name="claude-question",
        harnesses=("claude",),
        reason=NEEDS_ANSWER,
        cues=(_re(r"^enter to select\b.*(?:↑|navigate)"), _NUMBERED_CHOICE),
        blockers=_CLAUDE_COMPOSER,
    ),
    # --- Codex -------------------------------------------------------------
    ScreenPattern(
        name="codex-approval",
        harnesses=("codex",),
        reason=NEEDS_PERMISSION,
        cues=(
            _re(
                r"^would you like to (?:run the following command|make the following edits|"
                r"grant these permissions)\?|^do you want to approve network access\b|"
                r"needs your approval\.$|^allow command\?"
            ),
            _re(rf"^{_CARET}1[.)]\s+(?:yes|approve)\b|press enter to confirm or esc to cancel"),
        ),
        blockers=_CODEX_COMPOSER,
    ),
    ScreenPattern(
        name="codex-trust-directory",
        harnesses=("codex",),
        reason=NEEDS_PERMISSION,
        cues=(_re(r"^do you trust the contents of this directory\?"), _YES_CHOICE),
        blockers=_CODEX_COMPOSER,
    ),
    ScreenPattern(
        name="codex-question",
        harnesses=("codex",),
        reason=NEEDS_ANSWER,
        cues=(_NUMBERED_CHOICE, _re(r"^press enter to (?:confirm|submit)\b")),
        window=12,
        blockers=_CODEX_COMPOSER,
    ),
    # --- Gemini CLI --------------------------------------------------------
    ScreenPattern(
        name="gemini-confirmation",
        harnesses=("gemini", "qwen"),
        reason=NEEDS_PERMISSION,
        cues=(
            _re(
                r"^apply this change\?|^allow execution\b|^do you want to proceed\?|"
                r"^allow execution of mcp tool\b"
            ),
            _re(rf"^{_CARET}1[.)]\s+yes, allow\b|^{_CARET}1[.)]\s+yes\b"),
        ),
        blockers=_GEMINI_COMPOSER,
    ),
    ScreenPattern(
        name="gemini-waiting",
        harnesses=("gemini", "qwen"),
        reason=NEEDS_PERMISSION,
        cues=(_re(r"waiting for user confirmation"),),
        window=6,
        blockers=_GEMINI_COMPOSER,
    ),
    # --- first-run dialogs, recorded from the real CLIs (tests/data/attention/real)
    ScreenPattern(
        name="claude-trust-workspace",
        harnesses=("claude",),
        reason=NEEDS_PERMISSION,
        cues=(_re(rf"^{_CARET}1[.)]\s+yes, i trust this folder\b"), _re(r"^enter to confirm\b")),
        blockers=_CLAUDE_COMPOSER,
    ),
    ScreenPattern(
        name="claude-login",
        harnesses=("claude",),
        reason=NEEDS_LOGIN,
        cues=(_re(r"^select login method:?$"), _NUMBERED_CHOICE),
        blockers=_CLAUDE_COMPOSER,
    ),
    ScreenPattern(
        name="codex-trust-folder",
        harnesses=("codex",),
        reason=NEEDS_PERMISSION,
        cues=(_re(r"^trust this folder\?"), _re(rf"^{_CARET}1[.)]\s+trust and continue\b")),
        blockers=_CODEX_COMPOSER,
    ),
    # Codex's sign-in pickers (no login yet): the heading, a sign-in choice and
    # the picker's own footer, all three, so a transcript quoting one is not ▲.
    ScreenPattern(
        name="codex-login",
        harnesses=("codex",),
        reason=NEEDS_LOGIN,
        cues=(
            _re(
                r"^choose how you want to use codex\.?$|^sign in another way$|"
                r"^choose how you authenticate with aws\.?$"
            ),
            _re(
                rf"^{_CARET}[1-9][.)]\s+(?:sign in with\b|use an openai api key$|"
                r"use amazon bedrock$|aws profile$|aws access keys$|bedrock api key$)"
            ),
            _re(r"^press enter to continue$"),
        ),
        blockers=_CODEX_COMPOSER,
    ),
    ScreenPattern(
        name="codex-api-key",
        harnesses=("codex",),
        reason=NEEDS_LOGIN,
        cues=(_re(r"^paste or type your api key below\.?$"), _re(r"^press enter to save$")),
        blockers=_CODEX_COMPOSER,
    ),
    ScreenPattern(
        name="codex-browser-login",
        harnesses=("codex",),
        reason=NEEDS_LOGIN,
        cues=(_re(r"^finish signing in via your browser$"), _re(r"^press esc to cancel$")),
        blockers=_CODEX_COMPOSER,
    ),
    ScreenPattern(
        name="gemini-trust-folder",
        harnesses=("gemini", "qwen"),
        reason=NEEDS_PERMISSION,
        cues=(
            _re(r"^do you trust the files in this folder\?"),
            _re(rf"^{_CARET}1[.)]\s+trust folder\b"),
        ),
        blockers=_GEMINI_COMPOSER,
    ),
    ScreenPattern(
        name="gemini-auth",
        harnesses=("gemini", "qwen"),
        reason=NEEDS_LOGIN,
        cues=(_re(r"^how would you like to authenticate\b"), _NUMBERED_CHOICE),
        blockers=_GEMINI_COMPOSER,
    ),
    ScreenPattern(
        name="gemini-api-key",
        harnesses=("gemini", "qwen"),
        reason=NEEDS_LOGIN,
        cues=(_re(r"^enter \S+ api key$"), _re(r"^\(press enter to submit, esc to cancel\b")),
        blockers=_GEMINI_COMPOSER,
    ),
    ScreenPattern(
        name="qwen-auth",
        harnesses=("qwen",),
        reason=NEEDS_LOGIN,
        cues=(_re(r"^select authentication method$"), _re(r"^›\s+\S")),
        blockers=_GEMINI_COMPOSER,
    ),
    ScreenPattern(
        name="copilot-trust-folder",
        harnesses=("copilot",),
        reason=NEEDS_PERMISSION,
        cues=(_re(r"^do you trust the files in this folder\?"), _YES_CHOICE),
    ),
    ScreenPattern(
        name="copilot-picker",
        harnesses=("copilot",),
        reason=NEEDS_ANSWER,
        cues=(_re(r"enter to select\b.*esc to cancel"), _NUMBERED_CHOICE),
    ),
    ScreenPattern(
        name="pi-selector",
        harnesses=("pi",),
        reason=NEEDS_ANSWER,
        cues=(_re(r"navigate\s+enter select\b"), _re(r"^→\s+\S")),
    ),
    ScreenPattern(
        name="opencode-connect",
        harnesses=("opencode",),
        reason=NEEDS_LOGIN,
        cues=(_re(r"^connect a provider\s+esc$"),),
        window=80,  # a centred overlay over an otherwise empty screen
    ),
    ScreenPattern(
        name="droid-login",
        harnesses=("droid",),
        reason=NEEDS_LOGIN,
        cues=(_re(r"^please log ?in with your factory account\b"), _re(r"^>\s+login$")),
    ),
    # --- any program -------------------------------------------------------
    ScreenPattern(
        name="generic-yes-no",
        harnesses=(),
        reason=NEEDS_ANSWER,
        cues=(
            _re(
                r"(?:[\[(]\s*y(?:es)?\s*/\s*n(?:o)?\s*[\])]|\(yes/no(?:/\[fingerprint\])?\))"
                r"\s*[:?]?\s*$"
            ),
        ),
        window=1,
    ),
    ScreenPattern(
        name="generic-password",
        harnesses=(),
        reason=NEEDS_ANSWER,
        cues=(
            _re(r"(?:^\[sudo\] password for \S+|^(?:enter )?pass(?:word|phrase)[^:]{0,40}):\s*$"),
        ),
        window=1,
    ),
)

_BOX_EDGE = "│┃|║"


def _normalise(line: str) -> str:
    """A screen row without box borders and surrounding blanks."""
    text = line.strip()
    text = text.lstrip(_BOX_EDGE).rstrip(_BOX_EDGE)
    return text.strip()


def _bottom(lines: Sequence[str], count: int) -> list[str]:
    end = len(lines)
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    rows = [_normalise(line) for line in lines[max(0, end - count) : end]]
    return rows


def patterns_for(agent: str) -> tuple[ScreenPattern, ...]:
    name = agent.lower()
    return tuple(p for p in PATTERNS if not p.harnesses or name in p.harnesses)


def match_needs_you(agent: str, lines: Sequence[str]) -> ScreenPattern | None:
    """The first pattern that matches the bottom of the screen, if any."""
    for pattern in patterns_for(agent):
        window = _bottom(lines, pattern.window)
        if not window:
            continue
        if not all(any(cue.search(row) for row in window) for cue in pattern.cues):
            continue
        question = max(i for i, row in enumerate(window) if pattern.cues[0].search(row))
        below = window[question + 1 :]
        if any(blocker.search(row) for blocker in pattern.blockers for row in below):
            continue
        return pattern
    return None


def detect_needs_you(agent: str, lines: Sequence[str]) -> str | None:
    """A short reason ("needs permission", "needs an answer", …) if the pane's
    visible bottom shows a prompt waiting for the operator, else None."""
    pattern = match_needs_you(agent, lines)
    return pattern.reason if pattern else None


# --- the ordinary input prompt ------------------------------------------------


@dataclass(frozen=True)
class InputPrompt:
    """How one harness draws its ordinary, empty composer (recorded from the
    real CLIs: tests/data/attention/real).

    The lowest row matching `composer` within the bottom `tail` rows is the
    composer; `above`/`below`, when set, must match the rows right next to it
    (its frame); `footer`, when set, must match one of the `footer_within` rows
    below it (a hint the harness shows only while the composer is empty, or its
    status bar); no `busy` row may be in the bottom `SCAN_LINES` (a turn is
    running, so typed text would be queued as a message or interrupt it). With
    `at_cursor` the cursor must be on the composer row (line-oriented programs
    always leave it there).
    """

    harness: str
    composer: re.Pattern[str]
    above: re.Pattern[str] | None = None
    below: re.Pattern[str] | None = None
    footer: re.Pattern[str] | None = None
    footer_within: int = 6
    tail: int = 6
    busy: tuple[re.Pattern[str], ...] = ()
    at_cursor: bool = False


_RULE = _re(r"^[─━]{10,}$")
_INTERRUPTIBLE = _re(r"\besc(?:ape)? to (?:interrupt|cancel)\b|\besc interrupt\b")
_SPINNING = _re(r"^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏◐◓◑◒]\s+\S")
_GEMINI_PLACEHOLDER = _re(r"^>\s+type your message or @path/to/file$")

INPUT_PROMPTS: dict[str, InputPrompt] = {
    p.harness: p
    for p in (
        # An empty "❯" (or its 'Try "…"' hint) between two rules.
        InputPrompt(
            "claude",
            _re(r'^[❯>](?:\s*|\s+try "[^"]*")$'),
            above=_RULE,
            below=_RULE,
            busy=(_INTERRUPTIBLE,),
        ),
        # Codex shows "? for shortcuts" only while the composer is empty, so
        # whatever follows "›" then is its (rotating) placeholder.
        InputPrompt(
            "codex",
            _re(r"^›(?:\s.*)?$"),
            footer=_re(r"\? for shortcuts"),
            busy=(_INTERRUPTIBLE, _re(r"^[•◦]\s+(?:working|reconnecting)\b")),
        ),
        InputPrompt("gemini", _GEMINI_PLACEHOLDER, busy=(_INTERRUPTIBLE, _SPINNING)),
        InputPrompt(
            "qwen", _GEMINI_PLACEHOLDER, above=_RULE, below=_RULE, busy=(_INTERRUPTIBLE, _SPINNING)
        ),
        InputPrompt(
            "opencode",
            _re(r'^ask anything(?:…|\.\.\.)(?:\s+"[^"]*")?$'),
            footer=_re(r"\bctrl\+p commands$"),
            footer_within=4,
            tail=80,  # its first screen centres the composer
            busy=(_INTERRUPTIBLE, _SPINNING),
        ),
        InputPrompt(
            "copilot",
            _re(r"^❯\s*$"),
            above=_RULE,
            below=_RULE,
            footer=_re(r"/ commands\b"),
            busy=(_INTERRUPTIBLE, _SPINNING),
        ),
        # An empty editor row between two rules; pi puts its selectors there too.
        InputPrompt(
            "pi", _re(r"^$"), above=_RULE, below=_RULE, busy=(_SPINNING, _re(r"^working\.\.\."))
        ),
        InputPrompt(
            "grok",
            _re(r"^❯ ask me anything\.\.\.$"),
            footer=_re(r"\bauto-edit: (?:on|off)\b"),
            busy=(_INTERRUPTIBLE, _SPINNING),
        ),
        # The demo agent's prompt is ">" after at most one short word ("demo>"),
        # the cursor right after it; a spinner, a question or a full-screen view
        # is never that, nor is a prompt with a draft after it.
        InputPrompt("demo", _re(r"^(?:[\w.-]{1,20}\s?)?[>❯›]$"), tail=1, at_cursor=True),
        # A shell prompt ends in one of these; anything typed after it is a draft.
        InputPrompt("shell", _re(r"[$#%>]$"), tail=1, at_cursor=True),
    )
}
"""Harnesses whose composer is known; any other (droid: never reached
offline) is never at its input prompt, so its panes get the signal path."""


def _composer_row(prompt: InputPrompt, rows: list[str], end: int) -> int | None:
    for i in range(end - 1, max(-1, end - 1 - prompt.tail), -1):
        if not prompt.composer.search(rows[i]):
            continue
        if prompt.above and not (i > 0 and prompt.above.search(rows[i - 1])):
            continue
        if prompt.below and not (i + 1 < len(rows) and prompt.below.search(rows[i + 1])):
            continue
        return i
    return None


def at_input_prompt(
    agent: str, lines: Sequence[str], cursor: tuple[int, int] | None = None
) -> bool:
    """True only when the screen is positively `agent`'s ordinary, empty input
    prompt with no dialog over it and no turn running, so text typed now (a quit
    command) lands in the composer. Anything else, an unknown harness or an
    ambiguous screen included, is False: the caller then must not type.

    `lines` are the visible screen rows, top first; `cursor` is (x, y) in them.
    """
    prompt = INPUT_PROMPTS.get(agent.lower())
    if prompt is None or detect_needs_you(agent, lines):
        return False
    rows = [_normalise(line) for line in lines]
    end = len(rows)
    while end > 0 and not rows[end - 1]:
        end -= 1
    if end == 0:
        return False
    index = _composer_row(prompt, rows, end)
    if index is None:
        return False
    if prompt.at_cursor and cursor is not None and cursor[1] != index:
        return False
    below = rows[index + 1 : min(end, index + 1 + prompt.footer_within)]
    if prompt.footer and not any(prompt.footer.search(row) for row in below):
        return False
    window = rows[max(0, end - SCAN_LINES) : end]
    return not any(b.search(row) for b in prompt.busy for row in window)


# --- per-pane state ------------------------------------------------------------


class PaneState(StrEnum):
    STARTING = "starting"
    WORKING = "working"
    IDLE = "idle"
    NEEDS_YOU = "needs_you"
    DONE_UNSEEN = "done_unseen"
    EXITED = "exited"
    """Ended cleanly (exit code 0)."""
    FAILED = "failed"
    """Ended with a non-zero exit code (or could not start)."""
    STOPPED = "stopped"
    """Ended by a signal (a stop, a kill, a hang-up)."""
    UNKNOWN = "unknown"
    """Quiet, but nothing establishes that it waits at its prompt: no turn
    signal, the screen is not its recognised input prompt, and the operator
    did not type last. Never shown as idle (it may be a dialog we do not know,
    or quiet work)."""


ENDED_STATES = frozenset({PaneState.EXITED, PaneState.FAILED, PaneState.STOPPED})

SIGNAL_EXIT_BASE = 128
"""PTY children killed by signal N report 128 + N, as a shell would show it."""
MAX_SIGNAL = 64


def killed_by(code: int) -> int | None:
    """The signal number an exit code stands for (-N or 128+N), else None."""
    if code < 0:
        return -code
    if SIGNAL_EXIT_BASE < code <= SIGNAL_EXIT_BASE + MAX_SIGNAL:
        return code - SIGNAL_EXIT_BASE
    return None


def ended_state(code: int) -> PaneState:
    """Clean exit, failure or stop, from an exit code."""
    if code == 0:
        return PaneState.EXITED
    return PaneState.STOPPED if killed_by(code) is not None else PaneState.FAILED


@dataclass(frozen=True)
class Transition:
    old: PaneState
    new: PaneState
    reason: str | None
    at: float


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

    def screen(self, lines: Sequence[str], t: float, cursor: tuple[int, int] | None = None) -> None:
        """The visible screen changed; `lines` are its rows, `cursor` (x, y)."""
        self._settle(t)
        at_prompt = at_input_prompt(self.agent, lines, cursor)
        if at_prompt and not self._at_prompt:
            self._prompt_since = t
        elif not at_prompt:
            self._prompt_since = None
        self._at_prompt = at_prompt
        reason = detect_needs_you(self.agent, lines)
        if reason is not None:
            self._needs_reason = reason
            self._needs_clear_since = None
        elif self._needs_reason is not None and self._needs_clear_since is None:
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
    def drafting(self) -> bool:
        """The operator is typing a line begun at the recognised prompt."""
        return self._drafting

    @property
    def visible(self) -> bool:
        return self._visible

    def exited(self, code: int, t: float) -> None:
        self._settle(t)
        self._exit_code = code
        self._mark(t)

    # --- queries -------------------------------------------------------------

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
        if self._last_output is None:
            return None
        candidates: list[float] = []
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
        if self._exit_code is not None:
            return ended_state(self._exit_code)
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


REPAINT_WINDOW = 1.5
"""Seconds after we resize a pane during which its output may be a repaint."""
REPAINT_BYTES_PER_CELL = 24
"""A full redraw with colours costs at most about this much per cell."""
REPAINT_SLACK = 4096


class RepaintFilter:
    """Tells a child's redraw after *our* resize (its SIGWINCH) from work.

    Output counts as a repaint only while all of these hold: it comes within
    `REPAINT_WINDOW` of the last resize we sent, the pane had already drawn
    something before it, no operator input came after the resize, it does not
    scroll lines into the history (a redraw rewrites the screen in place), and
    it stays within about one full screen of bytes. The first output that breaks
    any of them is work, and so is everything after it until the next resize.
    """

    def __init__(self) -> None:
        self._until = float("-inf")
        self._budget = 0

    def resized(self, t: float, columns: int, rows: int) -> None:
        self._until = t + REPAINT_WINDOW
        self._budget = columns * rows * REPAINT_BYTES_PER_CELL + REPAINT_SLACK

    def input(self, t: float) -> None:
        """Operator input: what follows may be the child's answer to it."""
        self._until = float("-inf")

    def is_repaint(self, t: float, nbytes: int, scrolled: bool) -> bool:
        if t > self._until or scrolled or nbytes > self._budget:
            self._until = float("-inf")
            return False
        self._budget -= nbytes
        return True
