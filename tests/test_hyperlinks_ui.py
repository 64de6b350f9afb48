"""Following a hyperlink from a pane: Ctrl+click and copy mode's Enter show a
one-line confirmation with the URI; Enter opens it with the platform's opener
(a fake xdg-open on PATH records it), Esc opens nothing, a plain click opens
nothing, and a refused scheme never reaches the opener."""

from __future__ import annotations

from pathlib import Path

import pytest

from screens.copy_mode import CopyModeScreen
from screens.open_link import OpenLinkScreen
from tests.apphelpers import make_app, screen_text, wait_for
from tests.test_review_ui import fake, find, plain_shell, ready_shell, run_in_shell

__all__ = ["plain_shell"]  # the fixture, used by name

pytestmark = pytest.mark.timeout(60)

PRINT = (
    r"printf '\033]8;;https://example.com/doc\033\\%s\033]8;;\033\\ "
    r"\033]8;;ssh://host\033\\%s\033]8;;\033\\\n' 'DO''CS' 'SS''H'"
)


async def test_ctrl_click_asks_then_opens(tmp_path: Path, plain_shell: Path) -> None:
    seen = tmp_path / "opened"
    fake(plain_shell, "xdg-open", f'printf "%s\\n" "$1" >> "{seen}"')
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen, pane, view = await ready_shell(pilot)
        await run_in_shell(pilot, PRINT)
        await wait_for(pilot, lambda: "DOCS SSH" in screen_text(pane))
        x, y = find(pane, "DOCS")
        await pilot.click(view, offset=(x + 1, y))  # a plain click: nothing
        await pilot.pause()
        assert not isinstance(app.screen, OpenLinkScreen)
        await pilot.click(view, offset=(x + 1, y), control=True)
        await wait_for(pilot, lambda: isinstance(app.screen, OpenLinkScreen))
        assert "https://example.com/doc" in str(app.screen.query_one("#open-link-uri").render())
        await pilot.press("escape")  # cancelled: nothing opened
        await wait_for(pilot, lambda: not isinstance(app.screen, OpenLinkScreen))
        await pilot.click(view, offset=(x, y), control=True)
        await wait_for(pilot, lambda: isinstance(app.screen, OpenLinkScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: seen.exists())
        assert seen.read_text() == "https://example.com/doc\n"
        # ssh: refused with a reason, no confirmation, no opener.
        sx, sy = find(pane, "SSH")
        await pilot.click(view, offset=(sx, sy), control=True)
        await pilot.pause()
        assert not isinstance(app.screen, OpenLinkScreen)
        assert seen.read_text() == "https://example.com/doc\n"
        assert any("ssh" in e.text for e in screen.dash.errors.unacked)


async def test_enter_in_copy_mode_on_a_link(tmp_path: Path, plain_shell: Path) -> None:
    seen = tmp_path / "opened"
    fake(plain_shell, "xdg-open", f'printf "%s\\n" "$1" >> "{seen}"')
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen, pane, view = await ready_shell(pilot)
        await run_in_shell(pilot, PRINT)
        await wait_for(pilot, lambda: "DOCS SSH" in screen_text(pane))
        x, y = find(pane, "DOCS")
        await pilot.press("ctrl+a", "left_square_bracket")
        await wait_for(pilot, lambda: isinstance(app.screen, CopyModeScreen))
        copy = app.screen
        assert isinstance(copy, CopyModeScreen)
        copy.copy_view.move_to((view.top_line() + y, x + 2))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, OpenLinkScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: seen.exists())
        assert seen.read_text() == "https://example.com/doc\n"
