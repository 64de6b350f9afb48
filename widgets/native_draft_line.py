"""The composer's usual row drawn without TextArea: prompt, draft, cursor, fill.

Nearly every keystroke in the composer leaves the same shape behind: one short
line of plain text with the cursor after its last character. TextArea draws that
row through its whole machinery (a Rich Text with the theme's spans, the cursor
and cursor-line styles, the styles cache with padding and background) for a few
hundred microseconds a key. The row is four runs: the prompt, the draft in one
style, the cursor cell, and blank fill to the edge.

A `RowShape` is learnt from a row TextArea really drew, and kept only if those
four runs rebuild that row cell for cell; a later row of the same shape (same
width, same styles: the caller keys it) is then built from the runs. Anything
else (a selection, a wide or control character, a second line, a placeholder)
is drawn by TextArea as before. The shape is exact only for a TextArea without
syntax highlighting (`language` None: the draft is one run of one style); the
composer checks that before it learns or uses one.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

Cell = tuple[str, "Style | None"]


def plain_cells(text: str) -> bool:
    """Whether `text` is printable ASCII: one terminal cell a character, no tab
    or control character (its width is its length)."""
    return text.isascii() and text.isprintable()


def cells(strip: Strip) -> list[Cell] | None:
    """The row as (character, style) per cell, or None if a segment is a control
    or holds a character that is not one printable ASCII cell."""
    out: list[Cell] = []
    for segment in strip:
        text, style, control = segment
        if control or not plain_cells(text):
            return None
        out.extend((character, style) for character in text)
    return out


@dataclass(frozen=True)
class RowShape:
    """The runs of a one-line draft row with the cursor at its end."""

    prompt: Segment
    text: Style | None
    cursor: Style | None
    fill: Style | None
    width: int

    @classmethod
    def learn(cls, strip: Strip, prompt: Segment, line: str) -> RowShape | None:
        """The shape of `strip` (the row drawn for `line`), or None when the row
        is not prompt + draft + cursor + fill or the runs do not rebuild it."""
        drawn = cells(strip)
        start = len(prompt.text)
        end = start + len(line)
        # Each run at least a cell wide, so each style is seen in the row.
        if not line or drawn is None or len(drawn) != strip.cell_length or len(drawn) < end + 2:
            return None
        cursor = drawn[end]
        shape = cls(
            prompt=prompt,
            text=drawn[start][1],
            cursor=cursor[1],
            fill=drawn[end + 1][1],
            width=len(drawn),
        )
        if cursor[0] != " " or cells(shape.row(line)) != drawn:
            return None
        return shape

    def fits(self, line: str) -> bool:
        """Whether `line` leaves room for the cursor and a cell after it."""
        return len(self.prompt.text) + len(line) + 1 < self.width

    def row(self, line: str) -> Strip:
        fill = self.width - len(self.prompt.text) - len(line) - 1
        segments = [self.prompt, Segment(line, self.text), Segment(" ", self.cursor)]
        if fill > 0:
            segments.append(Segment(" " * fill, self.fill))
        return Strip(segments, self.width)
