"""Is a pane at its harness's ordinary, empty input prompt?

`at_input_prompt(agent, lines, cursor)` is the positive counterpart of
`patterns.detect_needs_you`: True only when the screen is that
harness's ordinary, empty composer with no dialog and no running turn
(`INPUT_PROMPTS`). Typed quit commands are sent only then; an unknown or
ambiguous screen is False, never "at the prompt". Pure: no clocks, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zirv_dash.attention.patterns import SCAN_LINES, Cue, cue, detect_needs_you, normalise_row


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
    composer: Cue
    above: Cue | None = None
    below: Cue | None = None
    footer: Cue | None = None
    footer_within: int = 6
    tail: int = 6
    busy: tuple[Cue, ...] = ()
    at_cursor: bool = False
    variants: tuple[InputPrompt, ...] = ()
    """Other ways the same harness draws its empty composer (any one is it)."""


_RULE = cue(r"^[─━]{10,}$")
_INTERRUPTIBLE = cue(r"\besc(?:ape)? to (?:interrupt|cancel)\b|\besc interrupt\b")
_SPINNING = cue(r"^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏◐◓◑◒]\s+\S")
_GEMINI_PLACEHOLDER = cue(r"^>\s+type your message or @path/to/file$")
_COPILOT_FOOTER = cue(r"/ commands\b")
_COPILOT_BUSY = (_INTERRUPTIBLE, _SPINNING)

INPUT_PROMPTS: dict[str, InputPrompt] = {
    p.harness: p
    for p in (
        # An empty "❯" (or its 'Try "…"' hint) between two rules.
        InputPrompt(
            "claude",
            cue(r'^[❯>](?:\s*|\s+try "[^"]*")$'),
            above=_RULE,
            below=_RULE,
            busy=(_INTERRUPTIBLE,),
        ),
        # Codex shows "? for shortcuts" only while the composer is empty, so
        # whatever follows "›" then is its (rotating) placeholder.
        InputPrompt(
            "codex",
            cue(r"^›(?:\s.*)?$"),
            footer=cue(r"\? for shortcuts"),
            busy=(_INTERRUPTIBLE, cue(r"^[•◦]\s+(?:working|reconnecting)\b")),
        ),
        InputPrompt("gemini", _GEMINI_PLACEHOLDER, busy=(_INTERRUPTIBLE, _SPINNING)),
        InputPrompt(
            "qwen", _GEMINI_PLACEHOLDER, above=_RULE, below=_RULE, busy=(_INTERRUPTIBLE, _SPINNING)
        ),
        InputPrompt(
            "opencode",
            cue(r'^ask anything(?:…|\.\.\.)(?:\s+"[^"]*")?$'),
            footer=cue(r"\bctrl\+p commands$"),
            footer_within=4,
            tail=80,  # its first screen centres the composer
            busy=(_INTERRUPTIBLE, _SPINNING),
        ),
        InputPrompt(
            "copilot",
            cue(r"^❯\s*$"),
            above=_RULE,
            below=_RULE,
            footer=_COPILOT_FOOTER,
            busy=_COPILOT_BUSY,
            # When the terminal told it its colours (OSC 10/11), copilot draws
            # the composer as a filled box instead: "┃" (a box edge, so the row
            # reads empty) between half-block bars, no "❯".
            variants=(
                InputPrompt(
                    "copilot",
                    cue(r"^$"),
                    above=cue(r"^╻▄{10,}$"),
                    below=cue(r"^╹▀{10,}$"),
                    footer=_COPILOT_FOOTER,
                    busy=_COPILOT_BUSY,
                ),
            ),
        ),
        # An empty editor row between two rules; pi puts its selectors there too.
        InputPrompt(
            "pi", cue(r"^$"), above=_RULE, below=_RULE, busy=(_SPINNING, cue(r"^working\.\.\."))
        ),
        InputPrompt(
            "grok",
            cue(r"^❯ ask me anything\.\.\.$"),
            footer=cue(r"\bauto-edit: (?:on|off)\b"),
            busy=(_INTERRUPTIBLE, _SPINNING),
        ),
        # The demo agent's prompt is ">" after at most one short word ("demo>"),
        # the cursor right after it; a spinner, a question or a full-screen view
        # is never that, nor is a prompt with a draft after it.
        InputPrompt("demo", cue(r"^(?:[\w.-]{1,20}\s?)?[>❯›]$"), tail=1, at_cursor=True),
        # A shell prompt ends in one of these; anything typed after it is a draft.
        InputPrompt("shell", cue(r"[$#%>]$"), tail=1, at_cursor=True),
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
    rows = [normalise_row(line) for line in lines]
    end = len(rows)
    while end > 0 and not rows[end - 1]:
        end -= 1
    if end == 0:
        return False
    return any(_drawn(p, rows, end, cursor) for p in (prompt, *prompt.variants))


def _drawn(prompt: InputPrompt, rows: list[str], end: int, cursor: tuple[int, int] | None) -> bool:
    """Do the normalised `rows` (the last non-blank one at `end - 1`) show this
    drawing of the empty composer, with no turn running?"""
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
