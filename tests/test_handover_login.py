"""A handover to a CLI that is clearly not logged in warns before it starts (Pilot)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Label, OptionList

from screens.app import ZirvApp
from screens.handover import HandoverScreen
from tests.apphelpers import dash_screen, make_app, tools_only_path, wait_for

pytestmark = pytest.mark.timeout(60)

ORCH = "6a7b8c9d-0000-4000-8000-000000000011"


@pytest.fixture(autouse=True)
def grok_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `grok` on PATH that exits at once (as grok with no API key does), a
    private HOME with no ~/.grok, and no GROK_API_KEY."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    grok = bin_dir / "grok"
    grok.write_text("#!/bin/sh\necho 'Error: API key required'\nexit 1\n")
    grok.chmod(0o755)
    tools_only_path(tmp_path, monkeypatch)
    monkeypatch.delenv("GROK_API_KEY", raising=False)
    monkeypatch.setenv("ZIRV_DEMO_SPINNER", "0")
    (tmp_path / "home").mkdir()
    (tmp_path / "repo").mkdir()


def row_texts(picker: HandoverScreen) -> list[str]:
    options = picker.query_one("#handover-rows", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def confirm_text(picker: HandoverScreen) -> str:
    return str(picker.query_one("#handover-confirm", Label).render())


async def open_picker(pilot: object, app: ZirvApp) -> HandoverScreen:
    await pilot.press("ctrl+a", "o")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: isinstance(app.screen, HandoverScreen))
    assert isinstance(app.screen, HandoverScreen)
    return app.screen


async def test_first_enter_warns_second_goes_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(tmp_path / "repo", agent="demo", session_ids=[ORCH])
    async with app.run_test(size=(140, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: bool(dash.panes) and dash.panes[0].is_idle())
        pane = dash.panes[0]
        original = pane.pty

        # Logged in (the variable grok reads): no warning on its rows.
        monkeypatch.setenv("GROK_API_KEY", "xai-test")
        picker = await open_picker(pilot, app)
        assert not any("not logged in" in t for t in row_texts(picker))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HandoverScreen))

        monkeypatch.delenv("GROK_API_KEY")
        picker = await open_picker(pilot, app)
        texts = row_texts(picker)
        grok_rows = [i for i, t in enumerate(texts) if t.startswith("grok / ")]
        assert grok_rows, texts
        for i in grok_rows:
            assert (
                "not logged in: no GROK_API_KEY or apiKey in ~/.grok/user-settings.json"
                in (texts[i])
            )
        # The pane's own harness is never judged.
        assert not any("not logged in" in t for t in texts if t.startswith("demo "))

        options = picker.query_one("#handover-rows", OptionList)
        options.highlighted = grok_rows[0]
        await pilot.press("enter")
        await wait_for(pilot, lambda: "grok is not logged in" in confirm_text(picker))
        assert app.screen is picker  # warned, not started
        assert pane.agent == "demo" and not screen.engine.swaps.book.running

        # Esc backs out of the warning, not the dialog; Enter warns again.
        await pilot.press("escape")
        await wait_for(pilot, lambda: confirm_text(picker) == "")
        assert app.screen is picker
        await pilot.press("enter")
        await wait_for(pilot, lambda: "⏎ again" in confirm_text(picker))

        # The second Enter goes ahead: the swap starts, warned in the error log,
        # and the successor that exits gives the pane back to the original.
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, HandoverScreen))
        texts_logged = lambda: [e.text for e in dash.errors.entries]  # noqa: E731
        await wait_for(
            pilot,
            lambda: any("warning: grok is not logged in" in t for t in texts_logged()),
        )
        await wait_for(
            pilot, lambda: any(t.startswith("handover failed") for t in texts_logged()), 30
        )
        assert pane.agent == "demo" and pane.alive and pane.pty is original
