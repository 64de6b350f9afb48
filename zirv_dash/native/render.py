"""Transcript rendering rules (Claude Code style), as plain spans.

A line is a tuple of `(text, tone)` spans; the widget maps tones to colours,
and `render_plain` joins the text for deterministic tests. Pure: the same
transcript and width always give the same lines.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from zirv_dash.native.transcript import Item, Outcome, Transcript
from zirv_dash.visible import visible

Span = tuple[str, str]
Line = tuple[Span, ...]

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧"
SPINNER_FRAME_SECS = 0.12
VERBS = ("Thinking", "Working", "Puzzling", "Synthesizing", "Composing", "Reticulating")
VERB_SECS = 2.5
STATES = {
    "generating": ("●", "accent"),
    "executing": ("⟳", "warn"),
    "waiting": ("…", "muted"),
    "idle": ("…", "muted"),
    "blocked": ("▲", "err"),
    "cancelled": ("⊘", "muted"),
    "failed": ("✗", "err"),
    "unread": ("◆", "warn"),
    "completed": ("✓", "ok"),
}


def cells(text: str) -> int:
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def wrap(text: str, width: int) -> list[str]:
    """Greedy by word, unicode-width aware; an overlong word is hard-split
    between codepoints."""
    width = max(4, width)
    out: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = word if not line else f"{line} {word}"
        if cells(candidate) <= width:
            line = candidate
            continue
        if line:
            out.append(line)
        while cells(word) > width:
            cut = 0
            while cut < len(word) and cells(word[: cut + 1]) <= width:
                cut += 1
            out.append(word[:cut])
            word = word[cut:]
        line = word
    out.append(line)
    return out


_INLINE = re.compile(r"(`[^`]+`|\*\*[^*]+\*\*)")


def inline(text: str, tone: str = "") -> list[Span]:
    spans: list[Span] = []
    for part in _INLINE.split(text):
        if not part:
            continue
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            spans.append((part[1:-1], "accent"))
        elif part.startswith("**") and part.endswith("**") and len(part) > 3:
            spans.append((part[2:-2], "emph"))
        else:
            spans.append((part, tone))
    return spans


_LIST = re.compile(r"^(\s*)([-*]|\d+\.)\s+")


def markdown_lines(text: str, width: int, tone: str = "") -> list[list[Span]]:
    """A line classifier, not a parser: fences, headings, list items, inline code."""
    out: list[list[Span]] = []
    fenced = False
    for raw in text.split("\n"):
        if raw.strip().startswith("```"):
            fenced = not fenced
            out.append([(raw, "muted")])
            continue
        if fenced:
            out.append([(raw, "code")])
            continue
        line_tone = tone
        body = raw
        if raw.startswith("#"):
            body, line_tone = raw.lstrip("#").strip(), "emph"
        match = _LIST.match(body)
        prefix = ""
        if match:
            prefix = match.group(1) + "• "
            body = body[match.end() :]
        pieces = wrap(prefix + body, width)
        for index, piece in enumerate(pieces):
            text_part = piece if index else piece
            out.append(inline(text_part, line_tone))
    return out


def _bulleted(marker: Span, body: list[list[Span]]) -> list[Line]:
    lines: list[Line] = []
    for index, spans in enumerate(body):
        head: Span = marker if index == 0 else ("  ", "")
        lines.append((head, *spans))
    return lines


def summary(outcome: Outcome) -> Span:
    k = outcome.kind
    if k == "pending":
        return ("▷ pending", "muted")
    if k == "awaiting":
        return ("▲ waiting for approval", "warn")
    if k == "running":
        return ("▷ running…", "warn")
    if k == "cancelled":
        return ("⊘ cancelled", "muted")
    if k == "unknown":
        return ("⁉ outcome unknown — needs reconciliation", "warn")
    if k == "diff":
        return ("✓ diff", "ok")
    if k == "test":
        return (
            f"✓ {outcome.passed} passed, {outcome.failed} failed",
            "err" if outcome.failed else "ok",
        )
    if k == "error":
        first = outcome.body.strip().splitlines()[0] if outcome.body.strip() else "failed"
        return (f"✗ {first[:120]}", "err")
    if k == "worker":  # an orchestration call: the worker's name and state
        first = outcome.body.strip().splitlines()[0] if outcome.body.strip() else "done"
        return (f"✓ {first[:120]}", "ok")
    return ("✓ done", "ok")


_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def diff_body(diff: str) -> list[Line]:
    lines: list[Line] = []
    old = new = 0
    for raw in diff.splitlines():
        hunk = _HUNK.match(raw)
        if hunk:
            old, new = int(hunk.group(1)), int(hunk.group(2))
            lines.append((("    ", ""), (raw, "accent")))
        elif raw.startswith(("--- ", "+++ ")):
            lines.append((("    ", ""), (raw, "muted")))
        elif raw.startswith("+"):
            lines.append((("    ", ""), (f"{'':>5} {new:>5} ", "muted"), (raw, "add")))
            new += 1
        elif raw.startswith("-"):
            lines.append((("    ", ""), (f"{old:>5} {'':>5} ", "muted"), (raw, "del")))
            old += 1
        else:
            lines.append((("    ", ""), (f"{old:>5} {new:>5} ", "muted"), (raw, "muted")))
            old += 1
            new += 1
    return lines


def _body(outcome: Outcome) -> list[Line]:
    if outcome.kind == "diff":
        return diff_body(outcome.body)
    tone = "err" if outcome.kind == "error" else ""
    return [(("    ", ""), (raw, tone)) for raw in outcome.body.splitlines()]


def expandable(item: Item) -> bool:
    return item.kind == "tool" and item.outcome is not None and bool(item.outcome.body.strip())


def render_item(item: Item, width: int, expanded: bool = False) -> list[Line]:
    inner = max(8, width - 2)
    if item.kind == "user":
        marker: Span = ("> (steering) " if item.steering else "> ", "muted")
        return _bulleted(marker, markdown_lines(item.text, width - cells(marker[0]), "muted"))
    if item.kind == "assistant":
        return _bulleted(("⏺ ", "accent"), markdown_lines(item.text, inner))
    if item.kind == "tool":
        room = max(8, width - cells(item.name) - 4)
        args = item.args if cells(item.args) <= room else item.args[: room - 1] + "…"
        head: Line = (("⏺ ", "accent"), (item.name, "emph"), (f"({args})", "muted"))
        outcome = item.outcome or Outcome("pending")
        hint = " (ctrl+r to expand)" if expandable(item) and not expanded else ""
        words, tone = summary(outcome)
        room = max(8, width - 4 - cells(hint))
        if cells(words) > room:
            words = wrap(words, room - 1)[0] + "…"
        tree: list[Span] = [("  ⎿ ", "muted"), (words, tone)]
        if hint:
            tree.append((hint, "muted"))
        lines = [head, tuple(tree)]
        if expanded and expandable(item):
            lines.extend(_body(outcome))
        return lines
    if item.kind == "ended":
        return [((f"— session ended: {item.text}", "muted"),)]
    if item.kind == "elided":
        return [((f"⋯ {item.text} older item(s) elided", "muted"),)]
    tone = item.tone or "muted"
    return [
        (("  ", ""), (piece, tone)) for part in item.text.split("\n") for piece in wrap(part, inner)
    ]


def render_plain(transcript: Transcript, width: int, expanded: Iterable[str] = ()) -> str:
    open_keys = set(expanded)
    out: list[str] = []
    for item in transcript.items:
        for line in render_item(item, width, item.key in open_keys):
            out.append("".join(text for text, _ in line).rstrip())
    return "\n".join(out) + "\n"


def activity_line(elapsed: float, tokens: int) -> Line:
    frame = SPINNER[int(elapsed / SPINNER_FRAME_SECS) % len(SPINNER)]
    verb = VERBS[int(elapsed / VERB_SECS) % len(VERBS)]
    return (
        (f"{frame} ", "accent"),
        (f"{verb}… ", "warn"),
        (f"({int(elapsed)}s · ↑ {tokens} tokens · esc to interrupt)", "muted"),
    )


def status_line(
    label: str,
    route: str,
    billing: str,
    state: str,
    context_left: int | None,
    cwd: str,
    branch: str | None,
    notice: str = "",
    width: int = 0,
) -> Line:
    glyph, tone = STATES.get(state, ("…", "muted"))
    words = "completed — unread" if state == "unread" else state
    spans: list[Span] = [
        (label, "emph"),
        ("  ", ""),
        (route, "accent"),
        ("  native  ", "muted"),
        (billing or "–", "muted"),
        ("  ", ""),
        (f"{glyph} {words}", tone),
    ]
    if context_left is not None:
        spans.append((f"  context left {context_left}%", "warn" if context_left < 20 else "muted"))
    cwd = visible(cwd)  # a directory's name is anyone's choice
    place = f" ({visible(branch)})" if branch else ""
    tail: list[Span] = [(f"  ⚠ {notice}", "warn")] if notice else []
    if width:
        # The path gives way first (from its left, keeping the repo's own name).
        room = width - sum(cells(s) for s, _ in spans + tail) - cells(place) - 2
        if cells(cwd) > room:
            cwd = "…" + cwd[len(cwd) - max(0, room - 1) :] if room > 1 else ""
    spans.append((f"  {cwd}{place}", "muted"))
    return tuple(spans + tail)


def git_branch(workdir: str) -> str | None:
    """The branch from `.git/HEAD`, read once; git is never run."""
    from pathlib import Path

    head = Path(workdir) / ".git" / "HEAD"
    try:
        text = head.read_text(encoding="utf-8", errors="replace")[:512].strip()
    except OSError:
        return None
    prefix = "ref: refs/heads/"
    # The file is the repository's: its bytes are shown only as visible text.
    if text.startswith(prefix):
        return visible(text[len(prefix) :])
    return visible(text[:8]) if text else None
