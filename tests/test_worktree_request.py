"""A spawn request with `worktree: true` opens its pane in a worktree of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.intakehelpers import ask, git_repo, live_dashboard, private_channel, request
from zirv_dash.repo import worktree

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return git_repo(tmp_path, commit=True)


def test_a_worktree_request_runs_in_its_own_worktree(repo: Path) -> None:
    with live_dashboard(repo) as (dash, intake):
        orch = dash.panes[0]
        channel = private_channel(intake, orch.short)
        ack = ask(dash, intake, channel, request(repo, agent="shell", worktree=True))
        assert ack is not None and ack.ok and ack.short, ack
        pane = dash.pane_by_short(ack.short)
        assert pane is not None
        root = worktree.worktrees_root(repo)
        assert Path(pane.cwd).parent == root and Path(pane.cwd).name == pane.short
        assert (Path(pane.cwd) / ".git").is_file()
