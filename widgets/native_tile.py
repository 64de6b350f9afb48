"""A grid tile for a native pane: its status line and the tail of its transcript.

A native pane has no terminal screen to crop, so the tile draws what its pane
shows at the bottom: the newest transcript lines, the text still streaming and
the activity line, under the status line (inventory §12.3/§12.4 styles). It is
repainted only when the session's snapshot changed (or the spinner moved).
"""

from __future__ import annotations

import time
from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip

from widgets.grid_tile import GridTile, TileFacts
from widgets.native_transcript import TONES
from zirv_dash.native.render import SPINNER_FRAME_SECS, Line
from zirv_dash.native.tail import presentation_state, tile_lines, tile_status
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime.native_pane import NativeSessionPane


@lru_cache(maxsize=64)
def _style(tone: str) -> Style:
    return Style.parse(TONES.get(tone, "") or "none")


class NativeGridTile(GridTile):
    def __init__(self, pane: NativeSessionPane, facts: TileFacts) -> None:
        super().__init__(pane, facts)
        self.native = pane
        self._key: tuple[object, ...] = ()
        self._rows: list[Strip] = []

    def _snapshot_key(self) -> tuple[object, ...]:
        session = self.native.session
        if session is None:
            return ()
        snap = session.snapshot()
        frame = -1
        if snap.running and snap.turn_started is not None:
            frame = int((time.monotonic() - snap.turn_started) / SPINNER_FRAME_SECS)
        pending = snap.pending is not None
        return (id(snap.transcript), snap.streaming, snap.state, pending, frame, snap.turn_tokens)

    def poll(self) -> None:
        key = self._snapshot_key()
        if key != self._key:
            self._key = key
            self.refresh()

    def lines(self, width: int, height: int) -> list[Line]:
        """What the tile shows at this size (also what tests read)."""
        session = self.native.session
        if session is None:
            return []
        snap = session.snapshot()
        activity = None
        if snap.running and snap.turn_started is not None and snap.pending is None:
            activity = (time.monotonic() - snap.turn_started, snap.turn_tokens)
        route = snap.route
        state = presentation_state(snap.state, snap.pending is not None)
        status = tile_status(
            route.label, route.name, route.billing, state, snap.context_left, width
        )
        return tile_lines(status, snap.transcript.items, snap.streaming, activity, width, height)

    def plain(self) -> str:
        return "\n".join(strip.text.rstrip() for strip in self._rows)

    def render_lines(self, crop: Region) -> list[Strip]:
        # One snapshot per paint, so every row of it shows the same moment.
        width, height = self.size.width, self.size.height
        base = self.rich_style
        rows: list[Strip] = []
        for line in self.lines(width, height):
            segments = [Segment(text, base + _style(tone)) for text, tone in line]
            rows.append(Strip(segments).crop(0, width).adjust_cell_length(width, base))
        self._rows = rows
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        if 0 <= y < len(self._rows):
            return self._rows[y]
        return Strip.blank(self.size.width, self.rich_style)


def make_tile(pane: Pane, facts: TileFacts) -> GridTile:
    """The tile for a pane: a native conversation's tail, or a terminal crop
    (a native pane that could not start shows its explanation as a screen)."""
    if isinstance(pane, NativeSessionPane) and pane.session is not None:
        return NativeGridTile(pane, facts)
    return GridTile(pane, facts)
