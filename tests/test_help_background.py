"""The dashboard below the open help is drawn once per change: the help's check
of which lines changed below draws them, and its render reuses that."""

from __future__ import annotations

from pathlib import Path

from textual.geometry import Region, Size
from textual.strip import Strip

from screens.help import HelpScreen
from screens.line_compositor import LineCompositor
from tests.apphelpers import dash_screen, make_app, open_help, wait_for


async def test_lines_below_the_help_are_drawn_once_per_refresh(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell", deterministic=True)
    async with app.run_test(size=(100, 30)) as pilot:
        help_screen = await open_help(pilot)
        await pilot.pause(0.3)
        below = dash_screen(app)._compositor
        assert isinstance(below, LineCompositor)
        # Lines drawn below, per call of render_strips: by the help's refresh
        # (which lines changed) and by its render (the dimmed background).
        drawn: list[tuple[str, int]] = []
        phase = ["render"]
        render_strips = below.render_strips

        def counted(size: Size | None = None) -> list[Strip]:
            before = below.frame_lines_rendered
            lines = render_strips(size)
            drawn.append((phase[0], below.frame_lines_rendered - before))
            return lines

        refresh = help_screen.refresh

        def counted_refresh(
            *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
        ) -> HelpScreen:
            phase[0] = "refresh"
            try:
                return refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)
            finally:
                phase[0] = "render"

        below.render_strips = counted  # type: ignore[method-assign]
        help_screen.refresh = counted_refresh  # type: ignore[method-assign]
        for n in range(4):
            dash_screen(app).dash.notify(f"change number {n}")  # the header changes

            def shown(n: int = n) -> bool:
                return any(
                    f"change number {n}" in "".join(s.text for s in line)
                    for line in help_screen.render_lines(help_screen.region)
                )

            await wait_for(pilot, shown)
        by_refresh = sum(n for phase_, n in drawn if phase_ == "refresh")
        by_render = sum(n for phase_, n in drawn if phase_ == "render")
        assert by_refresh >= 4  # each change drawn (a header line at least)...
        assert by_render == 0  # ...once: the render finds nothing left to draw
