"""Pane worktrees on real repositories: create, reclaim when nothing is lost, keep otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepos import make_repo, sh
from zirv_dash import paths
from zirv_dash.repo import worktree
from zirv_dash.repo.worktree import WorktreeError


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_repo(tmp_path, monkeypatch)


def test_create_puts_branch_and_checkout_under_the_state_dir(repo: Path) -> None:
    head = sh(repo, "rev-parse", "HEAD").strip()
    wt = worktree.create(repo, "abc12345")
    expected = paths.state_dir() / "worktrees" / paths.repo_slug(repo) / "abc12345"
    assert Path(wt.path) == expected.resolve()
    assert wt.branch == "zirv/abc12345" and wt.base == head
    assert sh(Path(wt.path), "rev-parse", "--abbrev-ref", "HEAD").strip() == "zirv/abc12345"
    assert (Path(wt.path) / "app.py").is_file()
    assert worktree.load(repo, "abc12345") == wt
    assert [w.short for w in worktree.listed(repo)] == ["abc12345"]
    # The main checkout does not see the pane's checkout as untracked files.
    assert sh(repo, "status", "--porcelain") == ""


def test_never_nested_inside_a_worktree(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(repo / ".state"))
    with pytest.raises(WorktreeError, match="inside the worktree"):
        worktree.create(repo, "abc12345")
    assert "zirv/abc12345" not in sh(repo, "branch", "--list")


def test_never_nested_inside_a_linked_worktree(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = worktree.create(repo, "first111")
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(Path(first.path) / "state"))
    with pytest.raises(WorktreeError, match="inside the worktree"):
        worktree.create(repo, "second22")


def test_created_from_a_linked_worktree_branches_in_the_main_repo(repo: Path) -> None:
    first = worktree.create(repo, "first111")
    second = worktree.create(Path(first.path), "second22")
    assert second.repo == str(repo.resolve())
    assert not Path(second.path).is_relative_to(Path(first.path))


def test_bad_short_and_bad_base_are_refused(repo: Path) -> None:
    with pytest.raises(WorktreeError, match="short id"):
        worktree.create(repo, "../escape")
    with pytest.raises(WorktreeError, match="rev-parse"):
        worktree.create(repo, "abc12345", base="no-such-branch")


def test_reclaim_clean_and_unchanged_removes_checkout_and_branch(repo: Path) -> None:
    wt = worktree.create(repo, "abc12345")
    result = worktree.reclaim(wt)
    assert result.removed and result.reason == "no changes"
    assert not Path(wt.path).exists()
    assert sh(repo, "branch", "--list", "zirv/*") == ""
    assert worktree.load(repo, "abc12345") is None


def test_reclaim_merged_branch(repo: Path) -> None:
    wt = worktree.create(repo, "abc12345")
    (Path(wt.path) / "app.py").write_text("print('changed')\n")
    sh(Path(wt.path), "commit", "--quiet", "-am", "pane work")
    assert not worktree.reclaim(wt).removed  # not merged yet
    sh(repo, "merge", "--quiet", "--ff-only", "zirv/abc12345")
    result = worktree.reclaim(wt)
    assert result.removed and result.reason == "merged"
    assert sh(repo, "branch", "--list", "zirv/*") == ""


def test_keep_dirty_and_unmerged(repo: Path) -> None:
    wt = worktree.create(repo, "abc12345")
    (Path(wt.path) / "scratch.txt").write_text("wip\n")
    kept = worktree.reclaim(wt)
    assert not kept.removed and kept.reason == "uncommitted changes"
    assert Path(wt.path, "scratch.txt").read_text() == "wip\n"
    sh(Path(wt.path), "add", "scratch.txt")
    sh(Path(wt.path), "commit", "--quiet", "-m", "wip")
    kept = worktree.reclaim(wt)
    assert not kept.removed and kept.reason == "1 unmerged commit(s)"
    assert worktree.listed(repo) == [wt]
    assert "zirv/abc12345" in sh(repo, "branch", "--list")


def test_listing_cli_names_kept_worktrees(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wt = worktree.create(repo, "abc12345")
    (Path(wt.path) / "scratch.txt").write_text("wip\n")
    assert worktree.main([str(repo)]) == 0
    out = capsys.readouterr().out
    assert "zirv/abc12345" in out and "uncommitted changes" in out


# -- `zirv agent --worktree` and the spawn request field ---------------------------------


def test_agent_worktree_flag_parses_and_excludes_workdir() -> None:
    from zirv_dash.cli.agent import UsageError, parse_args

    assert parse_args(["demo", "hi", "--worktree"]).worktree is True
    assert parse_args(["demo", "hi"]).worktree is False
    with pytest.raises(UsageError, match="--worktree and --workdir"):
        parse_args(["demo", "hi", "--worktree", "--workdir", "x"])


def test_spawn_request_worktree_field_is_validated_and_round_trips() -> None:
    from zirv_dash.spawn import RequestError, SpawnRequest

    base = {"agent": "demo", "prompt": "hi", "cwd": "/r", "requested_by": "x"}
    req = SpawnRequest.from_json({**base, "worktree": True})
    assert req.worktree and req.to_json()["worktree"] is True
    assert "worktree" not in SpawnRequest.from_json(base).to_json()
    with pytest.raises(RequestError, match="field `worktree` must be true or false"):
        SpawnRequest.from_json({**base, "worktree": "yes"})


def test_agent_worktree_inline_runs_in_a_worktree_and_reclaims_it(
    repo: Path, tmp_path: Path
) -> None:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZIRV_", "CLAUDE"))}
    env.update(ZIRV_CTX_STATE_DIR=os.environ["ZIRV_CTX_STATE_DIR"], SHELL="/bin/sh")
    env.update(ZIRV_HOME=str(tmp_path / "home"), LINES="24", COLUMNS="80")
    got = subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", "agent", "shell", "hi", "--worktree"],
        cwd=repo, env=env, input="pwd; exit 0\n", capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert got.returncode == 0, got.stderr
    root = paths.state_dir() / "worktrees" / paths.repo_slug(repo)
    assert f"running in worktree {root.resolve()}" in got.stderr
    assert str(root.resolve()) in got.stdout + got.stderr  # pwd ran inside it
    assert worktree.listed(repo) == [] and sh(repo, "branch", "--list", "zirv/*") == ""


def test_dashboard_spawn_with_worktree_runs_the_pane_in_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zirv_dash.config.layers import load_settings
    from zirv_dash.dash.dashboard import Dashboard, DashError

    monkeypatch.setenv("SHELL", "/bin/sh")
    dash = Dashboard(load_settings(repo), repo, manage_state=False)
    try:
        pane = dash.spawn("shell", worktree=True)
        record = worktree.load(repo, pane.short)
        assert record is not None and pane.cwd == record.path
        assert record.branch == f"zirv/{pane.short}"
        # A worktree that cannot be made refuses the spawn with the reason.
        monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(repo / "inside"))
        with pytest.raises(DashError, match="own worktree: .*inside the worktree"):
            dash.spawn("shell", worktree=True)
    finally:
        dash.shutdown_all(grace=2.0)
