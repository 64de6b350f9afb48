"""The roster's search filter and grouping, as plain facts (no terminal)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.gitrepos import make_repo, sh
from zirv_dash.dash.roster_view import (
    BRANCH_TTL,
    GroupResolver,
    HeaderLine,
    RowFacts,
    RowGroup,
    RowLine,
    filter_keys,
    group_for,
    layout,
    matches,
)

ROWS = [
    RowFacts("orch0001", "orch", "claude", "working", "main"),
    RowFacts("a1b2c3d4", "a1b2c3d4", "codex", "needs you", "zirv/a1b2c3d4"),
    RowFacts("e5f6a7b8", "e5f6a7b8", "shell", "idle", "feature/login"),
]


def test_every_word_must_match_one_field_case_insensitively() -> None:
    assert filter_keys("", ROWS) == ["orch0001", "a1b2c3d4", "e5f6a7b8"]
    assert filter_keys("CODEX", ROWS) == ["a1b2c3d4"]
    assert filter_keys("needs", ROWS) == ["a1b2c3d4"]  # the state word
    assert filter_keys("login", ROWS) == ["e5f6a7b8"]  # the branch
    assert filter_keys("orch", ROWS) == ["orch0001"]  # the label
    # Two words: both must match, each in any field.
    assert filter_keys("shell idle", ROWS) == ["e5f6a7b8"]
    assert filter_keys("shell working", ROWS) == []
    assert not matches("zzz", ROWS[0])


REPO_A = RowGroup("/r/a/.git", "a", "main")
REPO_B = RowGroup("/r/b/.git", "b", "main")


def test_one_group_draws_no_headers() -> None:
    groups = {"p1": REPO_A, "p2": REPO_A}
    assert layout(["p1", "p2"], groups) == [RowLine("p1"), RowLine("p2")]


def test_members_gather_under_a_header_at_their_first_members_place() -> None:
    groups = {"p1": REPO_A, "p2": REPO_B, "p3": REPO_A, "p4": REPO_B}
    assert layout(["p1", "p2", "p3", "p4"], groups) == [
        HeaderLine(REPO_A.key, "a", ("p1", "p3"), False),
        RowLine("p1", "├"),
        RowLine("p3", "└"),
        HeaderLine(REPO_B.key, "b", ("p2", "p4"), False),
        RowLine("p2", "├"),
        RowLine("p4", "└"),
    ]


def test_a_group_of_one_and_a_row_without_group_stay_flat() -> None:
    groups = {"p1": REPO_A, "p2": REPO_A, "p3": REPO_B}
    assert layout(["p1", "p2", "p3", "ended"], groups) == [
        HeaderLine(REPO_A.key, "a", ("p1", "p2"), False),
        RowLine("p1", "├"),
        RowLine("p2", "└"),
        RowLine("p3"),
        RowLine("ended"),
    ]


def test_a_folded_group_shows_only_its_header_until_a_search_reveals_matches() -> None:
    groups = {"p1": REPO_A, "p2": REPO_A, "p3": REPO_B, "p4": REPO_B}
    keys = ["p1", "p2", "p3", "p4"]
    folded = layout(keys, groups, collapsed={REPO_A.key})
    assert folded[0] == HeaderLine(REPO_A.key, "a", ("p1", "p2"), True)
    assert RowLine("p1", "├") not in folded and folded[1].group == REPO_B.key  # type: ignore[union-attr]
    # A search keeps only the matches, unfolded; a group without a match goes.
    searched = layout(keys, groups, collapsed={REPO_A.key}, shown={"p2"})
    assert searched == [HeaderLine(REPO_A.key, "a", ("p2",), False), RowLine("p2", "└")]


@dataclass
class FakePaneFacts:
    """The facts the resolver reads off a pane (a real Pane has more)."""

    short: str
    cwd: str
    remote_host: str = ""


def test_groups_follow_real_checkouts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path, monkeypatch)
    other = tmp_path / "other"
    other.mkdir()
    sh(other, "init", "--quiet", "--initial-branch=trunk")
    linked = tmp_path / "linked"
    sh(repo, "worktree", "add", "--quiet", "-b", "zirv/abcd1234", str(linked))
    sub = repo / "src"
    sub.mkdir()
    plain = tmp_path / "plain"
    plain.mkdir()

    # By repository: the main checkout, a subdirectory and a linked worktree agree.
    by_repo = {str(p): group_for(str(p), "repo") for p in (repo, sub, linked, other, plain)}
    assert by_repo[str(repo)] == by_repo[str(sub)]
    assert by_repo[str(repo)] is not None and by_repo[str(linked)] is not None
    assert by_repo[str(repo)].key == by_repo[str(linked)].key  # type: ignore[union-attr]
    assert by_repo[str(repo)].title == "repo"  # type: ignore[union-attr]
    assert by_repo[str(linked)].branch == "zirv/abcd1234"  # type: ignore[union-attr]
    assert by_repo[str(other)].title == "other"  # type: ignore[union-attr]
    assert by_repo[str(plain)] == RowGroup(str(plain), "plain", "")
    # By worktree: each checkout alone, titled by its branch.
    main, wt = group_for(str(repo), "worktree"), group_for(str(linked), "worktree")
    assert main is not None and wt is not None and main.key != wt.key
    assert (main.title, wt.title) == ("main", "zirv/abcd1234")
    assert group_for(str(repo), "none") is None

    resolver = GroupResolver("repo")
    found = resolver.groups([FakePaneFacts("p1", str(repo)), FakePaneFacts("p2", str(linked))])
    assert found["p1"].key == found["p2"].key


def test_the_resolver_rereads_the_branch_after_its_ttl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path, monkeypatch)
    resolver = GroupResolver("repo")
    first = resolver.group("p1", str(repo), now=100.0)
    sh(repo, "checkout", "--quiet", "-b", "topic")
    assert resolver.group("p1", str(repo), now=100.5) == first  # cached
    later = resolver.group("p1", str(repo), now=100.0 + BRANCH_TTL + 1)
    assert first is not None and later is not None
    assert (first.branch, later.branch) == ("main", "topic")
