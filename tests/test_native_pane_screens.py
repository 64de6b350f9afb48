"""The whole pane as text at 120x40 and 80x24 after a demo turn, against goldens
in tests/fixtures/native/ (regenerate with ZIRV_UPDATE_NATIVE_SCREENS=1)."""

from __future__ import annotations

import asyncio
import io
import os
import re
from pathlib import Path

import pytest
from rich.console import Console
from textual.app import App

from tests.test_native_pane import PaneApp, submit
from widgets.native_approval import NativeApproval
from zirv_dash.native.demo_provider import DemoProvider
from zirv_dash.native.engine import NativeSession
from zirv_dash.native.journal import Journal
from zirv_dash.native.routes import demo_route

GOLDEN = Path(__file__).parent / "fixtures" / "native"


def screen_text(app: App[None]) -> str:
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        record=True,
        color_system=None,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True))
    lines = [line.rstrip() for line in console.export_text().splitlines()]
    # The workdir is a temporary path of varying length; the status line elides it.
    lines[0] = re.sub(r"  \S*wd \(main\)$", "  <workdir> (main)", lines[0])
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("width", "height"), [(120, 40), (80, 24)])
async def test_pane_screen(tmp_path: Path, width: int, height: int) -> None:
    wd = tmp_path / "wd"
    (wd / ".git").mkdir(parents=True)
    (wd / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (wd / "README.md").write_text("hello\n")
    session = NativeSession(
        demo_route(), Journal(tmp_path / "j.sqlite"), wd, provider=DemoProvider(delay=0)
    )
    app = PaneApp(session)
    async with app.run_test(size=(width, height)) as pilot:
        await submit(pilot, app, "tidy up")
        dialog = app.query_one(NativeApproval)
        async with asyncio.timeout(15):
            while not dialog.ready:
                await pilot.pause(0.02)
        asking = screen_text(app)
        await pilot.press("1")
        async with asyncio.timeout(15):
            while session.busy or "Done." not in app.query_one("#native-transcript").plain():  # type: ignore[attr-defined]
                await pilot.pause(0.02)
        await pilot.pause()
        done = screen_text(app)
    for name, text in (("asking", asking), ("done", done)):
        golden = GOLDEN / f"screen-{name}-{width}x{height}.txt"
        if os.environ.get("ZIRV_UPDATE_NATIVE_SCREENS"):
            golden.write_text(text)
        assert text == golden.read_text(), f"{golden.name} differs:\n{text}"
