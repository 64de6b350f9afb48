"""`@path` references in a submission: completion and resolution, both contained
in the workdir (symlinks resolved) and bounded."""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from zirv_dash.native.files import FileRefused, read_regular
from zirv_dash.native.tools import SKIP_DIRS, ToolFailure, Workdir
from zirv_dash.visible import visible

MAX_COMPLETIONS = 50
MAX_EXAMINED = 4000
MAX_REF_BYTES = 64 * 1024
MAX_REFS = 5
_REF = re.compile(r"(?:^|\s)@(\S+)")
SLASH_COMMANDS = (
    ("/clear", "drop the queued input"),
    ("/compact", "summarize the history for a fresh context"),
    ("/help", "the key summary"),
    ("/status", "model, state, billing, context left"),
)


@dataclass(frozen=True)
class FileRef:
    path: str
    content: str


def complete_path(wd: Workdir, prefix: str) -> list[str]:
    """Workdir files whose relative path starts with `prefix`, breadth first,
    skipping dotfiles, `target` and `node_modules`."""
    found: list[str] = []
    queue: deque[Path] = deque([wd.root])
    examined = 0
    while queue and len(found) < MAX_COMPLETIONS and examined < MAX_EXAMINED:
        directory = queue.popleft()
        try:
            entries = sorted(directory.iterdir())
        except OSError:
            continue
        for entry in entries:
            examined += 1
            if examined > MAX_EXAMINED or len(found) >= MAX_COMPLETIONS:
                break
            if entry.name.startswith(".") or entry.name in SKIP_DIRS:
                continue
            if entry.is_symlink():
                try:
                    wd.inside(str(entry))
                except ToolFailure:
                    continue
            rel = str(entry.relative_to(wd.root))
            if entry.is_dir():
                queue.append(entry)
                rel += "/"
            if rel.startswith(prefix):
                found.append(rel)
    return found


def completions(wd: Workdir, draft: str) -> list[tuple[str, str]]:
    """(label, detail) rows for the draft's entry mode: `/` commands, or a last
    token `@path`."""
    if draft.startswith("/") and " " not in draft:
        return [(name, detail) for name, detail in SLASH_COMMANDS if name.startswith(draft)]
    last = draft.rsplit(None, 1)[-1] if draft.strip() else ""
    if last.startswith("@") and not draft.endswith((" ", "\n")):
        # A file's name is drawn as a completion: shown only as visible text.
        return [
            (visible(f"@{p}"), "directory" if p.endswith("/") else "file")
            for p in complete_path(wd, last[1:])
        ]
    return []


def resolve_refs(wd: Workdir, text: str) -> tuple[list[FileRef], list[str]]:
    """The files `text` references (read now, bounded) and a note per reference
    that could not be used."""
    refs: list[FileRef] = []
    notes: list[str] = []
    for token in dict.fromkeys(_REF.findall(text)):
        if len(refs) >= MAX_REFS:
            notes.append(f"@{token}: more than {MAX_REFS} files referenced; not attached")
            continue
        try:
            path = wd.inside(token)
        except ToolFailure as exc:
            notes.append(f"@{exc}")
            continue
        if not path.is_file():
            notes.append(f"@{token}: not a file; not attached")
            continue
        try:
            # Never blocks on a FIFO swapped in; a hard-linked file is not attached
            # (read_file asks for it, saying so).
            data = read_regular(path, MAX_REF_BYTES, links_ok=False, root=wd.root)
        except FileRefused as exc:
            notes.append(f"@{token}: {str(exc).split(': ', 1)[-1]}; not attached")
            continue
        if b"\0" in data:
            notes.append(f"@{token}: larger than {MAX_REF_BYTES} bytes or binary; not attached")
            continue
        refs.append(FileRef(wd.show(path), data.decode("utf-8", "replace")))
    return refs, notes
