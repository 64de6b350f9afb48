"""The roster as data: its rows, the digit that focuses each, and the lines a roster lays out.

`roster_lines` turns the rows given (and their groups, the folded groups and a
search) into what the sidebar draws top to bottom: group headers and rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace

from rich.cells import cell_len

from widgets.glyphs import glyph
from zirv_dash.attention.states import PaneState
from zirv_dash.dash import roster_view
from zirv_dash.dash.roster_view import HeaderLine, RowGroup
from zirv_dash.panes.words import STATE_WORDS

NUMBERED_ROWS = 9
"""`^A 1` … `^A 9` focus the first nine panes."""
ATTENTION = (PaneState.NEEDS_YOU, PaneState.FAILED, PaneState.DONE_UNSEEN, PaneState.UNKNOWN)
"""A folded group's header counts these when any member shows one."""


@dataclass(frozen=True)
class RosterRow:
    key: str
    """Pane short id (or `ended:<short>` for retained ended rows)."""
    name: str
    harness: str
    state: PaneState
    tree: str = " "
    badge: str = ""
    focused: bool = False
    selected: bool = False
    dim: bool = False
    note: str = ""
    """A few words after the harness (how an ended row ended)."""
    marker: str = ""
    """A mode this pane takes part in (`⇶` while input is broadcast to it)."""
    context: str = ""
    """Its context fill glyph (`▃`), with `⚠` once the rot verdict advises."""


@dataclass(frozen=True)
class DrawnHeader:
    """A group header as drawn: the rollup and highlight are part of what changes."""

    line: HeaderLine
    rollup: str
    selected: bool


@dataclass(frozen=True)
class DrawnRow:
    """A pane's row as drawn, with the digit that focuses it."""

    row: RosterRow
    number: int | None


Drawn = DrawnHeader | DrawnRow
"""One line of the roster under the title."""


def row_number(index: int, row: RosterRow) -> int | None:
    """The digit that focuses roster row `index` (pane rows come first, in the
    order `^A <n>` counts them), or None past the ninth or for a non-pane row."""
    if index >= NUMBERED_ROWS or row.key.startswith("ended:"):
        return None
    return index + 1


def roster_lines(
    rows: list[RosterRow],
    groups: Mapping[str, RowGroup],
    collapsed: set[str],
    query: str,
) -> list[Drawn]:
    """The roster's lines: headers of groups, rows (those `query` matches, if any)."""
    index = {row.key: i for i, row in enumerate(rows)}
    by_key = {row.key: row for row in rows}
    shown: set[str] | None = None
    if query:
        shown = set(roster_view.filter_keys(query, row_facts(rows, groups)))
    keys = [row.key for row in rows]
    drawn: list[Drawn] = []
    for line in roster_view.layout(keys, groups, collapsed, shown):
        if isinstance(line, HeaderLine):
            members = [by_key[k] for k in line.members]
            selected = line.collapsed and any(m.selected for m in members)
            drawn.append(DrawnHeader(line, rollup(members), selected))
            continue
        row = by_key[line.key]
        if line.tree != " ":
            row = replace(row, tree=line.tree)
        drawn.append(DrawnRow(row, row_number(index[line.key], row)))
    return drawn


def row_facts(rows: list[RosterRow], groups: Mapping[str, RowGroup]) -> list[roster_view.RowFacts]:
    """What a roster search matches in each row."""
    return [
        roster_view.RowFacts(
            key=row.key,
            label=row.name,
            harness=row.harness,
            state=STATE_WORDS.get(row.state, str(row.state)),
            branch=groups[row.key].branch if row.key in groups else "",
        )
        for row in rows
    ]


def rollup(members: list[RosterRow]) -> str:
    """`▲1 ✗1` when a member wants attention, else the quiet counts `⠋3 ●1`."""
    counts = Counter(m.state for m in members)
    wanted = [s for s in ATTENTION if s in counts] or list(counts)
    return " ".join(f"{glyph(s, 0)[0]}{counts[s]}" for s in wanted)


def animated(drawn: Drawn) -> bool:
    """A working row: its spinner moves."""
    return isinstance(drawn, DrawnRow) and drawn.row.state in (
        PaneState.WORKING,
        PaneState.STARTING,
    )


def glyph_x(drawn: Drawn) -> int | None:
    """The cell of a working row's spinner (None: nothing animates)."""
    if not animated(drawn) or not isinstance(drawn, DrawnRow):
        return None
    number = str(drawn.number) if drawn.number is not None else " "
    return cell_len(number) + cell_len(drawn.row.tree)
