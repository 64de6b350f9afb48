"""How the diff review looks: side by side at 120x40, unified at 80x24."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from screens.review_target import ReviewTarget
from tests.gitrepos import make_repo
from tests.reviewapp import ReviewApp, loaded


@pytest.fixture
def review_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ReviewApp:
    # The snapshot PATH hides vendor CLIs; give back git alone.
    git = shutil.which("git", path=os.defpath) or "/usr/bin/git"
    bin_dir = tmp_path / "git-bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(git)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    repo = make_repo(tmp_path, monkeypatch)
    (repo / "app.py").write_text(
        "def greet(name: str) -> str:\n    return f'hello {name}'\n\n\nprint(greet('x'))\n"
    )
    (repo / "notes.md").write_text("# Notes\n\none\nthree\nfour\n")
    (repo / "todo.txt").write_text("write the README section\n")
    return ReviewApp(ReviewTarget(repo, "HEAD", "pane abcd1234 (demo)"))


def test_diff_review_side_by_side_120x40(snap_compare: Any, review_app: ReviewApp) -> None:
    assert snap_compare(review_app, terminal_size=(120, 40), run_before=loaded)


def test_diff_review_unified_80x24(snap_compare: Any, review_app: ReviewApp) -> None:
    assert snap_compare(review_app, terminal_size=(80, 24), run_before=loaded)
