"""The repository's knowledge: `.zavet/` decision records and specs, read-only.

Layout supported (the seed names the module but not its files, so this is ours):

    .zavet/
      decisions/<name>.md   decision records: frontmatter id, title, status, guards
      specs/<name>.md       specs: frontmatter id, title, status, paths, confidence
      <other>/<name>.md     listed too, kind "note"

A record is a Markdown file opening with a frontmatter block:

    ---
    id: D-012
    title: Panes never share a PTY
    status: accepted
    guards: [zirv_dash/panes/ptysession.py, zirv_dash/panes/pane.py]
    ---
    Body text…

Frontmatter is parsed without a YAML library: `key: value` lines, inline lists
`key: [a, b]`, and block lists (`key:` then `  - a` lines); quotes around a
value are dropped. Anything else is an error *of that record*: a malformed
record is still listed, with its error, never hidden. Nothing in a record is
ever run or interpreted — it is text to read.

Reads are bounded: regular files only (no symlink, FIFO or device), at most
`MAX_RECORD_BYTES` each, at most `MAX_RECORDS` files, `MAX_DEPTH` levels deep.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from zirv_dash import safeio

ZAVET_DIR = ".zavet"
MAX_RECORD_BYTES = 256 * 1024
MAX_RECORDS = 500
MAX_DEPTH = 4
KINDS = {"decisions": "decision", "specs": "spec"}
LIST_KEYS = frozenset({"guards", "paths", "tags"})
CONFIDENCE_WORDS = frozenset({"low", "medium", "high"})


@dataclass
class Record:
    path: Path
    """Relative to the repository root."""
    kind: str
    meta: dict[str, str | list[str]] = field(default_factory=dict)
    body: str = ""
    error: str | None = None

    def _text(self, key: str) -> str:
        value = self.meta.get(key)
        return value if isinstance(value, str) else ""

    def _list(self, key: str) -> list[str]:
        value = self.meta.get(key)
        if isinstance(value, list):
            return value
        return [value] if value else []

    @property
    def id(self) -> str:
        return self._text("id") or self.path.stem

    @property
    def title(self) -> str:
        return self._text("title")

    @property
    def status(self) -> str:
        return self._text("status")

    @property
    def guards(self) -> list[str]:
        return self._list("guards")

    @property
    def paths(self) -> list[str]:
        return self._list("paths")

    @property
    def confidence(self) -> str:
        return self._text("confidence")

    def haystack(self) -> str:
        parts = [str(self.path), self.kind, self.error or "", self.body]
        for value in self.meta.values():
            parts.extend(value if isinstance(value, list) else [value])
        return "\n".join(parts).casefold()

    def matches(self, query: str) -> bool:
        """Every whitespace-separated term of `query` occurs (case-insensitively)."""
        terms = query.casefold().split()
        text = self.haystack()
        return all(term in text for term in terms)


@dataclass
class Knowledge:
    root: Path
    records: list[Record]
    problems: list[str]
    """Directory-level trouble (unreadable folders, the record cap)."""

    def search(self, query: str) -> list[Record]:
        return [r for r in self.records if r.matches(query)] if query.strip() else self.records


class FrontmatterError(ValueError):
    pass


def parse_frontmatter(text: str) -> tuple[dict[str, str | list[str]], str]:
    """(metadata, body) of a record, or FrontmatterError naming the line."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise FrontmatterError("no frontmatter: the file must open with a `---` line")
    meta: dict[str, str | list[str]] = {}
    current: str | None = None
    for number, raw in enumerate(lines[1:], start=2):
        line = raw.rstrip()
        if line.strip() == "---":
            return meta, "\n".join(lines[number:]).strip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.lstrip().startswith("- "):
            if current is None or not isinstance(meta.get(current), list):
                raise FrontmatterError(f"line {number}: a list item with no `key:` above it")
            items = meta[current]
            assert isinstance(items, list)
            items.append(_unquote(line.lstrip()[2:]))
            continue
        key, sep, value = line.partition(":")
        key = key.strip()
        if not sep or not key or line[0].isspace() or not _is_key(key):
            raise FrontmatterError(f"line {number}: expected `key: value`, found {raw.strip()!r}")
        if key in meta:
            raise FrontmatterError(f"line {number}: `{key}` given twice")
        meta[key] = _value(value.strip(), number)
        current = key
    raise FrontmatterError("the frontmatter is never closed (no second `---` line)")


def _is_key(key: str) -> bool:
    return all(ch.isalnum() or ch in "_-" for ch in key)


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _value(text: str, number: int) -> str | list[str]:
    if not text:
        return []  # a block list follows (or an empty list)
    if text.startswith("["):
        if not text.endswith("]"):
            raise FrontmatterError(f"line {number}: an inline list must end with `]`")
        inner = text[1:-1].strip()
        return [_unquote(item) for item in inner.split(",")] if inner else []
    return _unquote(text)


def check_record(meta: dict[str, str | list[str]], kind: str) -> str | None:
    """The first problem with a parsed record's fields, or None."""
    for key, value in meta.items():
        if key in LIST_KEYS and isinstance(value, str):
            meta[key] = [value]
        elif key not in LIST_KEYS and isinstance(value, list) and value:
            return f"`{key}` must be a single value, not a list"
    for key in ("id", "title"):
        if not isinstance(meta.get(key), str) or not meta[key]:
            return f"missing `{key}`"
    confidence = meta.get("confidence")
    if kind == "spec" and isinstance(confidence, str) and confidence:
        if not _valid_confidence(confidence):
            return f"`confidence` must be low/medium/high or 0..1, not {confidence!r}"
    return None


def _valid_confidence(text: str) -> bool:
    if text.lower() in CONFIDENCE_WORDS:
        return True
    try:
        return 0.0 <= float(text) <= 1.0
    except ValueError:
        return False


def read_record(root: Path, path: Path) -> Record:
    """One record; any trouble is kept on the record as its error."""
    relative = path.relative_to(root)
    parts = relative.parts
    kind = KINDS.get(parts[1], "note") if len(parts) > 2 else "note"
    record = Record(relative, kind)
    try:
        data = safeio.read_bounded(path, MAX_RECORD_BYTES)
        if data is None:
            raise FileNotFoundError(f"{relative}: vanished while being listed")
        text = safeio.decode_utf8(data, relative)
        record.meta, record.body = parse_frontmatter(text)
    except (OSError, safeio.BadContent, FrontmatterError) as exc:
        record.error = str(exc).replace(str(root) + os.sep, "")
        return record
    record.error = check_record(record.meta, kind)
    return record


def _walk(directory: Path, depth: int, found: list[Path], problems: list[str]) -> None:
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as exc:
        problems.append(f"cannot list {directory}: {exc.strerror or exc}")
        return
    for entry in entries:
        if len(found) > MAX_RECORDS:
            return
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode) and not entry.name.startswith("."):
            if depth < MAX_DEPTH:
                _walk(Path(entry.path), depth + 1, found, problems)
        elif entry.name.endswith(".md"):
            found.append(Path(entry.path))  # symlinks too: listed, with their refusal


def load(repo: Path) -> Knowledge:
    """Every record under `repo/.zavet`, sorted by kind then path."""
    base = repo / ZAVET_DIR
    problems: list[str] = []
    if base.is_symlink():
        return Knowledge(repo, [], [f"{ZAVET_DIR} is a symlink; not read"])
    if not base.is_dir():
        return Knowledge(repo, [], [f"{ZAVET_DIR} is not a folder"] if base.exists() else [])
    found: list[Path] = []
    _walk(base, 1, found, problems)
    if len(found) > MAX_RECORDS:
        problems.append(f"more than {MAX_RECORDS} records; only the first {MAX_RECORDS} listed")
        found = found[:MAX_RECORDS]
    order = {"decision": 0, "spec": 1, "note": 2}
    records = [read_record(repo, path) for path in found]
    records.sort(key=lambda r: (order.get(r.kind, 3), str(r.path)))
    return Knowledge(repo, records, problems)
