"""The tail of a native conversation, as a small view draws it (a grid tile).

A PTY tile shows the rows of its child's screen that end at the cursor; the
native analogue is the status line over the newest transcript lines, with the
text still streaming and the activity line at the bottom. Pure: the same
snapshot, elapsed time and size always give the same lines, and only the items
that can show are rendered (a long conversation costs what fits, not its length).
"""

from __future__ import annotations

from zirv_dash.native.render import Line, activity_line, render_item, status_line
from zirv_dash.native.transcript import Item


def presentation_state(state: str, pending: bool, unread: bool = False) -> str:
    """The state word the status line shows: blocked outranks everything."""
    if pending:
        return "blocked"
    if state == "completed" and unread:
        return "unread"
    return state


def tail_lines(
    items: tuple[Item, ...],
    streaming: str,
    activity: tuple[float, int] | None,
    width: int,
    height: int,
) -> list[Line]:
    """The last `height` lines of the transcript at `width`, items separated by
    a blank line as the pane separates them; `activity` is (elapsed, tokens)
    while a turn runs."""
    if height <= 0:
        return []
    width = max(10, width)
    bottom: list[Line] = []
    if streaming:
        bottom.extend(render_item(Item("assistant", "streaming", streaming), width))
    if activity is not None:
        bottom.append(activity_line(*activity))
    blocks: list[list[Line]] = []
    room = height - len(bottom)
    for item in reversed(items):
        if room <= 0:
            break
        lines = render_item(item, width)
        blocks.append(lines)
        room -= len(lines) + 1
    out: list[Line] = []
    for index, block in enumerate(reversed(blocks)):
        if index:
            out.append(())
        out.extend(block)
    if blocks and bottom:
        out.append(())
    out.extend(bottom)
    return out[-height:]


def tile_lines(
    status: Line,
    items: tuple[Item, ...],
    streaming: str,
    activity: tuple[float, int] | None,
    width: int,
    height: int,
) -> list[Line]:
    """A tile's rows: the status line on top, the transcript's tail below it."""
    if height <= 0:
        return []
    return [status, *tail_lines(items, streaming, activity, width, height - 1)]


def tile_status(
    label: str, route: str, billing: str, state: str, context_left: int | None, width: int
) -> Line:
    """The pane's status line without the place (a tile is too narrow for a path)."""
    line = status_line(label, route, billing, state, context_left, "", None, "", width)
    return line[:-1] if line and not line[-1][0].strip() else line
