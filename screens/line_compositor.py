"""A compositor that renders only the lines a partial update repaints.

Textual's compositor answers a partial update (an echoed key: one row of one
pane; a spinner frame: one sidebar row and the pane header) by taking the
rectangle around every dirty region, and then asks every widget overlapping
that rectangle for *all* its lines, not just the ones inside it: the screen,
the body, the sidebar, the pane area and the terminal view each walk their
forty-odd cached lines and apply their line filters to each, ~230 lines for a
two-line spinner frame. Two regions far apart (an echo on row 30 and a spinner
on row 2) make that rectangle most of the screen.

Here a partial update is rendered per band of lines (dirty regions that share
a line are one band; bands never share a line), and each widget is asked only
for the part of it inside the band. The strips are the same as Textual's; only
lines nobody repaints are no longer rendered. A full update (and
`render_strips`, which the tinted overlay background uses) is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.strip import Strip


def line_bands(regions: Iterable[Region]) -> list[list[Region]]:
    """`regions` grouped so that regions sharing a line are in one group, and
    no two groups share a line (sorted from the top)."""
    bands: list[list[Region]] = []
    bottom = -1
    for region in sorted(regions, key=lambda r: r.y):
        if not region.height or not region.width:
            continue
        if bands and region.y <= bottom:
            bands[-1].append(region)
            bottom = max(bottom, region.bottom)
        else:
            bands.append([region])
            bottom = region.bottom
    return bands


class LineCompositor(Compositor):
    def render_partial_update(self) -> ChopsUpdate | None:
        screen_region = self.size.region
        update_regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        if not update_regions:
            return None
        spans = list(self._regions_to_spans(update_regions))
        chops: list[dict[int, Strip | None]] = [{} for _ in self.cuts]
        for band in line_bands(update_regions):
            crop = Region.from_union(band).intersection(screen_region)
            if crop:
                for y, line in self._render_band(crop).items():
                    chops[y] = line
        chop_ends = [cut_set[1:] for cut_set in self.cuts]
        return ChopsUpdate(chops, spans, chop_ends)

    def _render_band(self, crop: Region) -> dict[int, dict[int, Strip | None]]:
        """The chops of the lines `crop` spans: Textual's `_render_chops` for
        those lines only, asking each widget for just its part of them, and not
        at all once every cut it spans is filled by a widget in front of it (a
        container behind its children)."""
        cuts = self.cuts
        # Whole widths: the compositor cuts a line at widgets' edges, and a strip
        # must end on a cut; only lines outside the band are left out.
        rows = Region(0, crop.y, self.size.width, crop.height)
        chops = {y: dict.fromkeys(cuts[y][:-1]) for y in rows.line_range}
        empty = sum(len(line) for line in chops.values())
        overlaps = crop.overlaps
        for widget, (region, clip) in self.visible_widgets.items():  # front to back
            shown = region.intersection(clip)
            if not overlaps(shown):
                continue  # its cells are outside every span of this band
            render_region = shown.intersection(rows)
            x, y, width, height = render_region
            first_cut, last_cut = render_region.column_span
            lines = render_region.line_range
            if not (width and height) or not _any_empty(chops, cuts, lines, first_cut, last_cut):
                continue
            strips = widget.render_lines(Region(x - region.x, y - region.y, width, height))
            for line_y, strip in zip(lines, strips, strict=True):
                line = chops[line_y]
                final_cuts = [cut for cut in cuts[line_y] if last_cut >= cut >= first_cut]
                pieces = strip.divide([cut - x for cut in final_cuts[1:]])
                # One piece per cut but the last (where the widget ends).
                for cut, piece in zip(final_cuts, pieces, strict=False):
                    if cut in line and line[cut] is None:
                        line[cut] = piece
                        empty -= 1
            if empty <= 0:
                break
        return chops


def _any_empty(
    chops: dict[int, dict[int, Strip | None]],
    cuts: list[list[int]],
    lines: range,
    first_cut: int,
    last_cut: int,
) -> bool:
    """Whether a cut in [first_cut, last_cut) of any of `lines` is still unfilled."""
    for y in lines:
        line = chops[y]
        for cut in cuts[y]:
            if first_cut <= cut < last_cut and line.get(cut, False) is None:
                return True
    return False
