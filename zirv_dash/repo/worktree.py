"""A pane's own git worktree: create, inspect, reclaim, list.

Layout: ``<state>/worktrees/<repo_slug>/<short>/`` is the checkout, on branch
``zirv/<short>`` started at a recorded base commit; ``<short>.json`` next to it
is the record (repo, path, branch, base), written atomically. The checkout
lives under the state dir, so it is never inside the repository's own
worktree (git would otherwise list the pane's files as untracked in the main
checkout), and a target inside any existing worktree is refused outright.

Reclaiming removes the checkout and deletes the branch only when nothing can
be lost: the checkout is clean and its branch is either merged into the
repository's HEAD or has no commits of its own. Anything else is kept and
listed, with the reason.

Every call here runs `git` as a subprocess with a timeout and blocks: callers
in the UI run them in a thread worker, never on the event loop.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from zirv_dash import paths

log = logging.getLogger("zirv.worktree")

GIT_TIMEOUT = 20.0
"""Seconds a single git call may take (a checkout of a large repo is the slow one)."""
BRANCH_PREFIX = "zirv/"
_SHORT = re.compile(r"^[A-Za-z0-9]{1,32}$")


class WorktreeError(Exception):
    """A git or filesystem step that failed; the message names the step and why."""


@dataclass(frozen=True)
class Worktree:
    """The record of one pane's worktree."""

    short: str
    repo: str
    """The main checkout's top level (where the branch is merged back)."""
    path: str
    branch: str
    base: str
    """The commit the branch started from (full sha)."""
    created: float = 0.0


@dataclass(frozen=True)
class WorktreeStatus:
    dirty: bool
    """Uncommitted changes or untracked files in the checkout."""
    commits: int
    """Commits on the branch since its base."""
    merged: bool
    """The branch tip is contained in the repository's HEAD."""

    @property
    def reclaimable(self) -> bool:
        return not self.dirty and (self.merged or self.commits == 0)

    @property
    def reason(self) -> str:
        if self.dirty:
            return "uncommitted changes"
        if not self.merged and self.commits:
            return f"{self.commits} unmerged commit(s)"
        return "clean"


@dataclass(frozen=True)
class Reclaim:
    removed: bool
    reason: str
    worktree: Worktree


def git(cwd: Path | str, *args: str, timeout: float = GIT_TIMEOUT, check: bool = True) -> str:
    """Run `git -C cwd args…` and return stdout; a failure raises WorktreeError
    naming the command and git's own message."""
    cmd = ["git", "-C", str(cwd), *args]
    shown = _command_name(args)
    try:
        out = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
            env=_git_env(),
        )
    except subprocess.TimeoutExpired as exc:
        raise WorktreeError(f"`{shown}` took over {timeout:.0f}s") from exc
    except OSError as exc:
        raise WorktreeError(f"git could not run: {exc}") from exc
    if check and out.returncode != 0:
        why = (out.stderr or out.stdout).strip().splitlines()
        raise WorktreeError(f"`{shown}` in {cwd} failed: {why[-1] if why else 'no output'}")
    return out.stdout


def _command_name(args: tuple[str, ...]) -> str:
    """`git <verb> <first arg>` for messages, without `-c key=value` options."""
    words = list(args)
    while len(words) >= 2 and words[0] == "-c":
        words = words[2:]
    return " ".join(["git", *words[:2]])


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    # Never stop on a prompt (credentials, an editor) and never page.
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C"})
    return env


def main_checkout(repo: Path) -> Path:
    """The main worktree's top level for `repo` (also when `repo` is a linked worktree)."""
    common = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    if common.name == ".git":
        return common.parent.resolve()
    # A bare repository or an unusual layout: fall back to the given top level.
    return Path(git(repo, "rev-parse", "--show-toplevel").strip()).resolve()


def worktrees_root(repo: Path) -> Path:
    return paths.state_dir() / "worktrees" / paths.repo_slug(repo)


def _record_path(repo: Path, short: str) -> Path:
    return worktrees_root(repo) / f"{short}.json"


def checkouts(repo: Path) -> list[Path]:
    """Every worktree git knows for `repo` (the main one first)."""
    out = git(repo, "worktree", "list", "--porcelain")
    return [Path(line[9:]).resolve() for line in out.splitlines() if line.startswith("worktree ")]


def _inside(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def create(repo: Path, short: str, base: str = "HEAD") -> Worktree:
    """`git worktree add -b zirv/<short> <state>/worktrees/<slug>/<short> <base>`."""
    if not _SHORT.match(short):
        raise WorktreeError(f"pane id {short!r} is not a short id (letters and digits)")
    main = main_checkout(repo)
    root = worktrees_root(repo)
    target = (root / short).resolve()
    for existing in checkouts(main):
        if _inside(target, existing):
            raise WorktreeError(
                f"worktree path {target} would be inside the worktree {existing}; "
                f"set ZIRV_CTX_STATE_DIR outside the repository"
            )
    if target.exists():
        raise WorktreeError(f"worktree path {target} already exists")
    sha = git(main, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}").strip()
    branch = f"{BRANCH_PREFIX}{short}"
    paths.ensure_private_dir(root)
    git(main, "worktree", "add", "--quiet", "-b", branch, str(target), sha)
    record = Worktree(short, str(main), str(target), branch, sha, time.time())
    paths.atomic_write(_record_path(repo, short), json.dumps(asdict(record), indent=2) + "\n")
    log.info("worktree %s created at %s from %s", branch, target, sha[:12])
    return record


def load(repo: Path, short: str) -> Worktree | None:
    """The record of pane `short`'s worktree, or None (no git call: a file read)."""
    if not _SHORT.match(short):
        return None
    return _read(_record_path(repo, short))


def _read(path: Path) -> Worktree | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Worktree(
            short=str(data["short"]),
            repo=str(data["repo"]),
            path=str(data["path"]),
            branch=str(data["branch"]),
            base=str(data["base"]),
            created=float(data.get("created", 0.0)),
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("worktree record %s unreadable: %s", path, exc)
        return None


def listed(repo: Path) -> list[Worktree]:
    """Every recorded worktree of `repo`, oldest first."""
    root = worktrees_root(repo)
    found = [wt for p in sorted(root.glob("*.json")) if (wt := _read(p)) is not None]
    return sorted(found, key=lambda wt: wt.created)


def status(wt: Worktree) -> WorktreeStatus:
    dirty = bool(git(wt.path, "status", "--porcelain", "--untracked-files=normal").strip())
    commits = int(git(wt.path, "rev-list", "--count", f"{wt.base}..{wt.branch}").strip() or 0)
    merged = False
    if commits:
        probe = ["merge-base", "--is-ancestor", wt.branch, "HEAD"]
        merged = subprocess_ok(wt.repo, *probe)
    return WorktreeStatus(dirty, commits, merged)


def subprocess_ok(cwd: str, *args: str) -> bool:
    """True when `git args` exits 0 (for yes/no questions such as --is-ancestor)."""
    try:
        out = subprocess.run(
            ["git", "-C", cwd, *args],
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
            env=_git_env(),
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0


def reclaim(wt: Worktree) -> Reclaim:
    """Remove the checkout and delete the branch when nothing would be lost."""
    if not Path(wt.path).is_dir():
        # Removed by hand: forget git's entry and the record, keep the branch
        # unless it holds nothing.
        git(wt.repo, "worktree", "prune", check=False)
        _forget(wt)
        return Reclaim(True, "checkout already gone", wt)
    state = status(wt)
    if not state.reclaimable:
        return Reclaim(False, state.reason, wt)
    git(wt.repo, "worktree", "remove", wt.path)
    git(wt.repo, "branch", "-D", wt.branch)
    _forget(wt)
    why = "merged" if state.commits else "no changes"
    log.info("worktree %s reclaimed (%s)", wt.branch, why)
    return Reclaim(True, why, wt)


def _forget(wt: Worktree) -> None:
    leftover = Path(wt.path)
    # The record sits next to the checkout: <root>/<short>.json beside <root>/<short>/.
    (leftover.parent / f"{wt.short}.json").unlink(missing_ok=True)
    if leftover.is_dir() and not any(leftover.iterdir()):
        shutil.rmtree(leftover, ignore_errors=True)


def describe(wt: Worktree, state: WorktreeStatus | None) -> str:
    reason = state.reason if state is not None else "status unknown"
    return f"{wt.short}  {wt.branch}  base {wt.base[:8]}  {reason}  {wt.path}"


def main(argv: list[str] | None = None) -> int:
    """`python -m zirv_dash.repo.worktree [REPO]`: list the repository's pane worktrees."""
    args = sys.argv[1:] if argv is None else argv
    try:
        repo = main_checkout(Path(args[0] if args else ".").resolve())
    except WorktreeError as exc:
        print(f"worktrees: {exc}", file=sys.stderr)
        return 2
    found = listed(repo)
    if not found:
        print(f"no pane worktrees for {repo}")
    for wt in found:
        try:
            state: WorktreeStatus | None = status(wt)
        except WorktreeError:
            state = None
        print(describe(wt, state))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
