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
lines nobody repaints are no longer rendered. A full update is unchanged.

`render_strips` (the whole screen as strips: what the dimmed background behind
an overlay is made of) keeps the last frame it rendered and renders again only
the lines repainted since: every region Textual marks dirty (a widget's
repaint, a layout change) goes through this compositor's dirty regions, and a
layout starts the frame over. A full update (the whole screen drawn for the
glass) is the frame too, but its lines are joined into the frame only when
`render_strips` is next asked for it: on a dashboard with no overlay up nothing
ever asks, and a full update costs no more than Textual's. An unchanged line is
the same Strip object as before, so whatever is derived from it (the tinted
background) can be reused.
A repaint of the screen itself (Textual repaints the screen below an overlay
whole, and again on every later change below it) is a repaint of only the
cells where the screen shows between its widgets: none, on a dashboard.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate, ReflowResult
from textual.geometry import Region, Size
from textual.strip import Strip

if TYPE_CHECKING:
    from textual.widget import Widget


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


class _NotedRegions(set[Region]):
    """A compositor's dirty regions that tell `noted` of every region added."""

    def __init__(self, noted: Callable[[Iterable[Region]], None]) -> None:
        super().__init__()
        self._noted = noted

    def update(self, *others: Iterable[Region]) -> None:
        for other in others:
            regions = list(other)
            super().update(regions)
            self._noted(regions)

    def add(self, region: Region) -> None:
        super().add(region)
        self._noted((region,))


class LineCompositor(Compositor):
    def __init__(self) -> None:
        super().__init__()
        self._frame: list[Strip] | None = None
        """The lines of the last `render_strips`, while no layout has happened since."""
        self._full: list[Iterable[Strip]] | None = None
        """The chops of each line of the last full update, not yet joined into
        `_frame` (it is newer than `_frame` where both are set)."""
        self._stale: set[int] = set()
        """Lines of the frame (`_full`, else `_frame`) repainted since it was rendered."""
        self._dirty_regions = _NotedRegions(self._note_stale)
        self.frame_lines_rendered = 0
        """Lines `render_strips` has rendered (not taken from the last frame)."""
        self._root_lines: set[int] | None = None
        """Lines where the screen itself shows between its widgets, in this layout."""

    def _has_frame(self) -> bool:
        return self._frame is not None or self._full is not None

    def _note_stale(self, regions: Iterable[Region]) -> None:
        if self._has_frame():
            stale = self._stale
            for region in regions:
                stale.update(range(region.y, region.bottom))

    def reflow(self, parent: Widget, size: Size) -> ReflowResult:
        self._frame = self._full = self._root_lines = None
        return super().reflow(parent, size)

    def reflow_visible(self, parent: Widget, size: Size) -> set[Widget]:
        self._frame = self._full = self._root_lines = None
        return super().reflow_visible(parent, size)

    def clear(self) -> None:
        self._frame = self._full = self._root_lines = None
        super().clear()

    def update_widgets(self, widgets: set[Widget]) -> None:
        root = self.root
        if not self._has_frame() or root is None or root not in widgets:
            super().update_widgets(widgets)
            return
        # A repainted screen is all Textual hands over (its widgets' own repaints
        # are left with them: a full update draws them anyway), and below an
        # overlay every later update is one: they would stay pending for as long
        # as the overlay is up, and every `render_strips` draw them again. They
        # are taken with the screen's, once.
        pending = {w for w in self.visible_widgets if w._repaint_regions and w is not root}
        super().update_widgets((widgets - {root}) | pending)
        # The screen's own regions, as Textual takes them: they are repainted
        # on the glass as ever; for the frame, only where the screen shows.
        place = self.visible_widgets.get(root)
        if place is not None:
            regions = _on_screen(root._exchange_repaint_regions(), *place)
            set.update(self._dirty_regions, regions)
            self._note_root(regions)

    def _note_root(self, regions: Iterable[Region]) -> None:
        shown = self._root_shown()
        self._stale.update(y for r in regions for y in range(r.y, r.bottom) if y in shown)

    def _root_shown(self) -> set[int]:
        if self._root_lines is None:
            root = self.root
            spans: dict[int, list[tuple[int, int]]] = {}
            for widget, (region, clip) in self.visible_widgets.items():
                if widget is not root:
                    shown = region.intersection(clip)
                    for y in shown.line_range:
                        spans.setdefault(y, []).append((shown.x, shown.right))
            width = self.size.width
            lines = range(self.size.height)
            self._root_lines = {y for y in lines if not _covers(spans.get(y, []), width)}
        return self._root_lines

    def render_full_update(self, simplify: bool = False) -> LayoutUpdate:
        update = super().render_full_update(simplify)
        if not simplify:
            # The whole screen was just rendered: it is the frame now, joined
            # line by line only if `render_strips` asks for it.
            self._full = update.strips
            self._stale.clear()
        return update

    def render_strips(self, size: Size | None = None) -> list[Strip]:
        if size is not None and size != self.size:
            return super().render_strips(size)
        self._note_pending()
        if self._full is not None:
            self._keep([Strip.join(line) for line in self._full])
            self._full = None
        frame, height = self._frame, self.size.height
        if frame is None or len(frame) != height:
            self._keep(super().render_strips())
            self._stale.clear()
            self.frame_lines_rendered += height
        else:
            for band in _runs(sorted(y for y in self._stale if 0 <= y < height)):
                crop = Region(0, band.start, self.size.width, len(band))
                for y, chops in self._render_band(crop).items():
                    line = Strip.join(chops.values())
                    if line != frame[y]:  # else the old object stays: nothing changed
                        frame[y] = line
                self.frame_lines_rendered += len(band)
            self._stale.clear()
        assert self._frame is not None
        return list(self._frame)

    def _keep(self, lines: list[Strip]) -> None:
        """`lines` as the frame, keeping the old object of each line that is
        unchanged (whatever was derived from it stays good)."""
        old = self._frame
        if old is not None and len(old) == len(lines):
            lines = [
                line if line != before else before for line, before in zip(lines, old, strict=True)
            ]
        self._frame = lines

    def _note_pending(self) -> None:
        """Lines of widgets that asked for a repaint this compositor has not yet
        been told of (the screen hands their regions over on its next update):
        Textual's own render would draw them anew, and so are they here."""
        if not self._has_frame():
            return
        root = self.root
        for widget, (region, clip) in self.visible_widgets.items():
            # What `update_widgets` takes (and clears) from each widget.
            if widget._repaint_regions:
                pending = _on_screen(widget._repaint_regions, region, clip)
                if widget is root:
                    self._note_root(pending)
                else:
                    self._note_stale(pending)

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


def _on_screen(regions: Iterable[Region], region: Region, clip: Region) -> list[Region]:
    """A widget's own dirty `regions` on the screen (as `update_widgets` places them)."""
    offset = region.offset
    return [part for dirty in regions if (part := clip.intersection(dirty.translate(offset)))]


def _covers(spans: list[tuple[int, int]], width: int) -> bool:
    """Whether the [start, end) `spans` cover 0..width."""
    reach = 0
    for start, end in sorted(spans):
        if start > reach:
            return False
        reach = max(reach, end)
    return reach >= width


def _runs(lines: list[int]) -> list[range]:
    """Sorted line numbers as runs of consecutive lines."""
    runs: list[range] = []
    for y in lines:
        if runs and runs[-1].stop == y:
            runs[-1] = range(runs[-1].start, y + 1)
        else:
            runs.append(range(y, y + 1))
    return runs


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
