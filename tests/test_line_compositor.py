"""The line compositor draws exactly what Textual's would, rendering fewer lines."""

from __future__ import annotations

import random
from typing import Any

from rich.console import Console
from rich.segment import Segment
from textual._compositor import Compositor
from textual.app import App, ComposeResult, RenderResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import ModalScreen, Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from screens.line_compositor import LineCompositor, line_bands
from screens.tinted_background import BackgroundCache, faster


class Rows(Widget):
    """Numbered rows whose text changes with a generation counter."""

    DEFAULT_CSS = "Rows { height: 1fr; background: $panel; }"

    def __init__(self, name: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.label = name
        self.generation: dict[int, int] = {}
        self.requested: set[int] = set()
        """Lines the compositor asked for since the last clear."""

    def render_lines(self, crop: Region) -> list[Strip]:
        self.requested.update(crop.line_range)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        text = f"{self.label} row {y} gen {self.generation.get(y, 0)}"
        return Strip([Segment(text)]).adjust_cell_length(self.size.width, self.rich_style)

    def bump(self, y: int) -> Region:
        self.generation[y] = self.generation.get(y, 0) + 1
        region = Region(0, y, self.size.width, 1)
        self.refresh(region)
        return region


class Layout(Screen[None]):
    CSS = """
    #header { height: 1; background: blue; }
    #side { width: 24; border-right: vkey red; }
    #footer { height: 1; background: green; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._compositor = LineCompositor()
        self.requested: set[int] = set()

    def render_lines(self, crop: Region) -> list[Strip]:
        self.requested.update(crop.line_range)
        return super().render_lines(crop)

    def compose(self) -> ComposeResult:
        yield Static("header", id="header")
        with Horizontal():
            yield Rows("side", id="side")
            with Vertical():
                yield Static("pane header", id="pane-header")
                yield Rows("term", id="term")
        yield Static("footer", id="footer")


class LayoutApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(Layout())


def _bump_some(rng: random.Random, widgets: list[Rows]) -> set[int]:
    """A few random lines of one or more of `widgets` changed: their screen lines."""
    bumped: set[int] = set()
    for widget in rng.sample(widgets, rng.randint(1, len(widgets))):
        for y in rng.sample(range(widget.size.height), rng.randint(1, 3)):
            widget.bump(y)
            bumped.add(widget.region.y + y)
    return bumped


async def _laid_out(pilot: Pilot[Any]) -> tuple[Layout, LineCompositor]:
    """The test layout, drawn once, and its line compositor."""
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, Layout)
    ours = screen._compositor
    assert isinstance(ours, LineCompositor)
    return screen, ours


def _render(compositor: Compositor, regions: set[Region], console: Console) -> str:
    compositor._dirty_regions.update(regions)
    update = compositor.render_partial_update()
    assert update is not None
    return update.render_segments(console)


async def test_partial_updates_match_textual_and_skip_untouched_lines() -> None:
    app = LayoutApp()
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, Layout)
        ours = screen._compositor
        theirs = Compositor()
        theirs.reflow(screen, screen.size)
        theirs._dirty_regions.clear()  # the reflow's own full repaint
        side = screen.query_one("#side", Rows)
        term = screen.query_one("#term", Rows)
        console = Console(width=80, height=30, color_system="truecolor", force_terminal=True)
        rng = random.Random(7)
        for _ in range(60):
            regions: set[Region] = set()
            for widget in rng.sample([side, term], rng.randint(1, 2)):
                for y in rng.sample(range(widget.size.height), rng.randint(1, 3)):
                    local = widget.bump(y)
                    regions.add(local.translate(widget.region.offset))
            side.requested.clear()
            term.requested.clear()
            screen.requested.clear()
            drawn = _render(ours, regions, console)
            # Each widget was asked only for its lines inside the bands repainted
            # (Textual's compositor asks for every line of every widget touched).
            crops = [Region.from_union(band) for band in line_bands(regions)]
            for widget in (side, term):
                region = widget.region
                wanted = {
                    y - region.y
                    for crop in crops
                    if crop.overlaps(region)
                    for y in crop.intersection(region).line_range
                }
                assert widget.requested == wanted
            # The screen behind header, body and footer is never drawn.
            assert not screen.requested
            # Byte for byte what Textual's own compositor sends for the same update.
            for widget in (side, term):
                widget._styles_cache.clear()
            assert _render(theirs, regions, console) == drawn


def test_line_bands_keep_lines_apart() -> None:
    regions = [Region(0, 2, 10, 1), Region(20, 1, 60, 1), Region(0, 30, 80, 1), Region(5, 3, 4, 2)]
    bands = line_bands(regions)
    assert [sorted((r.y, r.height) for r in band) for band in bands] == [
        [(1, 1), (2, 1), (3, 2)],
        [(30, 1)],
    ]
    lines = [{y for r in band for y in range(r.y, r.bottom)} for band in bands]
    assert not lines[0] & lines[1]


def _cells(strips: list[Strip]) -> list[list[Segment]]:
    return [list(strip) for strip in strips]


async def test_render_strips_renders_only_repainted_lines_and_matches_textual() -> None:
    """The whole screen as strips (what an overlay's dimmed background is made
    of): the same as Textual's, with only the lines repainted since rendered
    again, and every other line the very same strip as before."""
    app = LayoutApp()
    async with app.run_test(size=(80, 30)) as pilot:
        screen, ours = await _laid_out(pilot)
        side = screen.query_one("#side", Rows)
        term = screen.query_one("#term", Rows)
        previous = ours.render_strips()
        carried: set[int] = set()
        """Lines drawn while their repaint was still pending in the widget: the
        compositor is told of them later, and draws them again then."""
        rng = random.Random(11)
        for round_ in range(30):
            bumped = _bump_some(rng, [side, term])
            settled = round_ % 2 == 1
            if settled:
                # Handed to the compositor (and drawn) by the screen; otherwise
                # still pending in the widgets when the strips are asked for.
                await pilot.pause()
            rendered = ours.frame_lines_rendered
            got = ours.render_strips()
            drawn = ours.frame_lines_rendered - rendered
            assert len(bumped) <= drawn <= len(bumped | (carried if settled else set()))
            carried = set() if settled else bumped
            kept = [y for y in range(30) if y not in bumped]
            assert all(got[y] is previous[y] for y in kept)
            theirs = Compositor()
            theirs.reflow(screen, screen.size)
            assert _cells(got) == _cells(theirs.render_strips())
            previous = got


async def test_render_strips_start_over_after_a_layout() -> None:
    app = LayoutApp()
    async with app.run_test(size=(80, 30)) as pilot:
        screen, ours = await _laid_out(pilot)
        ours.render_strips()
        screen.query_one("#header").display = False
        await pilot.pause()
        rendered = ours.frame_lines_rendered
        got = ours.render_strips()
        assert ours.frame_lines_rendered - rendered == 30
        theirs = Compositor()
        theirs.reflow(screen, screen.size)
        assert _cells(got) == _cells(theirs.render_strips())
        assert "footer" in "".join(s.text for s in got[-1])


async def test_a_repaint_of_the_screen_itself_redraws_only_where_it_shows() -> None:
    """Textual repaints the screen below an overlay whole (and again on every
    later change below it); the screen shows nowhere between these widgets, so
    the frame keeps every line, unless a widget changed in the same frame."""
    app = LayoutApp()
    async with app.run_test(size=(80, 30)) as pilot:
        screen, ours = await _laid_out(pilot)
        side = screen.query_one("#side", Rows)
        before = ours.render_strips()
        screen.refresh()
        await pilot.pause()
        rendered = ours.frame_lines_rendered
        got = ours.render_strips()
        assert ours.frame_lines_rendered == rendered
        assert all(a is b for a, b in zip(got, before, strict=True))
        # The screen's repaint takes over the widgets' repaints of the same frame:
        # those widgets' lines are drawn anew all the same, and once.
        side.bump(3)
        screen.refresh()
        await pilot.pause()
        got = ours.render_strips()
        assert not side._repaint_regions
        rendered = ours.frame_lines_rendered
        assert ours.render_strips() == got and ours.frame_lines_rendered == rendered
        theirs = Compositor()
        theirs.reflow(screen, screen.size)
        assert _cells(got) == _cells(theirs.render_strips())
        assert "side row 3 gen 1" in "".join(s.text for s in got[side.region.y + 3])


async def test_a_full_update_joins_no_frame_until_one_is_asked_for() -> None:
    """A full update (the whole screen drawn for the glass) is the kept frame,
    but its lines are joined only when `render_strips` asks: with no overlay up
    nothing does. Lines repainted after it are drawn anew when it is asked for;
    every other line comes from the full update as it was."""
    app = LayoutApp()
    async with app.run_test(size=(80, 30)) as pilot:
        screen, ours = await _laid_out(pilot)
        side = screen.query_one("#side", Rows)
        for _ in range(3):
            screen.refresh()  # the whole screen: a full update
            await pilot.pause()
            assert ours._frame is None  # nothing was joined for a frame nobody asked for
        side.bump(4)
        await pilot.pause()
        rendered = ours.frame_lines_rendered
        got = ours.render_strips()
        assert ours.frame_lines_rendered - rendered == 1  # the bumped line only
        theirs = Compositor()
        theirs.reflow(screen, screen.size)
        assert _cells(got) == _cells(theirs.render_strips())
        assert "side row 4 gen 1" in "".join(s.text for s in got[side.region.y + 4])
        # A full update after a frame was kept: unchanged lines keep their objects.
        screen.query_one("#term", Rows).bump(2)
        screen.refresh()
        await pilot.pause()
        again = ours.render_strips()
        term_y = screen.query_one("#term").region.y + 2
        assert all(again[y] is got[y] for y in range(30) if y != term_y)
        assert again[term_y] is not got[term_y]
        theirs = Compositor()
        theirs.reflow(screen, screen.size)
        assert _cells(again) == _cells(theirs.render_strips())


class Overlay(ModalScreen[None]):
    """A translucent overlay drawing the screen below through `render_strips`,
    as the help does."""

    DEFAULT_CSS = "Overlay { background: black 50%; } Overlay Static { width: 20; height: 3; }"

    def __init__(self) -> None:
        super().__init__()
        self.cache = BackgroundCache()

    def compose(self) -> ComposeResult:
        yield Static("overlay")

    def render(self) -> RenderResult:  # type: ignore[override]  # a Visual, as Widget allows
        return faster(super().render(), self.cache)


async def test_lines_below_an_overlay_are_drawn_once_per_change() -> None:
    """Below an overlay Textual hands over only the screen on every update (its
    widgets' repaints stay with them); each changed line below is drawn once,
    not again on every later `render_strips`."""
    app = LayoutApp()
    async with app.run_test(size=(80, 30)) as pilot:
        screen, ours = await _laid_out(pilot)
        side = screen.query_one("#side", Rows)
        term = screen.query_one("#term", Rows)
        overlay = Overlay()
        await app.push_screen(overlay)
        await pilot.pause()
        ours.render_strips()
        rng = random.Random(5)
        for _ in range(12):
            _bump_some(rng, [side, term])
            await pilot.pause()
            await pilot.pause()
            rendered = ours.frame_lines_rendered
            got = ours.render_strips()  # the overlay drew them already: nothing left
            assert ours.frame_lines_rendered == rendered
            assert not side._repaint_regions and not term._repaint_regions
            theirs = Compositor()
            theirs.reflow(screen, screen.size)
            assert _cells(got) == _cells(theirs.render_strips())
        # Over the whole run: each bumped line drawn once per bump at most.
        assert ours.frame_lines_rendered <= 12 * 6
