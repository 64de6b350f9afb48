"""`zirv agent` at its edges: a harness that is not installed is explained the way
the spawn dialog explains it, and a `--worktree` receipt names the worktree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.intakehelpers import drive, git_repo, live_dashboard, plain_shell_env
from zirv_dash import paths
from zirv_dash.harnesses import adapters
from zirv_dash.repo import worktree

pytestmark = pytest.mark.timeout(60)


def agent_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "zirv_dash.cli.main", "agent", *args]


def agent_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZIRV_CTX_SESSION", "CLAUDE"))}
    env.pop("ZIRV_CTX_DASH_REQUESTS", None)
    env.update(SHELL="/bin/sh", LINES="24", COLUMNS="80")
    env.update(extra or {})
    return env


@pytest.fixture
def bare_path(tmp_path: Path) -> str:
    """A PATH holding git and nothing else: no vendor CLI can be found on it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    git = shutil.which("git")
    assert git is not None
    (bin_dir / "git").symlink_to(git)
    return str(bin_dir)


@pytest.mark.parametrize("worktree_flag", [[], ["--worktree"]])
def test_a_missing_harness_is_explained_not_errno(
    tmp_path: Path, bare_path: str, worktree_flag: list[str]
) -> None:
    repo = git_repo(tmp_path, commit=True)
    got = subprocess.run(
        agent_argv("codex", "fix it", "--json", *worktree_flag),
        cwd=repo, env=agent_env({"PATH": bare_path}), capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    words = adapters.ADAPTERS["codex"].missing_words()
    assert words == "codex is not installed: `codex` is not on PATH"  # the spawn dialog's
    assert got.returncode == 127, got.stderr
    assert "Errno" not in got.stderr + got.stdout
    assert f"zirv agent: {words}" in got.stderr
    doc = json.loads(got.stdout)
    assert doc["state"] == "launch_failed" and doc["reason"] == words
    # Nothing was made for a run that cannot start.
    assert worktree.listed(repo) == []


def test_a_worktree_receipt_names_the_worktree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain_shell_env(monkeypatch)
    repo = git_repo(tmp_path, commit=True)
    with live_dashboard(repo) as (dash, intake):
        proc = subprocess.Popen(
            agent_argv("shell", "echo hi", "--worktree", "--json"),
            cwd=repo, env=agent_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            drive(dash, intake, lambda: proc.poll() is not None, timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
            out, errs = proc.communicate(timeout=10)
        assert proc.returncode == 0, errs
        doc = json.loads(out)
        assert doc["mode"] == "dashboard_pane" and doc["state"] == "launched"
        pane = dash.pane_by_short(doc["session"])
        assert pane is not None and pane.cwd != str(repo)
        assert doc["workdir"] == pane.cwd
        record = worktree.load(repo, pane.short)
        assert record is not None and record.path == pane.cwd
        assert Path(pane.cwd).parent == worktree.worktrees_root(repo)
        assert paths.state_dir() in Path(pane.cwd).parents
