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

from collections.abc import Iterable, Mapping

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
    def __init__(self) -> None:
        super().__init__()
        self._render_crop: Region | None = None
        """While a partial update renders: the band being rendered."""

    def render_partial_update(self) -> ChopsUpdate | None:
        screen_region = self.size.region
        update_regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        if not update_regions:
            return None
        spans = list(self._regions_to_spans(update_regions))
        chops: list[Mapping[int, Strip | None]] | None = None
        for band in line_bands(update_regions):
            crop = Region.from_union(band).intersection(screen_region)
            if not crop:
                continue
            lines = set(crop.line_range)
            self._render_crop = crop
            try:
                part = self._render_chops(crop, lines.__contains__)
            finally:
                self._render_crop = None
            if chops is None:
                chops = list(part)
            else:
                for y in lines:
                    chops[y] = part[y]
        if chops is None:
            return None
        chop_ends = [cut_set[1:] for cut_set in self.cuts]
        return ChopsUpdate(chops, spans, chop_ends)

    def _get_renders(
        self, crop: Region | None = None
    ) -> Iterable[tuple[Region, Region, list[Strip]]]:
        band = self._render_crop
        if band is None or crop is None:
            yield from super()._get_renders(crop)
            return
        overlaps = band.overlaps
        # Whole widths: the compositor cuts a line at widgets' edges, and a
        # strip must end on a cut; only lines outside the band are left out.
        rows = Region(0, band.y, self.size.width, band.height)
        for widget, (region, clip) in list(self.visible_widgets.items()):
            shown = region.intersection(clip)
            if not overlaps(shown):
                continue  # its cells are outside every span of this band
            x, y, width, height = shown.intersection(rows)
            if not (width and height):
                continue
            yield (
                region,
                Region(x, y, width, height),
                widget.render_lines(Region(x - region.x, y - region.y, width, height)),
            )
