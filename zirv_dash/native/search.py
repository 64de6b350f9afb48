"""`search_text`'s walk: regular files only, bounded, and stoppable.

The walk never follows a symlink and reads only regular files with one name
(`files.read_regular`: a FIFO, a socket or a device is skipped, and never
opened in a way that blocks). It is bounded in entries examined, files read,
bytes read and hits, and it runs in a worker thread that checks a stop event
between files: cancelling the tool sets the event and waits for the thread to
end, so a cancelled search has really stopped when the cancel returns.
"""

from __future__ import annotations

import asyncio
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from zirv_dash.native.files import FileRefused, read_regular

MAX_READ = 256 * 1024
MAX_SEARCH_FILES = 2000
MAX_SEARCH_ENTRIES = 20000
MAX_SEARCH_BYTES = 32 * 1024 * 1024
MAX_SEARCH_HITS = 200
SKIP_DIRS = {".git", "node_modules", "target", "__pycache__", ".venv"}
BOUND = "… search stopped at its bound"

T = TypeVar("T")


def search_tree(root: Path, needle: str, show: Callable[[Path], str], stop: threading.Event) -> str:
    """Lines holding `needle` in the regular files under `root`, as `path:line: text`."""
    hits: list[str] = []
    counts = {"entries": 0, "files": 0, "bytes": 0, "skipped": 0}
    pending = [root]
    while pending:
        if stop.is_set():
            return "cancelled"
        directory = pending.pop()
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError:
            continue
        subdirs: list[Path] = []
        for entry in entries:
            counts["entries"] += 1
            over = counts["entries"] > MAX_SEARCH_ENTRIES or counts["files"] >= MAX_SEARCH_FILES
            if over or counts["bytes"] > MAX_SEARCH_BYTES or len(hits) >= MAX_SEARCH_HITS:
                return "\n".join(hits + [BOUND])
            if stop.is_set():
                return "cancelled"
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                if entry.name not in SKIP_DIRS:
                    subdirs.append(Path(entry.path))
                continue
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_READ:
                continue  # a FIFO, socket, device or symlink is never opened
            if info.st_nlink > 1:
                counts["skipped"] += 1  # another name may be outside the workdir
                continue
            counts["files"] += 1
            path = Path(entry.path)
            try:
                data = read_regular(path, MAX_READ, links_ok=False, stop=stop, root=root)
            except FileRefused:
                continue
            counts["bytes"] += len(data)
            if b"\0" in data:
                continue
            for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
                if needle in line:
                    hits.append(f"{show(path)}:{number}: {line.strip()[:200]}")
        pending.extend(reversed(subdirs))  # depth first, in name order
    skipped = counts["skipped"]
    note = [f"({skipped} hard-linked file(s) not searched)"] if skipped else []
    return "\n".join(hits + note) or "no matches"


async def in_thread(work: Callable[[threading.Event], T]) -> T:
    """`work(stop)` in a worker thread; if the caller is cancelled, `stop` is set
    and the thread is waited for before the cancellation goes on."""
    stop = threading.Event()
    task = asyncio.ensure_future(asyncio.to_thread(work, stop))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        stop.set()
        await asyncio.wait([task])
        raise
