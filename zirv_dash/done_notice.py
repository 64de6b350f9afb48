"""The "◆ … done" notice: panes that finish together are named together.

A notice shows for a few seconds; when a second pane finishes while the first
one's notice still shows, replacing it would hide that the first finished at
all. So the notice names every pane that finished meanwhile, in roster order
(the order the sidebar shows them, not the order a race happened to give),
and past a few of them counts them instead.
"""

from __future__ import annotations

from collections.abc import Sequence

PREFIX = "◆ "
SUFFIX = " done"
NAMED_AT_MOST = 3


def _shown(notice: str | None) -> tuple[list[str], int]:
    """The panes a done notice names, and how many it counts (0: not one)."""
    if notice is None or not (notice.startswith(PREFIX) and notice.endswith(SUFFIX)):
        return [], 0
    body = notice[len(PREFIX) : -len(SUFFIX)]
    count, _, word = body.partition(" ")
    if word == "panes" and count.isdigit():
        return [], int(count)
    names = body.split(", ")
    return names, len(names)


def done_notice(showing: str | None, short: str, roster: Sequence[str]) -> str:
    """The notice once pane `short` has finished, given the notice `showing`
    now (None when none shows) and the roster's pane names in order."""
    names, count = _shown(showing)
    if short in names:
        count -= 1  # finished again while still named: once is enough
        names.remove(short)
    if count == len(names) and count < NAMED_AT_MOST:
        rank = {name: i for i, name in enumerate(roster)}
        named = sorted([*names, short], key=lambda n: rank.get(n, len(rank)))
        return f"{PREFIX}{', '.join(named)}{SUFFIX}"
    return f"{PREFIX}{count + 1} panes{SUFFIX}"
