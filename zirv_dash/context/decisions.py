"""The decision log, `<state>/logs/decisions.jsonl`: a JSON line per decision about a session.

Upstream zirv keeps the same file for its supervisors (`pace-wait`, `rot-restart`,
`health-open`, ...); the dashboard adds its own kinds: `advise`, `compact`,
`restart-offer`, `usage-limit`, `fallback`, `fallback-refused`, `steer`. Each line
is written with one `write` on an `O_APPEND` descriptor, so lines from several
processes never interleave; the file is rotated to `.1` past `MAX_BYTES` so it
cannot grow without bound. A failure to write is returned, never raised: a full
disk must not stop the dashboard from acting or saying so.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from zirv_dash import paths

MAX_BYTES = 4 * 1024 * 1024
MAX_LINE = 4096
"""A longer line has its `detail` cut (a notice's text can be anything)."""


def log_path(state: Path | None = None) -> Path:
    return (state or paths.state_dir()) / "logs" / "decisions.jsonl"


def record(
    kind: str,
    *,
    session: str = "",
    short: str = "",
    harness: str = "",
    detail: str = "",
    fields: Mapping[str, object] | None = None,
    state: Path | None = None,
) -> str | None:
    """Append one decision (`fields`: what else it is about, e.g. `verdict`, `to`);
    None when written, else why it was not."""
    entry: dict[str, Any] = {
        "ts": round(time.time(), 3),
        "kind": kind,
        "session": session,
        "short": short,
        "harness": harness,
        **(fields or {}),
        "detail": detail,
    }
    line = json.dumps(entry, ensure_ascii=False, default=str)
    if len(line) > MAX_LINE:
        entry["detail"] = detail[: max(0, len(detail) - (len(line) - MAX_LINE) - 1)] + "…"
        line = json.dumps(entry, ensure_ascii=False, default=str)
    path = log_path(state)
    try:
        paths.ensure_private_dir(path.parent)
        _rotate(path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(path, flags, 0o600)
        try:
            os.write(fd, (line + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except OSError as exc:
        return f"decision log {path}: {exc.strerror or exc}"
    return None


def _rotate(path: Path) -> None:
    try:
        if path.stat().st_size < MAX_BYTES:
            return
    except FileNotFoundError:
        return
    os.replace(path, path.with_name(path.name + ".1"))


def read(state: Path | None = None, limit: int = 200) -> list[dict[str, Any]]:
    """The newest `limit` decisions, oldest first (bad lines skipped)."""
    path = log_path(state)
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - MAX_LINE * limit))
            data = handle.read()
    except OSError:
        return []
    out: list[dict[str, Any]] = []
    for raw in data.splitlines()[-limit:]:
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out
