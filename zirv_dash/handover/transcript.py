"""The tail of a claude or codex conversation transcript, for the handoff packet."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zirv_dash.handover.packet import clean

TRANSCRIPT_READ_BYTES = 2 * 1024 * 1024
MAX_ITEM_CHARS = 600
CODEX_SCAN_FILES = 64


def claude_project_slug(cwd: str | Path) -> str:
    """Claude Code's project directory name: the cwd with non-alphanumerics as `-`."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def transcript_tail(
    agent: str,
    session_id: str | None,
    cwd: str | Path,
    n: int = 20,
    home: Path | None = None,
) -> list[str]:
    """The last `n` conversation items of a claude/codex transcript, [] if not found."""
    home = home or Path.home()
    try:
        if agent == "claude" and session_id:
            path = _claude_transcript(home, session_id, cwd)
            return _tail_items(path, _claude_item, n) if path else []
        if agent == "codex":
            path = _codex_rollout(home, session_id, cwd)
            return _tail_items(path, _codex_item, n) if path else []
    except OSError:
        return []
    return []


def _claude_transcript(home: Path, session_id: str, cwd: str | Path) -> Path | None:
    if not re.fullmatch(r"[A-Za-z0-9-]{1,128}", session_id):
        return None
    projects = home / ".claude" / "projects"
    candidates = [str(cwd)]
    try:
        candidates.append(str(Path(cwd).resolve()))
    except OSError:
        pass
    for where in candidates:
        path = projects / claude_project_slug(where) / f"{session_id}.jsonl"
        if path.is_file():
            return path
    # The slug rule has changed between Claude Code releases; session ids are unique.
    for path in projects.glob(f"*/{session_id}.jsonl"):
        if path.is_file():
            return path
    return None


def _codex_rollout(home: Path, session_id: str | None, cwd: str | Path) -> Path | None:
    root = home / ".codex" / "sessions"
    if not root.is_dir():
        return None
    files = sorted(root.rglob("rollout-*.jsonl"), key=_mtime, reverse=True)[:CODEX_SCAN_FILES]
    if session_id:
        for path in files:
            if path.stem.endswith(session_id):
                return path
    wanted = {str(cwd)}
    try:
        wanted.add(str(Path(cwd).resolve()))
    except OSError:
        pass
    for path in files:
        meta_cwd = _codex_meta_cwd(path)
        # Never borrow another repository's conversation: a stated cwd must match.
        if meta_cwd is None or meta_cwd in wanted:
            return path
    return None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _codex_meta_cwd(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = handle.readline(256 * 1024)
        obj = json.loads(first)
    except (OSError, json.JSONDecodeError):
        return None
    if not isinstance(obj, dict):
        return None
    payload = obj.get("payload") if obj.get("type") == "session_meta" else obj
    if isinstance(payload, dict) and isinstance(payload.get("cwd"), str):
        return str(payload["cwd"])
    return None


def _tail_items(path: Path, convert: Callable[[Any], str | None], n: int) -> list[str]:
    size = path.stat().st_size
    with open(path, "rb") as handle:
        if size > TRANSCRIPT_READ_BYTES:
            handle.seek(size - TRANSCRIPT_READ_BYTES)
            handle.readline()  # drop the partial first line
        raw = handle.read()
    items: list[str] = []
    for line in raw.decode("utf-8", errors="replace").splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        text = convert(obj)
        if text:
            items.append(_squash(text))
    return items[-n:] if n > 0 else []


def _squash(text: str) -> str:
    text = " ".join(clean(text).split())
    return text if len(text) <= MAX_ITEM_CHARS else text[:MAX_ITEM_CHARS] + " …"


def _content_text(content: Any) -> tuple[str, list[str]]:
    """(plain text, tool notes) from a message content string or block list."""
    if isinstance(content, str):
        return content, []
    texts: list[str] = []
    tools: list[str] = []
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind in ("text", "input_text", "output_text") and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind == "tool_use":
                args = json.dumps(block.get("input", {}), ensure_ascii=False)[:200]
                tools.append(f"[tool {block.get('name', '?')}] {args}")
    return "\n".join(texts), tools


def _claude_item(obj: Any) -> str | None:
    if not isinstance(obj, dict) or obj.get("type") not in ("user", "assistant"):
        return None
    if obj.get("isMeta") or obj.get("isSidechain"):
        return None
    message = obj.get("message")
    if not isinstance(message, dict):
        return None
    role = message.get("role") or obj["type"]
    text, tools = _content_text(message.get("content"))
    parts = [text.strip()] if text.strip() else []
    parts.extend(tools)
    if not parts:
        return None  # tool results and empty turns carry no narrative
    return f"{role}: " + " ".join(parts)


def _codex_item(obj: Any) -> str | None:
    if not isinstance(obj, dict):
        return None
    item = obj.get("payload") if obj.get("type") == "response_item" else obj
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "message" and item.get("role") in ("user", "assistant"):
        text, _ = _content_text(item.get("content"))
        text = text.strip()
        if not text or text.startswith(("<environment_context>", "<user_instructions>")):
            return None
        return f"{item['role']}: {text}"
    if kind == "function_call":
        return f"assistant: [tool {item.get('name', '?')}] {str(item.get('arguments', ''))[:200]}"
    return None
