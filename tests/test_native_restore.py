"""Native conversations come back: Ctrl+Q asks before ending one mid-turn and
its ended row restores it from its journal; a clean quit restores the native
orchestrator; a dashboard killed mid tool call leaves a conversation the next
launch offers to reopen, the interrupted call shown as `outcome unknown` and
never re-run."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from screens.quit_confirm import QuitConfirmScreen
from screens.restore import RestoreScreen
from tests.apphelpers import dash_screen, make_app, quit_app, wait_for
from widgets.native_composer import NativeComposer
from zirv_dash import paths
from zirv_dash.attention.states import PaneState
from zirv_dash.intake.menu import menu_entries
from zirv_dash.native.journal import Journal, journal_path
from zirv_dash.runtime.native_pane import NativeSessionPane

ORCH = "0a1b2c3d-1111-4222-8333-444455556666"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path.resolve()


def managed(repo: Path, **kw: Any) -> Any:
    app = make_app(repo, agent="native", **kw)
    app.options.manage_state = True
    return app


def native_panes(app: Any) -> list[NativeSessionPane]:
    return [p for p in dash_screen(app).dash.panes if isinstance(p, NativeSessionPane)]


def texts(pane: NativeSessionPane, kind: str) -> list[str]:
    assert pane.session is not None
    return [i.text for i in pane.session.snapshot().transcript.items if i.kind == kind]


def tool_outcomes(pane: NativeSessionPane) -> list[str]:
    assert pane.session is not None
    items = pane.session.snapshot().transcript.items
    return [i.outcome.kind for i in items if i.kind == "tool" and i.outcome is not None]


async def test_ctrl_q_mid_turn_asks_first_and_the_ended_row_restores_from_the_journal(
    repo: Path,
) -> None:
    app = make_app(repo, agent="native", extra=[("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.dash.panes) == 2 and bool(screen.native_views))
        pane = native_panes(app)[0]
        session = pane.session
        assert session is not None
        await wait_for(pilot, lambda: isinstance(app.focused, NativeComposer))
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: session.pending is not None, timeout=20)
        assert screen.dash.state_of(pane) is PaneState.NEEDS_YOU
        # Ctrl+Q mid-turn asks; Esc keeps the conversation as it was.
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, QuitConfirmScreen))
        dialog = app.screen
        assert isinstance(dialog, QuitConfirmScreen)
        assert dialog.subject.title == f"end the conversation in {pane.short}"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, QuitConfirmScreen))
        assert pane.alive and not session.closed and session.pending is not None
        # Asked again and confirmed: it ends.
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, QuitConfirmScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: not pane.alive)
        assert session.closed
        # Its row restores it: a new pane over the same conversation.
        entries = {e.label: e for e in menu_entries(screen.engine.intake.intake, pane)}
        assert entries["restore"].disabled is None
        new = screen.engine.intake.relaunch(pane)
        assert isinstance(new, NativeSessionPane) and new.alive and new is not pane
        assert new.role == pane.role and new.session is not None
        assert texts(new, "user") == ["hello"]
        assert tool_outcomes(new)[-1] == "cancelled"  # closed while it waited: not run
        assert pane not in screen.dash.panes
        assert not journal_path(pane.short).exists()  # the journal went with it
        # The reopened conversation goes on.
        new.session.submit("again")
        await wait_for(pilot, lambda: new.session is not None and new.session.pending is not None)
        assert texts(new, "user") == ["hello", "again"]


async def test_ctrl_q_on_an_idle_native_pane_ends_it_without_asking(repo: Path) -> None:
    app = make_app(repo, agent="native", extra=[("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.dash.panes) == 2 and bool(screen.native_views))
        pane = native_panes(app)[0]
        await wait_for(pilot, lambda: isinstance(app.focused, NativeComposer))
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not pane.alive)
        assert not isinstance(app.screen, QuitConfirmScreen)
        # Nothing was said: there is nothing to restore.
        entries = {e.label: e for e in menu_entries(screen.engine.intake.intake, pane)}
        assert entries["restore"].disabled == "no conversation in its journal"


async def test_a_clean_quit_restores_the_native_orchestrator(repo: Path) -> None:
    first = managed(repo, session_ids=[ORCH])
    async with first.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(first)
        await wait_for(pilot, lambda: bool(screen.native_views))
        orch = native_panes(first)[0]
        assert orch.role == "orchestrator" and orch.short == "0a1b2c3d"
        await wait_for(pilot, lambda: isinstance(first.focused, NativeComposer))
        await pilot.press(*"remember the plan", "enter")
        session = orch.session
        assert session is not None
        await wait_for(pilot, lambda: session.pending is not None, timeout=20)
        session.answer(session.pending.call_id, "deny")  # type: ignore[union-attr]
        await wait_for(pilot, lambda: session.state == "completed", timeout=20)
        await quit_app(pilot, first)
    second = managed(repo)
    async with second.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(second.screen, RestoreScreen), timeout=20)
        overlay = second.screen
        assert isinstance(overlay, RestoreScreen)
        assert overlay.body().plain == "[x] orchestrator · native · zirv/demo · 0a1b2c3d"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(p.short == "0a1b2c3d" for p in native_panes(second)))
        back = next(p for p in native_panes(second) if p.short == "0a1b2c3d")
        assert back.role == "orchestrator" and back.alive
        assert texts(back, "user")[0] == "remember the plan"
        # The blank orchestrator this launch opened gave way to it: one is live.
        await wait_for(
            pilot,
            lambda: [p.short for p in native_panes(second) if p.alive] == ["0a1b2c3d"],
        )
        await quit_app(pilot, second)


def killed_mid_call(
    repo: Path, marker: Path, session_id: str = "5e5e5e5e-1111-4222-8333-444455556666"
) -> str:
    """The journal a dashboard killed with -9 while `run_command` ran leaves:
    every step was committed before it was taken, nothing after."""
    journal = Journal(journal_path(paths.short_id(session_id)))
    where = {"session": session_id, "role": "orchestrator", "workdir": str(repo)}
    journal.append("open", route="demo", model="demo", **where)
    journal.append("input", id="in-1", text="make the marker", steering=False, files=[])
    journal.append("assistant", id="m-1", text="Running it.")
    args = {"command": f"touch {marker}"}
    journal.append("tool_call", id="c-1", message_id="m-1", name="run_command", arguments=args)
    journal.append("approval_request", id="c-1", scope=f"run_command touch {marker}")
    journal.append("approval", id="c-1", answer="once", scope="", guidance="")
    journal.append("tool_start", id="c-1")
    journal.close()
    return paths.short_id(session_id)


async def test_a_conversation_a_killed_dashboard_left_is_offered_and_nothing_reruns(
    repo: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    short = killed_mid_call(repo, marker)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # The same, in another repository: not this dashboard's to offer.
    killed_mid_call(elsewhere, marker, "6f6f6f6f-1111-4222-8333-444455556666")
    app = managed(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen), timeout=20)
        overlay = app.screen
        assert isinstance(overlay, RestoreScreen)
        assert overlay.body().plain == f"[x] orchestrator · native · {short}"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(p.short == short for p in native_panes(app)))
        back = next(p for p in native_panes(app) if p.short == short)
        assert texts(back, "user") == ["make the marker"]
        assert tool_outcomes(back) == ["unknown"]
        notices = texts(back, "notice")
        assert any("outcome is unknown and they were not re-run" in n for n in notices)
        assert not marker.exists()  # never re-run
        assert back.session is not None and back.session.pending is None
        await quit_app(pilot, app)
    assert not marker.exists()


async def test_an_orchestrator_ended_with_ctrl_q_comes_back_at_the_next_launch(
    repo: Path,
) -> None:
    first = managed(repo, session_ids=[ORCH])
    async with first.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(first)
        await wait_for(pilot, lambda: bool(screen.native_views))
        orch = native_panes(first)[0]
        session = orch.session
        assert session is not None
        await wait_for(pilot, lambda: isinstance(first.focused, NativeComposer))
        await pilot.press(*"keep this", "enter")
        await wait_for(pilot, lambda: session.pending is not None, timeout=20)
        session.answer(session.pending.call_id, "deny")  # type: ignore[union-attr]
        await wait_for(pilot, lambda: session.state == "completed", timeout=20)
        await pilot.press("ctrl+q")  # idle: it ends at once (no question)
        await wait_for(pilot, lambda: not orch.alive, timeout=20)
        # The dashboard stays on the ended pane (its exit shown) until it is quit.
        assert first.is_running
        await quit_app(pilot, first)
    second = managed(repo)
    async with second.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(second.screen, RestoreScreen), timeout=20)
        overlay = second.screen
        assert isinstance(overlay, RestoreScreen)
        assert "[x] orchestrator · native" in overlay.body().plain
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(p.short == "0a1b2c3d" for p in native_panes(second)))
        back = next(p for p in native_panes(second) if p.short == "0a1b2c3d")
        assert texts(back, "user")[0] == "keep this"
        await quit_app(pilot, second)


def test_unfinished_finds_only_this_repos_recent_stopped_conversations(
    repo: Path, tmp_path: Path
) -> None:
    import os
    import time

    from zirv_dash.native import reopen

    marker = tmp_path / "marker"
    killed = killed_mid_call(repo, marker)
    ended = killed_mid_call(repo, marker, "7a7a7a7a-1111-4222-8333-444455556666")
    journal = Journal(journal_path(ended))
    journal.append("ended", reason="closed by the operator")
    journal.close()
    old = killed_mid_call(repo, marker, "8b8b8b8b-1111-4222-8333-444455556666")
    week = time.time() - 7 * 86400
    os.utime(journal_path(old), (week, week))
    blank = Journal(journal_path("9c9c9c9c"))
    blank.append("open", route="demo", model="demo", session="9c9c9c9c-1", workdir=str(repo))
    blank.close()
    found = reopen.unfinished(repo, set(), max_age_secs=86400)
    assert [c.name for c in found] == [killed]
    assert found[0].role == "orchestrator" and found[0].workdir == str(repo)
    assert reopen.unfinished(repo, {killed}, max_age_secs=86400) == []
    assert reopen.unfinished(tmp_path / "other", set(), max_age_secs=86400) == []
