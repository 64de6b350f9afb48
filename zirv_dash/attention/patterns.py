"""Which screens mean "this pane needs you": recorded prompt patterns per harness.

`detect_needs_you(agent, lines)` looks at the bottom of a pane's visible screen
for a permission/approval prompt or a question, using a versioned table of
patterns per harness (`PATTERNS`, `PATTERNS_VERSION`). Each pattern needs
*several* cues at once (the question *and* its numbered choices, or a footer
only a picker draws), so a model merely writing "Do you want to proceed?" in
its answer does not turn a row into ▲. Pure: no clocks, no I/O.

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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

PATTERNS_VERSION = 3
SCAN_LINES = 20
"""How many bottom (non-blank-trailing) screen lines `detect_needs_you` reads."""

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
    cues: tuple[Cue, ...]
    window: int = SCAN_LINES
    blockers: tuple[Cue, ...] = ()


class Cue:
    """A case-insensitive screen-row pattern, compiled on its first search: the
    tables here and in `input_prompts` hold ~80 of them, and compiling them all
    at import cost the dashboard's first frame ~15 ms before any pane had drawn
    a row. `tests/test_attention_cues.py` compiles every one."""

    __slots__ = ("pattern", "_compiled")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, re.IGNORECASE)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        return (self._compiled or self.compiled()).search(text)

    def __repr__(self) -> str:
        return f"cue({self.pattern!r})"


def cue(pattern: str) -> Cue:
    """A case-insensitive screen-row pattern."""
    return Cue(pattern)


# A numbered choice, optionally behind a selection caret or radio dot.
_CARET = r"(?:[▌❯›>▶●○◉▸*•]\s*){0,2}"
_YES_CHOICE = cue(rf"^{_CARET}1[.)]\s+yes\b")
_NUMBERED_CHOICE = cue(rf"^{_CARET}[1-9][.)]\s+\S")
# The harnesses' own input boxes: seen below a "prompt", they mean it was answered.
_CLAUDE_COMPOSER = (cue(r"^[>❯](?:\s*$|\s+(?![1-9][.)]\s))"), cue(r"^\? for shortcuts|^⏵⏵"))
_CODEX_COMPOSER = (cue(r"^›(?:\s*$|\s+(?![1-9][.)]\s))"),)
_GEMINI_COMPOSER = (cue(r"^>\s+type your message"),)

PATTERNS: tuple[ScreenPattern, ...] = (
    # --- Claude Code -------------------------------------------------------
    ScreenPattern(
        name="claude-permission",
        harnesses=("claude",),
        reason=NEEDS_PERMISSION,
        cues=(
            cue(
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
        cues=(cue(r"^would you like to proceed\?"), _YES_CHOICE),
        blockers=_CLAUDE_COMPOSER,
    ),
    ScreenPattern(
        name="claude-trust-folder",
        harnesses=("claude",),
        reason=NEEDS_PERMISSION,
        cues=(cue(r"^do you trust the files in this folder\?"), cue(r"yes, proceed")),
        blockers=_CLAUDE_COMPOSER,
    ),
    ScreenPattern(
        name="claude-question",
        harnesses=("claude",),
        reason=NEEDS_ANSWER,
        cues=(cue(r"^enter to select\b.*(?:↑|navigate)"), _NUMBERED_CHOICE),
        blockers=_CLAUDE_COMPOSER,
    ),
    # --- Codex -------------------------------------------------------------
    ScreenPattern(
        name="codex-approval",
        harnesses=("codex",),
        reason=NEEDS_PERMISSION,
        cues=(
            cue(
                r"^would you like to (?:run the following command|make the following edits|"
                r"grant these permissions)\?|^do you want to approve network access\b|"
                r"needs your approval\.$|^allow command\?"
            ),
            cue(rf"^{_CARET}1[.)]\s+(?:yes|approve)\b|press enter to confirm or esc to cancel"),
        ),
        blockers=_CODEX_COMPOSER,
    ),
    ScreenPattern(
        name="codex-trust-directory",
        harnesses=("codex",),
        reason=NEEDS_PERMISSION,
        cues=(cue(r"^do you trust the contents of this directory\?"), _YES_CHOICE),
        blockers=_CODEX_COMPOSER,
    ),
    ScreenPattern(
        name="codex-question",
        harnesses=("codex",),
        reason=NEEDS_ANSWER,
        cues=(_NUMBERED_CHOICE, cue(r"^press enter to (?:confirm|submit)\b")),
        window=12,
        blockers=_CODEX_COMPOSER,
    ),
    # --- Gemini CLI --------------------------------------------------------
    ScreenPattern(
        name="gemini-confirmation",
        harnesses=("gemini", "qwen"),
        reason=NEEDS_PERMISSION,
        cues=(
            cue(
                r"^apply this change\?|^allow execution\b|^do you want to proceed\?|"
                r"^allow execution of mcp tool\b"
            ),
            cue(rf"^{_CARET}1[.)]\s+yes, allow\b|^{_CARET}1[.)]\s+yes\b"),
        ),
        blockers=_GEMINI_COMPOSER,
    ),
    ScreenPattern(
        name="gemini-waiting",
        harnesses=("gemini", "qwen"),
        reason=NEEDS_PERMISSION,
        cues=(cue(r"waiting for user confirmation"),),
        window=6,
        blockers=_GEMINI_COMPOSER,
    ),
    # --- first-run dialogs, recorded from the real CLIs (tests/data/attention/real)
    ScreenPattern(
        name="claude-trust-workspace",
        harnesses=("claude",),
        reason=NEEDS_PERMISSION,
        cues=(cue(rf"^{_CARET}1[.)]\s+yes, i trust this folder\b"), cue(r"^enter to confirm\b")),
        blockers=_CLAUDE_COMPOSER,
    ),
    ScreenPattern(
        name="claude-login",
        harnesses=("claude",),
        reason=NEEDS_LOGIN,
        cues=(cue(r"^select login method:?$"), _NUMBERED_CHOICE),
        blockers=_CLAUDE_COMPOSER,
    ),
    ScreenPattern(
        name="codex-trust-folder",
        harnesses=("codex",),
        reason=NEEDS_PERMISSION,
        cues=(cue(r"^trust this folder\?"), cue(rf"^{_CARET}1[.)]\s+trust and continue\b")),
        blockers=_CODEX_COMPOSER,
    ),
    # Codex's sign-in pickers (no login yet): the heading, a sign-in choice and
    # the picker's own footer, all three, so a transcript quoting one is not ▲.
    ScreenPattern(
        name="codex-login",
        harnesses=("codex",),
        reason=NEEDS_LOGIN,
        cues=(
            cue(
                r"^choose how you want to use codex\.?$|^sign in another way$|"
                r"^choose how you authenticate with aws\.?$"
            ),
            cue(
                rf"^{_CARET}[1-9][.)]\s+(?:sign in with\b|use an openai api key$|"
                r"use amazon bedrock$|aws profile$|aws access keys$|bedrock api key$)"
            ),
            cue(r"^press enter to continue$"),
        ),
        blockers=_CODEX_COMPOSER,
    ),
    ScreenPattern(
        name="codex-api-key",
        harnesses=("codex",),
        reason=NEEDS_LOGIN,
        cues=(cue(r"^paste or type your api key below\.?$"), cue(r"^press enter to save$")),
        blockers=_CODEX_COMPOSER,
    ),
    ScreenPattern(
        name="codex-browser-login",
        harnesses=("codex",),
        reason=NEEDS_LOGIN,
        cues=(cue(r"^finish signing in via your browser$"), cue(r"^press esc to cancel$")),
        blockers=_CODEX_COMPOSER,
    ),
    ScreenPattern(
        name="gemini-trust-folder",
        harnesses=("gemini", "qwen"),
        reason=NEEDS_PERMISSION,
        cues=(
            cue(r"^do you trust the files in this folder\?"),
            cue(rf"^{_CARET}1[.)]\s+trust folder\b"),
        ),
        blockers=_GEMINI_COMPOSER,
    ),
    ScreenPattern(
        name="gemini-auth",
        harnesses=("gemini", "qwen"),
        reason=NEEDS_LOGIN,
        cues=(cue(r"^how would you like to authenticate\b"), _NUMBERED_CHOICE),
        blockers=_GEMINI_COMPOSER,
    ),
    ScreenPattern(
        name="gemini-api-key",
        harnesses=("gemini", "qwen"),
        reason=NEEDS_LOGIN,
        cues=(cue(r"^enter \S+ api key$"), cue(r"^\(press enter to submit, esc to cancel\b")),
        blockers=_GEMINI_COMPOSER,
    ),
    ScreenPattern(
        name="qwen-auth",
        harnesses=("qwen",),
        reason=NEEDS_LOGIN,
        cues=(cue(r"^select authentication method$"), cue(r"^›\s+\S")),
        blockers=_GEMINI_COMPOSER,
    ),
    # qwen's auth dialog past its first menu: a sub-menu or a provider-setup
    # step, titled as its AuthDialog titles them (VIEW_TITLES, "<flow> · Step
    # n/m · <step>" in @qwen-code/qwen-code 0.15.10's cli.js), with that
    # dialog's "…, Esc to go back" hint under it.
    ScreenPattern(
        name="qwen-auth-setup",
        harnesses=("qwen",),
        reason=NEEDS_LOGIN,
        cues=(
            cue(
                r"^(?:alibaba modelstudio · access method|third-party providers · provider|"
                r"select oauth provider|provider setup|.+ · step \d+/\d+ · .+)$"
            ),
            cue(
                r"^(?:enter to (?:select, ↑↓ to navigate|submit)|press enter to [^,]+),"
                r" esc to go back$"
            ),
        ),
        blockers=_GEMINI_COMPOSER,
    ),
    ScreenPattern(
        name="copilot-trust-folder",
        harnesses=("copilot",),
        reason=NEEDS_PERMISSION,
        cues=(cue(r"^do you trust the files in this folder\?"), _YES_CHOICE),
    ),
    ScreenPattern(
        name="copilot-picker",
        harnesses=("copilot",),
        reason=NEEDS_ANSWER,
        cues=(cue(r"enter to select\b.*esc to cancel"), _NUMBERED_CHOICE),
    ),
    ScreenPattern(
        name="pi-selector",
        harnesses=("pi",),
        reason=NEEDS_ANSWER,
        cues=(cue(r"navigate\s+enter select\b"), cue(r"^→\s+\S")),
    ),
    ScreenPattern(
        name="opencode-connect",
        harnesses=("opencode",),
        reason=NEEDS_LOGIN,
        cues=(cue(r"^connect a provider\s+esc$"),),
        window=80,  # a centred overlay over an otherwise empty screen
    ),
    ScreenPattern(
        name="droid-login",
        harnesses=("droid",),
        reason=NEEDS_LOGIN,
        cues=(cue(r"^please log ?in with your factory account\b"), cue(r"^>\s+login$")),
    ),
    # --- any program -------------------------------------------------------
    ScreenPattern(
        name="generic-yes-no",
        harnesses=(),
        reason=NEEDS_ANSWER,
        cues=(
            cue(
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
            cue(r"(?:^\[sudo\] password for \S+|^(?:enter )?pass(?:word|phrase)[^:]{0,40}):\s*$"),
        ),
        window=1,
    ),
)

_BOX_EDGE = "│┃|║"


def normalise_row(line: str) -> str:
    """A screen row without box borders and surrounding blanks."""
    text = line.strip()
    text = text.lstrip(_BOX_EDGE).rstrip(_BOX_EDGE)
    return text.strip()


def _bottom(lines: Sequence[str], count: int) -> list[str]:
    end = len(lines)
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    rows = [normalise_row(line) for line in lines[max(0, end - count) : end]]
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
        if not all(any(c.search(row) for row in window) for c in pattern.cues):
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
