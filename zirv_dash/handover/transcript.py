"""The tail of a claude or codex conversation transcript, for the handoff packet.

Where the files are is `zirv_dash.context.locate`'s job (verified against each
harness's package); this module only turns their last lines into narrative.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zirv_dash.context import locate
from zirv_dash.handover.packet import clean

TRANSCRIPT_READ_BYTES = 2 * 1024 * 1024
MAX_ITEM_CHARS = 600


def claude_project_slug(cwd: str | Path) -> str:
    """Claude Code's project directory name for `cwd` (see `context.locate.claude_slug`)."""
    return locate.claude_slug(cwd)


def transcript_tail(
    agent: str,
    session_id: str | None,
    cwd: str | Path,
    n: int = 20,
    home: Path | None = None,
) -> list[str]:
    """The last `n` conversation items of a claude/codex transcript, [] if not found."""
    try:
        if agent == "claude" and session_id:
            path = _claude_transcript(home or Path.home(), session_id, cwd)
            return _tail_items(path, _claude_item, n) if path else []
        if agent == "codex":
            # Never another repository's conversation: the rollout's stated cwd must match.
            path = locate.recent_codex(cwd, home=home, session_id=session_id)
            return _tail_items(path, _codex_item, n) if path else []
    except OSError:
        return []
    return []


def _claude_transcript(home: Path, session_id: str, cwd: str | Path) -> Path | None:
    """The pinned session's file where Claude Code writes it, else under any project dir."""
    found = locate.claude_transcript(session_id, cwd, home=home)
    if found is not None or not locate.SESSION_ID.fullmatch(session_id):
        return found
    # The cwd may have moved since (a renamed checkout); session ids are unique.
    # One level of the projects dir: bounded by the number of projects.
    projects = locate.claude_root(home) / "projects"
    for path in projects.glob(f"*/{session_id}.jsonl"):
        if path.is_file():
            return path
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
