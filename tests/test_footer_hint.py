"""The footer's quit hint comes from the live keymap, not a fixed `q quit`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.apphelpers import dash_screen, make_app, wait_for
from widgets.footer_bar import FooterBar
from zirv_dash.keymap import load_preset


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHELL", "/bin/sh")
    return tmp_path


async def test_a_rebound_quit_shows_its_own_chord(repo: Path) -> None:
    keymap = load_preset("default")
    keymap.bindings.pop("q")
    keymap.bindings["x"] = "quit"
    app = make_app(repo, agent="shell")
    app.options.keymap = keymap
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        footer = screen.query_one(FooterBar)
        await wait_for(pilot, lambda: "quit" in str(footer.render()))
        text = str(footer.render())
        assert "^A x quit" in text and "^A q quit" not in text, text
