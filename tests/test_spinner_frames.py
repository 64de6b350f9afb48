"""A spinner frame swaps one cell of a drawn line: the same cells as a full
render at that tick, without laying the line out again."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from textual.app import App, ComposeResult
from textual.strip import Strip

from widgets.glyphs import SPINNER
from widgets.pane_header import PaneHeader, PaneHeaderFacts
from widgets.sidebar import RosterRow, Sidebar
from zirv_dash.attention.states import PaneState


def cells(strip: Strip) -> list[tuple[str, Style | None]]:
    return [(char, segment.style) for segment in strip for char in segment.text]


class Chrome(App[None]):
    def compose(self) -> ComposeResult:
        yield PaneHeader(id="pane-header")
        yield Sidebar(id="sidebar")


def rows() -> list[RosterRow]:
    return [
        RosterRow(
            key="a1",
            name="orch",
            harness="shell",
            state=PaneState.WORKING,
            focused=True,
            selected=True,
        ),
        RosterRow(key="b2", name="b2", harness="claude", state=PaneState.IDLE),
        RosterRow(key="c3", name="c3", harness="codex", state=PaneState.STARTING, badge="✉1"),
    ]


async def test_sidebar_spinner_frames_match_a_full_render_and_lay_out_once(
    monkeypatch: Any,
) -> None:
    app = Chrome()
    async with app.run_test(size=(100, 12)) as pilot:
        await pilot.pause()
        sidebar = app.query_one(Sidebar)
        laid_out: list[str] = []
        render_row = sidebar._render_row

        def counting(row: RosterRow, *args: Any, **kwargs: Any) -> Any:
            laid_out.append(row.key)
            return render_row(row, *args, **kwargs)

        monkeypatch.setattr(sidebar, "_render_row", counting)
        width = sidebar.size.width
        content = max(10, width - 1)
        for tick in range(2 * len(SPINNER) + 3):
            sidebar.update_rows(rows(), tick)
            for index, row in enumerate(rows()):
                drawn = sidebar.render_line(1 + index)
                full = sidebar._strip(render_row(row, content, index + 1, tick=tick), width)
                assert cells(drawn) == cells(full), (tick, row.key)
                if row.state is PaneState.WORKING:
                    assert SPINNER[tick % len(SPINNER)] in drawn.text
        assert sorted(laid_out) == ["a1", "b2", "c3"]  # once each, for all the frames


async def test_pane_header_spinner_frames_match_a_full_render_and_lay_out_once(
    monkeypatch: Any,
) -> None:
    app = Chrome()
    async with app.run_test(size=(100, 12)) as pilot:
        await pilot.pause()
        header = app.query_one(PaneHeader)
        layouts: list[int] = []
        layout = header._layout

        def counting(facts: PaneHeaderFacts) -> Any:
            layouts.append(facts.tick)
            return layout(facts)

        for state in (PaneState.WORKING, PaneState.IDLE):
            frames = [
                PaneHeaderFacts(
                    harness="shell",
                    role="orchestrator",
                    cwd="/tmp/x",
                    state=state,
                    tick=tick,
                    extra="swap due",
                    age="3s",
                )
                for tick in range(len(SPINNER) + 4)
            ]
            drawn = []
            monkeypatch.setattr(header, "_layout", counting)
            layouts.clear()
            for facts in frames:
                header.update_facts(facts)
                drawn.append(header.render_line(0))
            assert len(layouts) <= 2  # the line and its glyph's place, once
            monkeypatch.undo()
            for facts, line in zip(frames, drawn, strict=True):
                header.update_facts(facts)
                header._render_content()  # Textual's own rendering of the same facts
                assert cells(line) == cells(header._render_cache.lines[0]), (state, facts.tick)
            if state is PaneState.WORKING:
                assert {line.text for line in drawn} != {drawn[0].text}
