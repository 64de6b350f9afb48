"""The text of one roster line: a group header or a pane's row, fitted to a width."""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from widgets.roster_rows import DrawnHeader, RosterRow


@dataclass(frozen=True)
class RowStyles:
    """The sidebar's component styles a row is drawn with."""

    glyph: Style
    """The row's state: its glyph, and its note's colour."""
    marker: Style
    badge: Style
    selected_bg: Style


def header_text(header: DrawnHeader, width: int, style: Style, selected_bg: Style) -> Text:
    """`▾ title      3` (`▸ title  ▲1` folded, with its rollup)."""
    line = header.line
    text = Text(no_wrap=True, overflow="crop")
    text.append(" ")
    text.append(("▸ " if line.collapsed else "▾ ") + line.title, style)
    rollup = f"{header.rollup} " if line.collapsed else f"{len(line.members)} "
    room = width - len(rollup) - 1
    text.truncate(max(3, room))
    text.append(" " * max(1, width - text.cell_len - len(rollup)))
    text.append(rollup, Style(dim=True))
    text.truncate(width)
    if header.selected:
        text.stylize(selected_bg)
    return text


def row_text(row: RosterRow, width: int, number: int | None, char: str, styles: RowStyles) -> Text:
    """A pane's row: digit, tree, glyph `char`, name, harness, marker, note, context, badge."""
    line = Text(no_wrap=True, overflow="crop")
    line.append(str(number) if number is not None else " ", Style(dim=True))
    line.append(row.tree)
    line.append(char, styles.glyph)
    line.append(" ")
    name_style = Style(bold=row.focused, dim=row.dim)
    # The marker, note ("exit 1", "TERM") and badge must stay whole: the
    # harness column gives way first, then the name.
    extras = [e for e in (row.marker, row.note, row.context, row.badge) if e]
    extra = sum(len(e) + 1 for e in extras)
    room = width - line.cell_len - extra
    name_width = max(1, min(max(8, len(row.name)), room - 1))
    line.append(f"{row.name[:name_width]:<{name_width}}", name_style)
    harness_width = min(8, room - name_width - 1)
    if harness_width >= 3:
        line.append(" ")
        line.append(f"{row.harness[:harness_width]:<{harness_width}}", Style(dim=True))
    if row.marker:
        line.append(" ")
        line.append(row.marker, styles.marker)
    if row.note:
        line.append(" ")
        line.append(row.note, Style(color=styles.glyph.color, dim=True))
    if row.context:
        line.append(" ")
        fill, warn = row.context[:1], row.context[1:]
        line.append(fill, Style(dim=True))
        if warn:
            line.append(warn, Style(color="yellow", bold=True))
    if row.badge:
        line.append(" ")
        line.append(row.badge, styles.badge)
    line.truncate(width)
    line.append(" " * max(0, width - line.cell_len))
    if row.selected:
        line.stylize(styles.selected_bg)
    return line
