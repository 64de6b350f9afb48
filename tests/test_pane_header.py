"""The pane header keeps the state whole however narrow the pane is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.apphelpers import dash_screen, make_app, wait_for
from widgets.pane_header import PaneHeader
from zirv_dash.panes.words import STATE_WORDS


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    deep = tmp_path / "a-rather-long-directory-name" / "and-another-level" / "repo"
    (deep / ".zirv").mkdir(parents=True)
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")
    return deep


async def test_at_80_columns_with_the_sidebar_forced_on_the_state_is_whole(repo: Path) -> None:
    app = make_app(repo, agent="shell", deterministic=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = dash_screen(app)
        header = screen.query_one(PaneHeader)
        screen.run_chord("toggle_sidebar")
        await wait_for(pilot, lambda: header.size.width < 60)
        await wait_for(pilot, lambda: "orchestrator" in header.render().plain)
        text = header.render().plain
        word = STATE_WORDS[header.facts.state].capitalize()
        assert text.rstrip().endswith(word), text
        assert "repo" in text and "…" not in text, text
