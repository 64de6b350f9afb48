"""What the sidebar roster shows: the search filter and the grouping of rows.

Pure functions over plain facts (no Textual, no terminal): the sidebar turns its
rows into `RowFacts`, asks `matches` which ones the query keeps, and `layout`
arranges the kept keys under group headers. `GroupResolver` finds each pane's
group (its repository, or its checkout when grouping by worktree) from the
pane's cwd with a few small file reads (`zirv_dash.repo.gitinfo`), never running git,
so it is cheap enough for every chrome refresh.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from zirv_dash.repo import gitinfo

GroupBy = Literal["none", "repo", "worktree"]
GROUP_BY: tuple[GroupBy, ...] = ("none", "repo", "worktree")
BRANCH_TTL = 10.0
"""Seconds a pane's branch is reused before `.git/HEAD` is read again: an agent may
switch branches, but an idle dashboard must not stat every pane's tree each second."""


@dataclass(frozen=True)
class RowFacts:
    """What the search looks at in one roster row."""

    key: str
    label: str
    harness: str
    state: str
    """The state word as the pane header shows it ("needs you", "working")."""
    branch: str = ""


HOST_GROUP = "host:"
"""The key prefix of a remote host's group (its panes, whatever their directories)."""


@dataclass(frozen=True)
class RowGroup:
    """The group one pane belongs to."""

    key: str
    """Identity: the repository's common git dir, the checkout's git dir, or the cwd."""
    title: str
    branch: str = ""


@dataclass(frozen=True)
class HeaderLine:
    group: str
    title: str
    members: tuple[str, ...]
    """Row keys of the group's members that are shown (all of them when not searching)."""
    collapsed: bool


@dataclass(frozen=True)
class RowLine:
    key: str
    tree: str = " "
    """` ` flat, `├` a group's member, `└` its last member."""


Line = HeaderLine | RowLine


def terms(query: str) -> list[str]:
    return query.casefold().split()


def matches(query: str, facts: RowFacts) -> bool:
    """Every word of the query is part of the label, harness, state word or branch
    (case-insensitive); an empty query keeps every row."""
    fields = [facts.label, facts.harness, facts.state, facts.branch]
    haystack = [f.casefold() for f in fields if f]
    return all(any(term in field for field in haystack) for term in terms(query))


def filter_keys(query: str, rows: Iterable[RowFacts]) -> list[str]:
    """The keys of the rows `query` keeps, in roster order."""
    return [row.key for row in rows if matches(query, row)]


def grouped(keys: Sequence[str], groups: Mapping[str, RowGroup]) -> bool:
    """Headers are drawn only when the roster spans two groups or more: one repo's
    panes under one header would be a line of noise."""
    return len({groups[k].key for k in keys if k in groups}) >= 2


def layout(
    keys: Sequence[str],
    groups: Mapping[str, RowGroup],
    collapsed: Set[str] = frozenset(),
    shown: Set[str] | None = None,
) -> list[Line]:
    """The roster's lines: `keys` in order, each group's members gathered under a
    header at the position of its first member. A group of one stays a flat row.
    `shown` (the search's matches) hides the other rows and ignores folding, so
    every match is visible; a group with no match disappears."""
    visible = [k for k in keys if shown is None or k in shown]
    if not grouped(keys, groups):
        return [RowLine(k) for k in visible]
    members: dict[str, list[str]] = {}
    for key in visible:
        group = groups.get(key)
        if group is not None:
            members.setdefault(group.key, []).append(key)
    sizes: dict[str, int] = {}
    for key in keys:
        if key in groups:
            sizes[groups[key].key] = sizes.get(groups[key].key, 0) + 1
    lines: list[Line] = []
    placed: set[str] = set()
    for key in visible:
        group = groups.get(key)
        if group is None or (sizes[group.key] < 2 and not group.key.startswith(HOST_GROUP)):
            lines.append(RowLine(key))  # a group of one, unless a host's: its row says where
            continue
        if group.key in placed:
            continue
        placed.add(group.key)
        inside = members[group.key]
        folded = group.key in collapsed and shown is None
        lines.append(HeaderLine(group.key, group.title, tuple(inside), folded))
        if not folded:
            last = len(inside) - 1
            lines.extend(RowLine(k, "└" if i == last else "├") for i, k in enumerate(inside))
    return lines


# -- which group a pane is in --------------------------------------------------------------


class PaneLike(Protocol):
    @property
    def short(self) -> str: ...
    @property
    def cwd(self) -> str: ...
    @property
    def remote_host(self) -> str: ...


def _common_dir(git_dir: Path) -> Path:
    """A linked worktree's git dir names the repository's own one in `commondir`."""
    text = gitinfo._read_small(git_dir / "commondir")
    if not text or not text.strip():
        return git_dir
    target = Path(text.splitlines()[0].strip())
    return Path(os.path.normpath(target if target.is_absolute() else git_dir / target))


def group_for(cwd: str, by: GroupBy) -> RowGroup | None:
    """`cwd`'s group: by repository (every checkout of one repo together) or by
    worktree (each checkout alone). Outside git the cwd itself is the group."""
    if by == "none" or not cwd:
        return None
    branch = gitinfo.branch(cwd) or ""
    found = gitinfo.git_dir(Path(cwd))
    if found is None:
        return RowGroup(os.path.normpath(cwd), Path(cwd).name or cwd, branch)
    if by == "repo":
        common = _common_dir(found)
        title = common.parent.name if common.name == ".git" else common.name
        return RowGroup(str(common), title, branch)
    title = branch or found.parent.name
    return RowGroup(str(found), title, branch)


class GroupResolver:
    """Each pane's group, looked up once per pane (its cwd does not change) with the
    branch refreshed every BRANCH_TTL seconds."""

    def __init__(self, by: GroupBy = "repo") -> None:
        self.by: GroupBy = by
        self._cache: dict[str, tuple[float, RowGroup | None]] = {}

    def group(self, short: str, cwd: str, now: float | None = None) -> RowGroup | None:
        now = time.monotonic() if now is None else now
        cached = self._cache.get(short)
        if cached is not None and now - cached[0] < BRANCH_TTL:
            return cached[1]
        found = group_for(cwd, self.by)
        self._cache[short] = (now, found)
        return found

    def groups(self, panes: Iterable[PaneLike]) -> dict[str, RowGroup]:
        """Row key → group for every pane that has one."""
        out: dict[str, RowGroup] = {}
        now = time.monotonic()
        live = set()
        for pane in panes:
            live.add(pane.short)
            if pane.remote_host:
                # A remote host's panes are one group, whatever their directories.
                host = pane.remote_host
                out[pane.short] = RowGroup(f"{HOST_GROUP}{host}", f"@{host}", "")
                continue
            found = self.group(pane.short, pane.cwd, now)
            if found is not None:
                out[pane.short] = found
        for gone in set(self._cache) - live:
            del self._cache[gone]
        return out
