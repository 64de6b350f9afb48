"""A shell's command blocks, from its OSC 133 marks: where each prompt starts
and which lines are a command's output (copy mode's `[`/`]` and `o`).

Every cell of a prompt or a command line remembers it (``Attr.zone``), so this
holds in the scrollback as on the screen, through scrolling and resizes; a
command's output is the lines between its command line and the next prompt.
Lines are absolute (scrollback first, then the screen), as in ``selection``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from zirv_dash.dash.selection import Span
from zirv_dash.terminal.attr import ZONE_INPUT, ZONE_PROMPT


class ZonedLines(Protocol):
    @property
    def history_size(self) -> int: ...
    @property
    def rows(self) -> int: ...
    def zones(self, line: int) -> set[int]: ...


def prompt_starts(model: ZonedLines) -> list[int]:
    """The first line of every prompt. A prompt line right under a prompt line
    is the same prompt's second line (a two-line prompt), unless a command
    line ended the one above; so two prompts in a row with nothing
    typed between them count as one."""
    out: list[int] = []
    open_prompt = False
    for line in range(model.history_size + model.rows):
        zones = model.zones(line)
        if ZONE_PROMPT in zones and not open_prompt:
            out.append(line)
        # A prompt continues on the next line only if nothing came after it here.
        open_prompt = ZONE_PROMPT in zones and ZONE_INPUT not in zones
    return out


def prompt_before(model: ZonedLines, line: int) -> int | None:
    """The start of the nearest prompt above ``line``."""
    earlier = [p for p in prompt_starts(model) if p < line]
    return earlier[-1] if earlier else None


def prompt_after(model: ZonedLines, line: int) -> int | None:
    """The start of the nearest prompt below ``line``."""
    return next((p for p in prompt_starts(model) if p > line), None)


def output_span(
    model: ZonedLines, line: int, columns: int, blank: Callable[[int], bool] | None = None
) -> Span | None:
    """The output of the command block ``line`` is in (from its prompt to the
    next prompt): the lines after its command line, up to the next prompt,
    whole lines, trailing blank ones (``blank``) left out; None when that
    command printed nothing or no prompt was marked there."""
    starts = prompt_starts(model)
    begin = max((p for p in starts if p <= line), default=None)
    if begin is None:
        return None
    end = next((p for p in starts if p > line), model.history_size + model.rows)
    marked = [n for n in range(begin, end) if model.zones(n) & {ZONE_PROMPT, ZONE_INPUT}]
    first = marked[-1] + 1 if marked else begin + 1
    last = end - 1
    while blank is not None and last >= first and blank(last):
        last -= 1
    if last < first:
        return None
    return ((first, 0), (last, columns))
