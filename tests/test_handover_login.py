"""A handover to a CLI that is clearly not logged in warns before it starts (Pilot)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Label, OptionList

from screens.app import ZirvApp
from screens.handover import HandoverChoice, HandoverScreen
from tests.apphelpers import dash_screen, make_app, tools_only_path, wait_for
from zirv_dash.harnesses.catalogue import PickerRow

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


async def open_picker(pilot: Pilot[Any], app: ZirvApp) -> HandoverScreen:
    await pilot.press("ctrl+a", "o")
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

        def texts_logged() -> list[str]:
            return [e.text for e in dash.errors.entries]

        await wait_for(
            pilot,
            lambda: any("warning: grok is not logged in" in t for t in texts_logged()),
        )
        await wait_for(
            pilot, lambda: any(t.startswith("handover failed") for t in texts_logged()), 30
        )
        assert pane.agent == "demo" and pane.alive and pane.pty is original


async def test_the_panes_own_harness_is_not_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grok pane runs, so grok's files are not judged; codex's are."""
    for name in ("OPENAI_API_KEY", "CODEX_API_KEY", "CODEX_ACCESS_TOKEN", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    bin_dir = tmp_path / "bin"
    sleep = shutil.which("sleep", path=os.defpath)  # PATH holds the fakes only
    (bin_dir / "grok").write_text(f"#!/bin/sh\necho '> '\nexec {sleep} 60\n")
    (bin_dir / "codex").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "codex").chmod(0o755)
    app = make_app(tmp_path / "repo", agent="grok", session_ids=[ORCH])
    async with app.run_test(size=(140, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes) and dash.panes[0].alive)
        picker = await open_picker(pilot, app)
        texts = row_texts(picker)
        assert any(t.startswith("grok / ") for t in texts), texts
        assert not any("not logged in" in t for t in texts if t.startswith("grok / "))
        codex = [t for t in texts if t.startswith("codex / ")]
        assert codex and all("not logged in: no ~/.codex/auth.json" in t for t in codex)


class PickerApp(App[None]):
    """The picker alone, over an empty screen: what it dismisses with is kept."""

    def __init__(self, rows: list[PickerRow], idle: bool) -> None:
        super().__init__()
        self.rows = rows
        self.idle = idle
        self.results: list[HandoverChoice | None] = []

    def on_mount(self) -> None:
        self.push_screen(HandoverScreen("abcd1234", self.rows, self.idle), self.results.append)


ROWS = [
    PickerRow("demo", "standard", "demo-standard", True),
    PickerRow("grok", "standard", "grok-4.3", False, login="no GROK_API_KEY"),
]


async def test_a_busy_pane_warns_on_enter_and_in_the_force_confirmation() -> None:
    app = PickerApp(ROWS, idle=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HandoverScreen))
        picker = app.screen
        assert isinstance(picker, HandoverScreen)
        picker.query_one("#handover-rows", OptionList).highlighted = 1
        # f: the y/n confirmation says it is not logged in too; n backs out.
        await pilot.press("f")
        await wait_for(pilot, lambda: "force the switch to grok" in confirm_text(picker))
        assert "grok is not logged in: no GROK_API_KEY" in confirm_text(picker)
        await pilot.press("n")
        await wait_for(pilot, lambda: confirm_text(picker) == "")
        # Moving off the warned row drops its warning.
        await pilot.press("enter")
        await wait_for(pilot, lambda: "⏎ again" in confirm_text(picker))
        await pilot.press("up")
        await wait_for(pilot, lambda: confirm_text(picker) == "")
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: "⏎ again" in confirm_text(picker))
        assert app.results == []
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [HandoverChoice("grok", "standard", "grok-4.3")]


async def test_forced_past_the_warning() -> None:
    app = PickerApp(ROWS, idle=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HandoverScreen))
        picker = app.screen
        assert isinstance(picker, HandoverScreen)
        picker.query_one("#handover-rows", OptionList).highlighted = 1
        await pilot.press("f")
        await wait_for(pilot, lambda: "not logged in" in confirm_text(picker))
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [HandoverChoice("grok", "standard", "grok-4.3", force=True)]
