"""The "◆ … done" notice: panes that finish together are named together.

A notice shows for a few seconds; when a second pane finishes while the first
one's notice still shows, replacing it would hide that the first finished at
all. So the notice names every pane that finished meanwhile, in roster order
(the order the sidebar shows them, not the order a race happened to give),
and past a few of them counts them instead. The dashboard keeps the names the
showing notice stands for, so nothing is read back out of its text.
"""

from __future__ import annotations

from collections.abc import Sequence

NAMED_AT_MOST = 3


def finished_together(showing: Sequence[str], short: str, roster: Sequence[str]) -> list[str]:
    """Every pane the done notice stands for once pane `short` has finished,
    given those of the done notice `showing` now (none when another notice or
    none shows), in the roster's order; a pane finishing again counts once."""
    rank = {name: i for i, name in enumerate(roster)}
    names = {*showing, short}
    return sorted(names, key=lambda n: (rank.get(n, len(rank)), n))


def done_text(finished: Sequence[str]) -> str:
    """The notice's words: the panes by name, or how many past a few."""
    if len(finished) <= NAMED_AT_MOST:
        return f"◆ {', '.join(finished)} done"
    return f"◆ {len(finished)} panes done"
