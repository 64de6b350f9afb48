"""The diff model behind the review overlay, parsed from `git diff` output.

`collect(cwd, base)` is the working tree of `cwd` against `base` (a pane's
worktree base, or HEAD for a pane without one), untracked files included as
added. Files come with +/- counts and hunks whose lines carry their old and
new line numbers, so a comment can name `path:line`. The actions (commit,
discard) change the checkout through git too.

All of it blocks on subprocesses (with timeouts): callers in the UI use a
thread worker.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from zirv_dash.repo.worktree import WorktreeError, git

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""git's empty tree: the base of a repository with no commit yet."""
UNTRACKED_CAP = 512 * 1024
"""An untracked file larger than this is listed with its size, not read."""
FILES_MAX = 2000

LineKind = Literal["ctx", "add", "del"]
FileStatus = Literal["modified", "added", "deleted", "renamed"]

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f"}


@dataclass(frozen=True)
class DiffLine:
    kind: LineKind
    text: str
    old_no: int | None
    new_no: int | None


@dataclass
class Hunk:
    header: str
    old_start: int
    new_start: int
    lines: list[DiffLine] = field(default_factory=list)


@dataclass
class FileDiff:
    path: str
    status: FileStatus = "modified"
    old_path: str | None = None
    added: int = 0
    removed: int = 0
    binary: bool = False
    untracked: bool = False
    hunks: list[Hunk] = field(default_factory=list)
    note: str = ""
    """Why there are no hunks to show (binary, too large), else empty."""


@dataclass
class DiffResult:
    cwd: str
    base: str
    files: list[FileDiff]
    elapsed: float
    """Seconds the git calls and parsing took."""

    @property
    def added(self) -> int:
        return sum(f.added for f in self.files)

    @property
    def removed(self) -> int:
        return sum(f.removed for f in self.files)


def unquote(path: str) -> str:
    """A path as git prints it: C-quoted ("a\\303\\251") when it has odd bytes."""
    if not (len(path) >= 2 and path.startswith('"') and path.endswith('"')):
        return path
    out = bytearray()
    body, i = path[1:-1], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 3 < len(body) + 1 and body[i + 1 : i + 4].isdigit():
                out.append(int(body[i + 1 : i + 4], 8))
                i += 4
                continue
            out.extend(_ESCAPES.get(nxt, nxt).encode())
            i += 2
            continue
        out.extend(ch.encode())
        i += 1
    return out.decode("utf-8", errors="replace")


def _strip_prefix(raw: str) -> str | None:
    raw = raw.split("\t", 1)[0]
    if raw == "/dev/null":
        return None
    name = unquote(raw)
    return name[2:] if name[:2] in ("a/", "b/") else name


def parse_diff(text: str) -> list[FileDiff]:
    """Parse `git diff` patch output (any number of files)."""
    files: list[FileDiff] = []
    current: FileDiff | None = None
    hunk: Hunk | None = None
    old_no = new_no = 0
    for line in text.split("\n"):
        if line.startswith("diff --git "):
            current = FileDiff(path=_path_from_header(line))
            files.append(current)
            hunk = None
            continue
        if current is None:
            continue
        # Inside a hunk every line starts with " ", "+", "-" or "\\" (a "--- x"
        # there is a removed line, not a header).
        if hunk is not None and line[:1] in (" ", "+", "-", "\\"):
            old_no, new_no = _add_line(current, hunk, line, old_no, new_no)
            continue
        match = _HUNK.match(line)
        if match:
            old_no, new_no = int(match.group(1)), int(match.group(3))
            hunk = Hunk(line, old_no, new_no)
            current.hunks.append(hunk)
            continue
        _header_line(current, line)
    return files


def _add_line(f: FileDiff, hunk: Hunk, line: str, old_no: int, new_no: int) -> tuple[int, int]:
    tag, body = line[:1], line[1:]
    if tag == "\\":
        return old_no, new_no  # "\ No newline at end of file"
    if tag == "+":
        hunk.lines.append(DiffLine("add", body, None, new_no))
        f.added += 1
        return old_no, new_no + 1
    if tag == "-":
        hunk.lines.append(DiffLine("del", body, old_no, None))
        f.removed += 1
        return old_no + 1, new_no
    hunk.lines.append(DiffLine("ctx", body, old_no, new_no))
    return old_no + 1, new_no + 1


def _path_from_header(line: str) -> str:
    rest = line[len("diff --git ") :]
    if rest.startswith('"'):
        end = rest.find('" ', 1)
        first = rest[: end + 1] if end > 0 else rest
        second = rest[end + 2 :] if end > 0 else rest
    else:
        # "a/x b/x": split in the middle when both halves name the same file.
        half = len(rest) // 2
        first, second = rest[:half], rest[half + 1 :]
        if first[2:] != second[2:]:
            first, _, second = rest.partition(" b/")
            second = "b/" + second
    return _strip_prefix(second) or _strip_prefix(first) or rest


def _header_line(f: FileDiff, line: str) -> None:
    if line.startswith("new file mode"):
        f.status = "added"
    elif line.startswith("deleted file mode"):
        f.status = "deleted"
    elif line.startswith("rename from "):
        f.status, f.old_path = "renamed", unquote(line[len("rename from ") :])
    elif line.startswith("rename to "):
        f.path = unquote(line[len("rename to ") :])
    elif line.startswith("Binary files ") or line.startswith("GIT binary patch"):
        f.binary, f.note = True, "binary file"
    elif line.startswith("+++ "):
        name = _strip_prefix(line[4:])
        if name is not None:
            f.path = name


def resolve_base(cwd: Path, base: str) -> str:
    """`base` as a commit sha, or the empty tree in a repository with no commit."""
    try:
        return git(cwd, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}").strip()
    except WorktreeError:
        if base == "HEAD":
            return EMPTY_TREE
        raise


def _in_work_tree(cwd: Path) -> bool:
    try:
        return git(cwd, "rev-parse", "--is-inside-work-tree").strip() == "true"
    except WorktreeError:
        return False


def collect(cwd: Path, base: str = "HEAD") -> DiffResult:
    """The checkout at `cwd` (tracked changes and untracked files) against `base`."""
    started = time.perf_counter()
    if not _in_work_tree(cwd):
        # Outside a repository `git diff` silently turns into `--no-index`.
        raise WorktreeError(f"{cwd} is not inside a git repository (nothing to review)")
    sha = resolve_base(cwd, base)
    patch = git(
        cwd,
        "-c", "core.quotePath=true",
        "diff", "--no-color", "--no-ext-diff", "--find-renames", "--relative", sha, "--",
    )  # fmt: skip
    files = parse_diff(patch)
    listing = git(cwd, "ls-files", "--others", "--exclude-standard", "-z")
    for name in [n for n in listing.split("\0") if n][: max(0, FILES_MAX - len(files))]:
        files.append(untracked_file(cwd, name))
    files.sort(key=lambda f: f.path)
    return DiffResult(str(cwd), sha, files, time.perf_counter() - started)


def untracked_file(cwd: Path, name: str) -> FileDiff:
    """An untracked file shown as wholly added (read here, not by git)."""
    f = FileDiff(path=name, status="added", untracked=True)
    target = cwd / name
    try:
        st = target.lstat()
        if not os.path.isfile(target) or target.is_symlink():
            f.note = "not a regular file"
            return f
        if st.st_size > UNTRACKED_CAP:
            f.note = f"untracked, {st.st_size} bytes (too large to show)"
            return f
        data = target.read_bytes()
    except OSError as exc:
        f.note = f"unreadable: {exc.strerror or exc}"
        return f
    if b"\0" in data[:8192]:
        f.binary, f.note = True, "binary file"
        return f
    lines = data.decode("utf-8", errors="replace").splitlines()
    hunk = Hunk(f"@@ -0,0 +1,{len(lines)} @@", 0, 1)
    hunk.lines = [DiffLine("add", text, None, i) for i, text in enumerate(lines, 1)]
    f.hunks, f.added = [hunk] if lines else [], len(lines)
    return f


def commit_all(cwd: Path, message: str) -> str:
    """Stage every change in the checkout and commit it; returns the new short sha."""
    if not message.strip():
        raise WorktreeError("the commit message is empty")
    git(cwd, "add", "--all", "--", ".")
    git(cwd, "commit", "--quiet", "--no-verify", "-m", message)
    return git(cwd, "rev-parse", "--short", "HEAD").strip()


def discard(cwd: Path, f: FileDiff, base: str) -> None:
    """Put `f` back as it is at `base`: restored, or removed if `base` lacks it."""
    if f.untracked:
        (cwd / f.path).unlink()
        return
    if f.status == "renamed" and f.old_path:
        discard(cwd, FileDiff(path=f.old_path, status="deleted"), base)
    in_base = f.status not in ("added", "renamed") and base != EMPTY_TREE
    if in_base:
        git(cwd, "restore", f"--source={base}", "--staged", "--worktree", "--", f.path)
        return
    git(cwd, "rm", "--quiet", "--force", "--cached", "--ignore-unmatch", "--", f.path)
    target = cwd / f.path
    if target.is_file() or target.is_symlink():
        target.unlink()
