"""The diff model from real `git diff` output: counts, line numbers, untracked files, actions."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepos import make_repo, sh
from zirv_dash.repo import gitdiff, worktree
from zirv_dash.repo.gitdiff import EMPTY_TREE
from zirv_dash.repo.worktree import WorktreeError


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_repo(tmp_path, monkeypatch)


def by_path(result: gitdiff.DiffResult) -> dict[str, gitdiff.FileDiff]:
    return {f.path: f for f in result.files}


def test_counts_and_line_numbers_against_head(repo: Path) -> None:
    (repo / "notes.md").write_text("# Notes\n\none\nTWO\nthree\nfour\n")
    (repo / "new file.txt").write_text("a\nb\n")
    (repo / "app.py").unlink()
    files = by_path(gitdiff.collect(repo))
    assert sorted(files) == ["app.py", "new file.txt", "notes.md"]
    notes = files["notes.md"]
    assert (notes.status, notes.added, notes.removed) == ("modified", 2, 1)
    lines = notes.hunks[0].lines
    removed = next(line for line in lines if line.kind == "del")
    added = [line for line in lines if line.kind == "add"]
    assert (removed.text, removed.old_no) == ("two", 4)
    assert [(a.text, a.new_no) for a in added] == [("TWO", 4), ("four", 6)]
    assert files["app.py"].status == "deleted" and files["app.py"].removed == 5
    untracked = files["new file.txt"]
    assert untracked.untracked and untracked.status == "added" and untracked.added == 2


def test_worktree_diff_includes_commits_since_base(repo: Path) -> None:
    wt = worktree.create(repo, "abc12345")
    here = Path(wt.path)
    (here / "app.py").write_text("print('one')\n")
    sh(here, "commit", "--quiet", "-am", "committed")
    (here / "notes.md").write_text("# Notes\n")
    result = gitdiff.collect(here, wt.base)
    files = by_path(result)
    assert files["app.py"].added == 1 and files["app.py"].removed == 5
    assert files["notes.md"].removed == 4
    assert (result.added, result.removed) == (1, 9)


def test_renames_binaries_and_odd_names(repo: Path) -> None:
    sh(repo, "mv", "notes.md", "docs.md")
    (repo / "blob.bin").write_bytes(b"\0\1\2")
    sh(repo, "add", "blob.bin")
    (repo / "ünï côde.txt").write_text("x\n")
    sh(repo, "add", "ünï côde.txt")
    files = by_path(gitdiff.collect(repo))
    assert files["docs.md"].status == "renamed" and files["docs.md"].old_path == "notes.md"
    assert files["blob.bin"].binary
    assert files["ünï côde.txt"].added == 1


def test_repository_without_commits_diffs_against_the_empty_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_repo(tmp_path, monkeypatch)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    sh(fresh, "init", "--quiet")
    (fresh / "a.txt").write_text("1\n")
    result = gitdiff.collect(fresh)
    assert result.base == EMPTY_TREE and by_path(result)["a.txt"].added == 1


def test_commit_all_then_nothing_left_against_head(repo: Path) -> None:
    (repo / "notes.md").write_text("changed\n")
    (repo / "extra.txt").write_text("new\n")
    sha = gitdiff.commit_all(repo, "review commit")
    assert sh(repo, "log", "-1", "--format=%s").strip() == "review commit"
    assert sha and gitdiff.collect(repo).files == []


def test_discard_restores_modified_and_removes_added(repo: Path) -> None:
    (repo / "notes.md").write_text("changed\n")
    (repo / "extra.txt").write_text("new\n")
    (repo / "staged.txt").write_text("staged\n")
    sh(repo, "add", "staged.txt")
    result = gitdiff.collect(repo)
    for f in result.files:
        gitdiff.discard(repo, f, result.base)
    assert gitdiff.collect(repo).files == []
    assert (repo / "notes.md").read_text().startswith("# Notes")
    assert not (repo / "extra.txt").exists() and not (repo / "staged.txt").exists()


def test_parse_quoted_paths_and_no_newline_marker() -> None:
    patch = (
        'diff --git "a/sp\\303\\251c" "b/sp\\303\\251c"\n'
        "index 1..2 100644\n"
        '--- "a/sp\\303\\251c"\n'
        '+++ "b/sp\\303\\251c"\n'
        "@@ -1 +1 @@\n"
        "-old\n"
        "\\ No newline at end of file\n"
        "+--- new\n"
    )
    (f,) = gitdiff.parse_diff(patch)
    assert f.path == "spéc" and (f.added, f.removed) == (1, 1)
    assert f.hunks[0].lines[-1].text == "--- new"


def test_not_a_repository_is_a_clear_error(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(WorktreeError, match=r"plain is not inside a git repository"):
        gitdiff.collect(plain)
