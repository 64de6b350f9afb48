"""The grid view shows a native pane's conversation, as it shows a PTY pane's screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from screens.grid import GridScreen
from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from widgets.grid_tile import GridTile
from widgets.native_tile import NativeGridTile
from zirv_dash.native.tail import tail_lines
from zirv_dash.native.transcript import Item
from zirv_dash.runtime.native_pane import NativeSessionPane


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".zirv").mkdir(parents=True)
    return repo


def painted(tile: GridTile) -> str:
    """The tile's rows as drawn on the last paint."""
    return "\n".join(
        "".join(seg.text for seg in tile.render_line(y)).rstrip() for y in range(tile.size.height)
    )


async def test_a_native_tile_shows_the_conversation_tail_and_follows_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PS1", "$ ")
    app = make_app(repo, agent="native", extra=[("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.dash.panes) == 2 and bool(screen.native_views))
        native = screen.dash.panes[0]
        shell = screen.dash.panes[1]
        assert isinstance(native, NativeSessionPane) and native.session is not None
        await wait_for(pilot, lambda: "$" in screen_text(shell))
        native.session.submit("tidy up")
        session = native.session
        await wait_for(pilot, lambda: session.pending is not None, timeout=20)
        await pilot.press("ctrl+a", "g")
        await wait_for(pilot, lambda: isinstance(app.screen, GridScreen))
        grid = app.screen
        assert isinstance(grid, GridScreen)
        tile = next(t for t in grid.tiles if t.pane is native)
        assert isinstance(tile, NativeGridTile)
        pty_tile = next(t for t in grid.tiles if t.pane is shell)
        assert not isinstance(pty_tile, NativeGridTile)
        # The status line, the user's line and the tool call waiting for approval.
        await wait_for(pilot, lambda: "> tidy up" in painted(tile))
        text = painted(tile)
        assert text.splitlines()[0].startswith("zirv/demo") and "▲ blocked" in text
        assert "write_file(" in text and "waiting for approval" in text
        assert "$" in painted(pty_tile)  # the PTY tile still shows its screen
        # The tile follows the conversation while the grid is open.
        assert session.answer(session.pending.call_id, "once")  # type: ignore[union-attr]
        await wait_for(pilot, lambda: "Done." in painted(tile), timeout=20)
        await wait_for(pilot, lambda: "✓ completed" in painted(tile).splitlines()[0])
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, GridScreen))


def test_the_tail_renders_only_the_newest_items_that_fit() -> None:
    items = tuple(Item("assistant", f"a{n}", f"answer {n}") for n in range(2000))
    lines = tail_lines(items, "still typ", (1.0, 42), width=40, height=6)
    plain = ["".join(text for text, _ in line) for line in lines]
    assert len(plain) == 6
    assert plain[0] == "⏺ answer 1998" and plain[2] == "⏺ answer 1999"
    assert plain[4] == "⏺ still typ" and "esc to interrupt" in plain[5]
    assert tail_lines(items, "", None, 40, 0) == []
