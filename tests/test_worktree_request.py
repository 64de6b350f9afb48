"""A spawn request with `worktree: true` opens its pane in a worktree of its own."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_intake import ask, close, private_channel, request
from zirv_dash import worktree
from zirv_dash.config import load_settings
from zirv_dash.dashboard import Dashboard
from zirv_dash.intake import Intake

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    path = (tmp_path / "work" / "repo").resolve()
    path.mkdir(parents=True)
    for args in (["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                                   "--allow-empty", "-m", "first"]):  # fmt: skip
        subprocess.run(["git", "-C", str(path), *args], check=True)
    yield path


def test_a_worktree_request_runs_in_its_own_worktree(repo: Path) -> None:
    dash = Dashboard(load_settings(repo), repo, manage_state=True)
    intake = Intake(dash)
    intake.start()
    orch = dash.spawn("shell", role="orchestrator")
    try:
        channel = private_channel(intake, orch.short)
        ack = ask(dash, intake, channel, request(repo, agent="shell", worktree=True))
        assert ack is not None and ack.ok and ack.short, ack
        pane = dash.pane_by_short(ack.short)
        assert pane is not None
        root = worktree.worktrees_root(repo)
        assert Path(pane.cwd).parent == root and Path(pane.cwd).name == pane.short
        assert (Path(pane.cwd) / ".git").is_file()
    finally:
        close(dash)
        intake.on_quit()
