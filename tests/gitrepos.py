"""Real git repositories in temp dirs for worktree and diff tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    # Fixed dates give fixed commit ids, so a snapshot can show a base sha.
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


def sh(cwd: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(cwd), *args], capture_output=True, text=True, check=True, timeout=30
    )
    return out.stdout


def make_repo(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with two committed files on branch main."""
    for name, value in IDENTITY.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(root / "no-global-gitconfig"))
    repo = root / "repo"
    repo.mkdir()
    sh(repo, "init", "--quiet", "--initial-branch=main")
    app = "def greet(name):\n    return 'hi ' + name\n\n\nprint(greet('x'))\n"
    (repo / "app.py").write_text(app)
    (repo / "notes.md").write_text("# Notes\n\none\ntwo\nthree\n")
    sh(repo, "add", "-A")
    sh(repo, "commit", "--quiet", "-m", "initial")
    return repo
