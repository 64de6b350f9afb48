"""Panes opened from the spawn dialog (`Ctrl+A s`) are delegations like `zirv
agent`'s: a handle and a record owned by the operator, listed by `zirv ctx
status --agents`, and the writer permit applies — a second writer into the same
tree is refused naming the holder, with its own worktree it runs (Pilot)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Label, OptionList

from screens.app import ZirvApp
from screens.spawn import SpawnScreen
from tests.apphelpers import dash_screen, make_app, wait_for
from tests.test_delegation_records import ctx
from tests.test_spawn import make_repo
from widgets.tick_box import TickBox
from zirv_dash.delegation import records

pytestmark = pytest.mark.timeout(60)


def live_app(repo: Path) -> ZirvApp:
    app = make_app(repo, agent="shell", flags={"dash": {"idle_quiet_ms": 300}})
    app.options.manage_state = True
    return app


async def open_dialog(app: ZirvApp, pilot: Any) -> SpawnScreen:
    await pilot.press("ctrl+a", "s")
    await wait_for(pilot, lambda: isinstance(app.screen, SpawnScreen))
    dialog = app.screen
    assert isinstance(dialog, SpawnScreen)
    options = dialog.query_one("#harness", OptionList)
    options.highlighted = next(i for i, (name, _) in enumerate(dialog.choices) if name == "demo")
    dialog.query_one("#prompt", Input).value = "write things"
    return dialog


async def test_dialog_panes_get_records_and_the_writer_permit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    app = live_app(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        (await open_dialog(app, pilot)).action_submit()
        await wait_for(pilot, lambda: len(dash.panes) == 2)
        first = dash.panes[1]
        record = records.by_short(repo, first.short)
        assert record is not None and record.owner == "operator"
        assert record.harness == "demo" and record.permit == str(repo)
        listed = ctx(["status", "--agents", "--json"], repo)
        assert listed.returncode == 0, listed.stderr
        (row,) = json.loads(listed.stdout)
        assert (row["handle"], row["owner"], row["permit"]) == (
            record.handle,
            "operator",
            str(repo),
        )

        # A second writer into the same tree: refused in the dialog, naming the
        # holder and offering a worktree of its own; the dialog stays open.
        dialog = await open_dialog(app, pilot)
        dialog.action_submit()
        await pilot.pause()
        assert app.screen is dialog and len(dash.panes) == 2
        refusal = str(dialog.query_one("#error", Label).render())
        assert "already has a writer" in refusal and record.handle in refusal
        assert first.short in refusal and "owner operator" in refusal
        assert "own git worktree" in refusal

        # With the worktree box ticked it runs, and holds that tree's permit.
        dialog.query_one("#worktree", TickBox).value = True
        dialog.action_submit()
        await wait_for(pilot, lambda: len(dash.panes) == 3, timeout=30)
        third = dash.panes[2]
        await wait_for(pilot, lambda: records.by_short(repo, third.short) is not None)
        other = records.by_short(repo, third.short)
        assert other is not None and other.worktree
        assert other.permit == str(Path(third.cwd).resolve())

        # Past the dialog (a race with another writer), the engine refuses too.
        assert screen.engine.spawn_for_operator("demo", None, None, str(repo)) is None
        assert any(
            "already has a writer" in e.text and record.handle in e.text
            for e in dash.errors.entries
        )
        assert len(dash.panes) == 3

        # The first ends: its record ends and its permit is given back.
        assert first.pty is not None
        first.pty.force_stop()
        await wait_for(
            pilot, lambda: records.read(repo, record.handle).state == "ended", timeout=20
        )
        assert records.read(repo, record.handle).permit is None
        # … so the tree takes a new writer from the dialog.
        (await open_dialog(app, pilot)).action_submit()
        await wait_for(pilot, lambda: len(dash.panes) == 4)
        fourth = records.by_short(repo, dash.panes[3].short)
        assert fourth is not None and fourth.permit == str(repo)
