"""Which harness wrote a transcript, told from its first records (see each parser's docstring)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

HARNESSES = ("claude", "codex", "gemini", "qwen")
CODEX_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})


def harness_of(obj: dict[str, Any]) -> str | None:
    """The harness one record belongs to, or None when it says nothing either way."""
    kind = obj.get("type")
    if kind in CODEX_TYPES and isinstance(obj.get("payload"), dict):
        return "codex"
    if "isSidechain" in obj or kind in ("summary", "file-history-snapshot"):
        return "claude"
    message = obj.get("message")
    if kind == "tool_result" or "usageMetadata" in obj or "contextWindowSize" in obj:
        return "qwen"
    if isinstance(message, dict) and "parts" in message and "uuid" in obj:
        return "qwen"
    if kind == "gemini" or ("projectHash" in obj and "sessionId" in obj):
        return "gemini"
    if isinstance(message, dict) and "content" in message and "uuid" in obj:
        return "claude"
    return None


def detect(objects: Iterable[dict[str, Any]]) -> str | None:
    """The first harness any of `objects` names."""
    for obj in objects:
        found = harness_of(obj)
        if found:
            return found
    return None
