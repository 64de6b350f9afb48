"""The diff review overlay on real repositories, driven with Pilot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from screens.diff_review import DiffReviewScreen
from screens.review_target import CommentRoute, ReviewTarget
from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from tests.gitrepos import make_repo, sh
from tests.reviewapp import ReviewApp, loaded, until
from widgets.diff_view import DiffView
from zirv_dash import paths
from zirv_dash.mail import mailbox as mail
from zirv_dash.repo import worktree


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = make_repo(tmp_path, monkeypatch)
    (repo / "app.py").write_text("def greet(name):\n    return 'hello ' + name\n")
    (repo / "todo.txt").write_text("first\nsecond\n")
    return repo


def head_target(repo: Path) -> ReviewTarget:
    return ReviewTarget(cwd=repo, base="HEAD", label="pane abcd1234 (demo)")


def route(repo: Path) -> CommentRoute:
    return CommentRoute(
        slug=paths.repo_slug(repo),
        from_session="dashsess",
        from_agent="operator",
        to_agent="demo",
        to_session="abcd1234-0000-0000-0000-000000000000",
    )


def file_names(app: ReviewApp) -> list[str]:
    result = app.review.result
    assert result is not None
    return [f.path for f in result.files]


async def test_opens_with_files_counts_and_switches(repo: Path) -> None:
    app = ReviewApp(head_target(repo))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        assert file_names(app) == ["app.py", "todo.txt"]
        result = app.review.result
        assert result is not None
        assert (result.files[0].added, result.files[0].removed) == (1, 4)
        assert result.files[1].untracked and result.files[1].added == 2
        view = app.screen.query_one(DiffView)
        assert view.split and view.file is not None and view.file.path == "app.py"
        await pilot.press("n")
        assert app.review.current_file is not None
        assert app.review.current_file.path == "todo.txt"
        await pilot.press("p")
        assert view.file.path == "app.py"
        await pilot.press("right_square_bracket")
        assert view.file.path == "todo.txt"
        # A click on the list's first row selects that file.
        await pilot.click("#review-files", offset=(3, 0))
        await until(pilot, lambda: view.file is not None and view.file.path == "app.py")


async def test_narrow_terminal_shows_unified(repo: Path) -> None:
    app = ReviewApp(head_target(repo))
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        view = app.screen.query_one(DiffView)
        assert not view.split
        # Unified: every removed and added line has its own row.
        assert sum(1 for r in view.rows if r.old is not None and r.new is None) == 4


async def test_commit_with_message(repo: Path) -> None:
    app = ReviewApp(head_target(repo))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("c")
        await pilot.press(*"review fixes")
        await pilot.press("enter")
        await until(pilot, lambda: app.review.result is not None and not app.review.result.files)
        assert sh(repo, "log", "-1", "--format=%s").strip() == "review fixes"
        assert sh(repo, "status", "--porcelain") == ""


async def test_discard_asks_first(repo: Path) -> None:
    app = ReviewApp(head_target(repo))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("x", "n")
        await pilot.pause(0.2)
        assert "hello" in (repo / "app.py").read_text()
        assert app.review.mode == "browse"
        await pilot.press("x", "y")
        await until(pilot, lambda: file_names(app) == ["todo.txt"])
        assert "hi " in (repo / "app.py").read_text()


async def test_escape_cancels_prompt_then_closes(repo: Path) -> None:
    app = ReviewApp(head_target(repo))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("c", "escape")
        assert app.review.mode == "browse"
        await pilot.press("escape")
        await until(pilot, lambda: len(app.screen_stack) == 1)


async def test_comment_on_a_line_becomes_mail(repo: Path) -> None:
    app = ReviewApp(head_target(repo), route(repo))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        view = app.screen.query_one(DiffView)
        row = view.current_row
        assert row is not None and row.new is not None and row.new.new_no == 2
        await pilot.press("m", *"use an f-string", "enter")
        await until(pilot, lambda: "mailed" in str(app.review.query_one("#review-status").render()))
    (message,) = mail.list_messages(paths.repo_slug(repo))
    assert message.to_session == "abcd1234-0000-0000-0000-000000000000"
    assert message.body.startswith("Review comment on app.py:2\n> return 'hello ' + name")
    assert "use an f-string" in message.body


async def test_worktree_pane_diffs_against_its_base(repo: Path) -> None:
    sh(repo, "add", "-A")
    sh(repo, "commit", "--quiet", "-m", "second")
    wt = worktree.create(repo, "abcd1234")
    (Path(wt.path) / "app.py").write_text("print('pane')\n")
    sh(Path(wt.path), "commit", "--quiet", "-am", "pane commit")
    target = ReviewTarget(Path(wt.path), wt.base, "pane abcd1234", wt.branch)
    app = ReviewApp(target)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        assert file_names(app) == ["app.py"]
        assert "zirv/abcd1234" in str(app.review.query_one("#review-title").render())


# -- in the running dashboard (real panes) ---------------------------------------------


async def _worktree_pane(pilot: Any, app: Any) -> Any:
    screen = dash_screen(app)
    await wait_for(pilot, lambda: len(screen.dash.panes) == 1, timeout=30)
    screen.engine.worktrees.spawn("shell", None, None)
    await wait_for(pilot, lambda: len(screen.dash.panes) == 2, timeout=20)
    return screen.dash.panes[1]


async def test_dashboard_worktree_pane_reclaimed_when_clean(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    app = make_app(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = await _worktree_pane(pilot, app)
        record = worktree.load(repo, pane.short)
        assert record is not None and pane.cwd == record.path
        assert record.branch == f"zirv/{pane.short}"
        dash = dash_screen(app).dash

        def seen() -> str:
            errors = [e.text for e in dash.errors.entries]
            return f"pane alive={pane.alive} notice={dash.current_notice()!r} errors={errors}"

        # Typed at the shell's prompt, as the operator would.
        await wait_for(pilot, lambda: screen_text(pane).strip() != "", timeout=30, what=seen)
        pane.send(b"exit\n")
        await wait_for(pilot, lambda: not pane.alive, timeout=30, what=seen)
        # The record goes last, after the checkout and the branch.
        await wait_for(
            pilot, lambda: worktree.load(repo, pane.short) is None, timeout=30, what=seen
        )
        assert not Path(record.path).exists()
        assert sh(repo, "branch", "--list", "zirv/*") == ""


async def test_dashboard_worktree_pane_kept_when_dirty_and_reviewed(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    app = make_app(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = await _worktree_pane(pilot, app)
        record = worktree.load(repo, pane.short)
        assert record is not None
        screen = dash_screen(app)
        pane.send(b"echo pane work > work.txt\n")
        await wait_for(pilot, lambda: Path(record.path, "work.txt").exists())
        screen.run_chord("diff_review")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffReviewScreen))
        review = app.screen
        assert isinstance(review, DiffReviewScreen)
        assert review.target.cwd == Path(record.path) and review.target.base == record.base
        await wait_for(pilot, lambda: review.result is not None)
        assert review.result is not None
        assert [f.path for f in review.result.files] == ["work.txt"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, DiffReviewScreen))
        pane.send(b"exit\n")
        await wait_for(pilot, lambda: "kept" in (screen.dash.current_notice() or ""), timeout=20)
        assert "uncommitted changes" in (screen.dash.current_notice() or "")
        assert Path(record.path, "work.txt").exists()
        assert worktree.listed(repo) == [record]


async def test_edit_without_a_suspendable_terminal_says_so(repo: Path) -> None:
    # Headless runs cannot hand the terminal to an editor: a clear line, no crash.
    app = ReviewApp(head_target(repo))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("e")
        status = str(app.review.query_one("#review-status").render())
        assert "cannot be suspended" in status


async def test_w_lists_kept_worktrees(repo: Path) -> None:
    kept = worktree.create(repo, "keep1234")
    (Path(kept.path) / "wip.txt").write_text("wip\n")
    app = ReviewApp(ReviewTarget(repo, "HEAD", "pane x", repo=repo))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("w")
        status = app.review.query_one("#review-status")
        await until(pilot, lambda: "pane worktrees:" in str(status.render()))
        assert "zirv/keep1234 (uncommitted changes)" in str(status.render())


async def test_the_spawn_dialog_toggle_and_the_chord(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl+A s with "own git worktree" ticked opens the pane in its own worktree;
    Ctrl+A D opens the review of the focused pane."""
    from screens.spawn import SpawnScreen

    monkeypatch.setenv("SHELL", "/bin/sh")
    app = make_app(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.dash.panes) == 1)
        await pilot.press("ctrl+a", "s")
        await wait_for(pilot, lambda: isinstance(app.screen, SpawnScreen))
        await pilot.press(*"shell")
        app.screen.query_one("#worktree").value = True  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(screen.dash.panes) == 2, timeout=20)
        pane = screen.dash.panes[1]
        record = worktree.load(repo, pane.short)
        assert record is not None and pane.cwd == record.path
        await pilot.press("ctrl+a", "D")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffReviewScreen))
        assert app.screen.target.cwd == Path(record.path)  # type: ignore[attr-defined]
