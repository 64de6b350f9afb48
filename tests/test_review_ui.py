"""Mouse review through Pilot: clicks, wheel, drag selection, copy, copy mode, grid, palette.

Real panes: a /bin/sh pane, and a Python child that turns on mouse reporting
and echoes what it receives in hex.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot

from screens.dashboard import DashboardScreen
from screens.menu import MenuScreen
from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from widgets.sidebar import Sidebar
from widgets.terminal_view import TerminalView
from zirv_dash import clipboard
from zirv_dash.dash.selection import ModelLines
from zirv_dash.panes.pane import Pane

pytestmark = pytest.mark.timeout(60)

MOUSE_CHILD = r"""
import os, sys, tty
tty.setraw(0)
os.write(1, b"\x1b[?1000h\x1b[?1006hMOUSE READY\r\n")
while True:
    data = os.read(0, 1024)
    if data == b"q":
        break
    os.write(1, (" ".join(f"{b:02x}" for b in data) + "\r\n").encode())
"""


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")
    monkeypatch.delenv("TMUX", raising=False)  # no real tmux buffer either
    bins = tmp_path / "bin"
    bins.mkdir()
    # No real clipboard command: each test puts its own fakes on PATH.
    monkeypatch.setenv("PATH", f"{bins}:/usr/bin:/bin")
    for name in ("wl-copy", "xclip", "pbcopy"):
        fake(bins, name, "exit 1")
    return bins


def fake(bins: Path, name: str, body: str) -> None:
    path = bins / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def hexed(data: bytes) -> str:
    return " ".join(f"{b:02x}" for b in data)


async def ready_shell(pilot: Pilot[Any]) -> tuple[DashboardScreen, Pane, TerminalView]:
    screen = dash_screen(pilot.app)  # type: ignore[arg-type]
    dash = screen.dash
    await wait_for(pilot, lambda: bool(dash.panes) and "$" in screen_text(dash.panes[0]))
    pane = dash.panes[0]
    return screen, pane, screen.views[pane.short]


async def run_in_shell(pilot: Pilot[Any], command: str) -> None:
    """Type a command line into the focused pane (written straight to its PTY:
    these tests are about the mouse, and pressing each key is slow)."""
    pane = dash_screen(pilot.app).dash.focused_pane  # type: ignore[arg-type]
    assert pane is not None
    pane.send(command.encode() + b"\r")
    await pilot.pause()


async def wheel(pilot: Pilot[Any], view: TerminalView, up: bool, offset: tuple[int, int]) -> None:
    kind = events.MouseScrollUp if up else events.MouseScrollDown
    await pilot._post_mouse_events([kind], view, offset=offset)


def find(pane: Pane, needle: str) -> tuple[int, int]:
    """(view x, view y) of the first cell of `needle` on the live screen."""
    src = ModelLines(pane.model_view)
    history = src.history_size
    for row in range(pane.model_view.rows):
        cells = src.cells(history + row)
        text = "".join(cells)
        if needle in text:
            index = text.index(needle)
            seen = 0
            for col, cell in enumerate(cells):
                if seen == index:
                    return (col, row)
                seen += len(cell)
    raise AssertionError(f"{needle!r} not on screen")


async def test_click_sidebar_row_focuses_and_right_click_opens_menu(tmp_path: Path) -> None:
    app = make_app(tmp_path, extra=[("shell", None), ("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 3)
        sidebar = screen.query_one(Sidebar)
        await wait_for(pilot, lambda: len(sidebar.rows) == 3)
        await pilot.click(sidebar, offset=(4, 3))
        await wait_for(pilot, lambda: dash.focused == 2)
        assert screen.views[dash.panes[2].short].display
        await pilot.click(sidebar, offset=(4, 1))
        await wait_for(pilot, lambda: dash.focused == 0)
        # Right-click opens that row's menu and leaves the focus where it was.
        await pilot.click(sidebar, offset=(4, 2), button=3)
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        assert app.screen.subject.startswith(dash.panes[1].short)  # type: ignore[attr-defined]
        assert dash.focused == 0


async def test_wheel_scrolls_scrollback_then_forwards_to_a_mouse_app(tmp_path: Path) -> None:
    (tmp_path / "mouse.py").write_text(MOUSE_CHILD)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, pane, view = await ready_shell(pilot)
        await run_in_shell(pilot, "seq 1 200")
        await wait_for(pilot, lambda: pane.model_view.history_size > 150)
        await wheel(pilot, view, True, (3, 3))
        await wait_for(pilot, lambda: pane.scroll_offset == 3)
        await wheel(pilot, view, True, (3, 3))
        await wait_for(pilot, lambda: pane.scroll_offset == 6)
        assert "SCROLL -6" in "".join(s.text for s in view.render_line(0))
        await wheel(pilot, view, False, (3, 3))
        await wheel(pilot, view, False, (3, 3))
        await wait_for(pilot, lambda: pane.scroll_offset == 0)
        # A child that asked for mouse reports gets the wheel, SGR-encoded.
        await run_in_shell(pilot, f"clear; {sys.executable} {tmp_path / 'mouse.py'}")
        await wait_for(pilot, lambda: "MOUSE READY" in screen_text(pane))
        await wait_for(pilot, lambda: pane.model_view.mouse_encoding == "sgr")
        await wheel(pilot, view, True, (4, 2))
        await wait_for(pilot, lambda: hexed(b"\x1b[<64;5;3M") in screen_text(pane))
        assert pane.scroll_offset == 0
        assert "forwarded to the app" in (screen.dash.current_notice() or "")
        # A plain click is replayed as press + release; middle button too.
        await pilot.click(view, offset=(9, 6))
        click = hexed(b"\x1b[<0;10;7M\x1b[<0;10;7m")
        await wait_for(pilot, lambda: click in screen_text(pane).replace("\n", " "))
        await pilot.click(view, offset=(2, 1), button=2)
        middle = hexed(b"\x1b[<1;3;2M")
        await wait_for(pilot, lambda: middle in screen_text(pane).replace("\n", " "))
        await pilot.press("q")


async def test_drag_selects_exact_text_across_wraps_and_wide_characters(
    tmp_path: Path, plain_shell: Path
) -> None:
    out = tmp_path / "clip.txt"
    fake(plain_shell, "xclip", f'cat > "{out}"; exit 0')
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, pane, view = await ready_shell(pilot)
        cols = pane.model_view.columns
        # The first row ends exactly at the margin (a soft wrap), wide characters on both.
        line = "start-" + "x" * (cols - 10) + "漢字" + "ab漢字cd-end"
        (tmp_path / "long.txt").write_text(line + "\nsecond line\n")
        written: list[bytes] = []

        def osc52(text: str) -> bool:
            written.append(clipboard.osc52(text))
            return True

        screen.review.write_osc52 = osc52  # type: ignore[method-assign]
        await run_in_shell(pilot, f"cat {tmp_path / 'long.txt'}")
        await wait_for(pilot, lambda: "second line" in screen_text(pane))
        x0, y0 = find(pane, "start-")
        x1, y1 = find(pane, "-end")
        await pilot.mouse_down(view, offset=(x0, y0))
        await pilot.hover(view, offset=(x0 + 5, y1))
        # Released further on than the last motion report: the release point counts.
        await pilot._post_mouse_events([events.MouseUp], view, offset=(x1 + 3, y1))
        await wait_for(pilot, lambda: screen.last_copy is not None)
        assert view.selected_text() == line
        assert written == [clipboard.osc52(line)]
        assert screen.last_copy == (
            clipboard.Outcome.CONFIRMED,
            "copied selection to clipboard (xclip + OSC 52)",
        )
        assert out.read_text() == line
        # Highlighted, reversed.
        strip = view.render_line(y0)
        assert any(seg.style and seg.style.reverse for seg in strip)
        # Dragging backwards from the middle of 字 on the second row to "ab": whole characters.
        xa, ya = find(pane, "ab漢字cd")
        await pilot.mouse_down(view, offset=(xa + 5, ya))
        assert view.selection is None  # a new press clears the old selection
        await pilot.hover(view, offset=(xa, ya))
        await pilot.mouse_up(view, offset=(xa, ya))
        await wait_for(pilot, lambda: view.selected_text() == "ab漢字")
        # New output in the selected rows cancels the selection.
        await run_in_shell(pilot, "clear")
        await wait_for(pilot, lambda: view.selection is None)


async def test_double_and_triple_click_and_clipboard_failure(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, pane, view = await ready_shell(pilot)
        await run_in_shell(pilot, "printf 'open ./s%s now\\n' rc/app.py")
        await wait_for(pilot, lambda: "open ./src/app.py now\n" in screen_text(pane) + "\n")
        x, y = find(pane, "open ./src")
        await pilot.double_click(view, offset=(x + 9, y))
        await wait_for(pilot, lambda: view.selected_text() == "./src/app.py")
        # Headless (no OSC 52 written) and every clipboard command fails: an error.
        await wait_for(pilot, lambda: screen.last_copy is not None)
        assert screen.last_copy is not None
        assert screen.last_copy[0] is clipboard.Outcome.FAILED
        assert screen.dash.errors.entries[0].text.startswith(clipboard.FAILED)
        await pilot.triple_click(view, offset=(x + 2, y))
        await wait_for(pilot, lambda: view.selected_text() == "open ./src/app.py now")
        # Focus change cancels it.
        await pilot.press("ctrl+a", "tab")
        await wait_for(pilot, lambda: view.selection is None)


async def test_drag_past_the_top_edge_autoscrolls(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, pane, view = await ready_shell(pilot)
        await run_in_shell(pilot, "seq 1 300")
        await wait_for(pilot, lambda: pane.model_view.history_size > 250)
        x, y = find(pane, "300")
        x += 2  # the last cell of "300": a backward drag includes the anchor cell
        await pilot.mouse_down(view, offset=(x, y))
        await pilot.hover(view, offset=(x, y - 3))
        # Above the pane (over the pane header): the view scrolls back on its own.
        await pilot.hover(view, offset=(x, -1))
        await wait_for(pilot, lambda: pane.scroll_offset >= 10)
        await pilot.mouse_up(view, offset=(x, -1))
        offset = pane.scroll_offset
        text = view.selected_text()
        lines = text.split("\n")
        assert lines[-1] == "300" and len(lines) > offset
        numbers = [int(n) for n in lines[1:]]  # the first line starts at column x
        assert numbers == list(range(numbers[0], 301))
        assert str(numbers[0] - 1).endswith(lines[0])
        # Below the bottom edge (over the footer) it scrolls forward, to the live view.
        await pilot.mouse_down(view, offset=(0, 0))
        await pilot.hover(view, offset=(0, 3))
        await pilot.hover(view, offset=(0, view.size.height))
        await wait_for(pilot, lambda: pane.scroll_offset == 0)
        await pilot.mouse_up(view, offset=(0, view.size.height))
        assert view.selected_text().endswith("300\n$")


async def test_copy_mode_search_select_and_copy(tmp_path: Path, plain_shell: Path) -> None:
    from screens.copy_mode import CopyModeScreen

    out = tmp_path / "clip.txt"
    fake(plain_shell, "wl-copy", f'cat > "{out}"; exit 0')
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, pane, view = await ready_shell(pilot)
        await run_in_shell(pilot, "seq 1 120 | sed 's/^/item /'; echo done")
        await wait_for(pilot, lambda: "done\n$" in screen_text(pane))
        await pilot.press("ctrl+a", "left_square_bracket")
        await wait_for(pilot, lambda: isinstance(app.screen, CopyModeScreen))
        copy = app.screen
        assert isinstance(copy, CopyModeScreen)
        cv = copy.copy_view
        # `?` searches backwards (incrementally) from the cursor at the prompt.
        origin = cv.cursor
        await pilot.press("question_mark", *"item 11")
        assert cv.current is not None
        assert "".join(cv.lines().cells(cv.current[0][0])).rstrip() == "item 119"
        await pilot.press("backspace", "backspace", "7")
        assert cv.current is not None
        assert "".join(cv.lines().cells(cv.current[0][0])).rstrip() == "item 79"
        await pilot.press("escape")  # cancel the search: back where it started
        assert cv.pattern == "" and cv.cursor == origin
        assert isinstance(app.screen, CopyModeScreen)
        await pilot.press("slash", *"item 3", "enter")
        first = cv.current
        assert first is not None
        assert "".join(cv.lines().cells(first[0][0])).rstrip() == "item 3"
        # The matched line is in view and highlighted.
        y = first[0][0] - cv.top_line()
        assert 0 <= y < cv.size.height
        strip = cv.render_line(y)
        assert any(seg.style and seg.style.bgcolor for seg in strip)
        await pilot.press("n")
        assert cv.current is not None
        assert "".join(cv.lines().cells(cv.current[0][0])).rstrip() == "item 30"
        await pilot.press("N")
        assert cv.current == first
        # v selects from the cursor; move down two lines and to the end; y copies and leaves.
        await pilot.press("v", "down", "down", "end", "y")
        await wait_for(pilot, lambda: not isinstance(app.screen, CopyModeScreen))
        await wait_for(pilot, lambda: screen.last_copy is not None)
        assert out.read_text() == "item 3\nitem 4\nitem 5"
        assert screen.last_copy == (
            clipboard.Outcome.CONFIRMED,
            "copied selection to clipboard (wl-copy)",
        )
        assert pane.scroll_offset == 0  # the pane's own view never moved
        # g goes to the oldest line; Esc leaves without copying.
        await pilot.press("ctrl+a", "left_square_bracket")
        await wait_for(pilot, lambda: isinstance(app.screen, CopyModeScreen))
        cv = app.screen.copy_view  # type: ignore[attr-defined]
        await pilot.press("g")
        assert cv.cursor == (0, 0) and cv.top_line() == 0
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, CopyModeScreen))


async def test_palette_filters_shows_disabled_and_runs(tmp_path: Path) -> None:
    from screens.help import HelpScreen
    from screens.palette import HintBar, PaletteList, PaletteScreen

    app = make_app(tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        screen, pane, view = await ready_shell(pilot)
        await pilot.press("ctrl+a", "p")
        await wait_for(pilot, lambda: isinstance(app.screen, PaletteScreen))
        plist = app.screen.query_one(PaletteList)
        labels = [e.label for e in plist.visible_entries]
        assert "grid" in labels and "copy mode" in labels and "palette" in labels
        grid = next(e for e in plist.visible_entries if e.action == "grid")
        assert grid.chord == "^A g"
        # One pane: switching panes is disabled, with the reason.
        nxt = next(e for e in plist.visible_entries if e.action == "next_pane")
        assert nxt.disabled == "only one pane"
        # A short terminal: the list overflows and says which rows show.
        dialog = app.screen.query_one(".dialog")
        assert dialog.border_subtitle == ""
        await pilot.resize_terminal(100, 20)
        await wait_for(pilot, lambda: str(dialog.border_subtitle).startswith("1–"))
        assert str(dialog.border_subtitle).endswith(f" of {len(plist.rows)}")
        await pilot.resize_terminal(120, 50)
        await pilot.press(*"cpym")
        assert plist.current is not None and plist.current.action == "copy_mode"
        await pilot.press("ctrl+u", *"hlp")  # clear the query (Input's ctrl+u), then filter
        await wait_for(pilot, lambda: plist.current is not None and plist.current.action == "help")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        # The footer's "esc close" hint is clickable.
        await pilot.press("ctrl+a", "p")
        await wait_for(pilot, lambda: isinstance(app.screen, PaletteScreen))
        footer = app.screen.query_one("#palette-footer", HintBar)
        start = next(span[0] for span in footer.spans if span[2] == "esc")
        await pilot.click(footer, offset=(start + 1, 0))
        await wait_for(pilot, lambda: not isinstance(app.screen, PaletteScreen))
        # Click selects a row, a double-click runs it.
        await pilot.press("ctrl+a", "p")
        await wait_for(pilot, lambda: isinstance(app.screen, PaletteScreen))
        plist = app.screen.query_one(PaletteList)
        await pilot.press(*"tile")  # matches "grid" by its description
        row = next(i for i, r in enumerate(plist.rows) if getattr(r, "action", "") == "grid")
        assert plist.current is not None
        await pilot.click(plist, offset=(3, row - plist.top))
        assert plist.current is not None and plist.current.action == "grid"
        await pilot.double_click(plist, offset=(3, row - plist.top))
        from screens.grid import GridScreen

        await wait_for(pilot, lambda: isinstance(app.screen, GridScreen))


async def test_grid_tiles_every_pane_and_focuses_by_click_or_digit(tmp_path: Path) -> None:
    from screens.grid import GridScreen
    from widgets.grid_tile import GridTile

    app = make_app(tmp_path, extra=[("shell", None), ("shell", None)])
    async with app.run_test(size=(160, 48)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 3)
        sizes = [(p.model_view.columns, p.model_view.rows) for p in dash.panes]
        await run_in_shell(pilot, "echo grid-$((40+2))")
        await pilot.press("ctrl+a", "g")
        await wait_for(pilot, lambda: isinstance(app.screen, GridScreen))
        tiles = list(app.screen.query(GridTile))
        assert [t.pane for t in tiles] == dash.panes
        # Live: output that arrives while the grid is open shows up in the tile.
        dash.panes[2].send(b"echo late-$((1+1))\r")

        def tile_text(tile: GridTile) -> str:
            return "\n".join(
                "".join(s.text for s in tile.render_line(y)) for y in range(tile.size.height)
            )

        await wait_for(pilot, lambda: "grid-42" in tile_text(tiles[0]))
        await wait_for(pilot, lambda: "late-2" in tile_text(tiles[2]))
        assert [(p.model_view.columns, p.model_view.rows) for p in dash.panes] == sizes
        # A pane spawned meanwhile joins the grid.
        screen.engine.spawn("shell", focus=False)
        await wait_for(pilot, lambda: len(app.screen.query(GridTile)) == 4)
        await pilot.click(tiles[1], offset=(5, 5))
        await wait_for(pilot, lambda: not isinstance(app.screen, GridScreen))
        assert dash.focused == 1
        await pilot.press("ctrl+a", "g")
        await wait_for(pilot, lambda: isinstance(app.screen, GridScreen))
        await pilot.press("3")
        await wait_for(pilot, lambda: dash.focused == 2)
        assert screen.views[dash.panes[2].short].display


async def test_header_hint_click_runs_its_action(tmp_path: Path) -> None:
    from screens.help import HelpScreen
    from widgets.header_bar import HeaderBar

    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, pane, view = await ready_shell(pilot)
        header = screen.query_one(HeaderBar)
        await wait_for(pilot, lambda: bool(header.hint_spans))
        start, _end, action = next(s for s in header.hint_spans if s[2] == "help")
        await pilot.click(header, offset=(start + 1, 0))
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))


async def test_copy_mode_follows_a_resize(tmp_path: Path) -> None:
    from screens.copy_mode import CopyModeScreen

    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, pane, view = await ready_shell(pilot)
        await pilot.press("ctrl+a", "left_square_bracket")
        await wait_for(pilot, lambda: isinstance(app.screen, CopyModeScreen))
        copy = app.screen
        assert isinstance(copy, CopyModeScreen)
        box = copy.query_one("#copy-box")
        assert box.region == view.region
        await pilot.resize_terminal(140, 30)
        await wait_for(pilot, lambda: view.region.height == 30 - 3)
        await wait_for(pilot, lambda: box.region == view.region)
