"""Gemini CLI chats: `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`.

Schema verified in @google/gemini-cli 0.61.0, `bundle/chunk-5FZXKDXH.js`
(`ChatRecordingService`):

- the first line is the session's metadata {sessionId, projectHash, startTime,
  lastUpdated, kind}; `{"$set": {…}}` lines update it;
- every other line is a whole message {id, timestamp, type, content, …}; a
  message that changes (tokens arrive, a tool call finishes) is appended again
  with the SAME id, so each id is counted once and tool calls once per call id;
- `type: "user"` is a prompt; `type: "gemini"` a reply with `model`, `tokens`
  {input, output, cached, thoughts, tool, total} (from the response's
  promptTokenCount, candidatesTokenCount, cachedContentTokenCount,
  thoughtsTokenCount, toolUsePromptTokenCount, totalTokenCount) and `toolCalls`
  [{id, name, args, status, …}], status one of the bundle's CoreToolCallStatus
  values (`success`, `error`, `cancelled`, …);
- the context size is `tokens.input` (the whole prompt; cached is part of it);
- no window is written: `models.py` has gemini-cli's `tokenLimit()` figures;
- no compaction marker is written to the chat file, so none is detected.

Older releases wrote one JSON document per session (`session-*.json`); that is
not a line-per-record file and is not read (the reading says so).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from zirv_dash.context.facts import SessionFacts, as_dict, as_int

FIELD = "tokens.input"
MAX_IDS = 4096
TERMINAL = frozenset({"success", "error", "cancelled"})


class _SeenIds:
    """A bounded set of ids (oldest forgotten first)."""

    def __init__(self) -> None:
        self._ids: OrderedDict[str, None] = OrderedDict()

    def add(self, key: str) -> bool:
        """True if `key` is new."""
        if key in self._ids:
            return False
        self._ids[key] = None
        if len(self._ids) > MAX_IDS:
            self._ids.popitem(last=False)
        return True


class GeminiParser:
    def __init__(self, facts: SessionFacts) -> None:
        self.facts = facts
        facts.field_name = FIELD
        self._messages = _SeenIds()
        self._tokens = _SeenIds()
        self._calls = _SeenIds()
        self._results = _SeenIds()

    def feed(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        msg_id = str(obj.get("id", ""))
        if kind == "user":
            if self._messages.add(msg_id):
                self.facts.user_turn()
        elif kind == "gemini":
            self._reply(obj, msg_id)

    def _reply(self, obj: dict[str, Any], msg_id: str) -> None:
        self.facts.set_model(obj.get("model"))
        tokens = obj.get("tokens")
        if isinstance(tokens, dict) and self._tokens.add(msg_id):
            prompt = as_int(tokens.get("input"))
            cached = as_int(tokens.get("cached"))
            if prompt > 0:
                self.facts.context_tokens = prompt
            self.facts.add_usage(
                self.facts.model,
                input=prompt - cached,
                cache_read=cached,
                output=as_int(tokens.get("output")) + as_int(tokens.get("thoughts")),
            )
        for call in obj.get("toolCalls") or []:
            self._tool(as_dict(call))
        content = obj.get("content")
        if isinstance(content, str):
            self.facts.assistant_text(content)
        elif isinstance(content, list):
            text = "".join(str(as_dict(p).get("text", "")) for p in content)
            self.facts.assistant_text(text)

    def _tool(self, call: dict[str, Any]) -> None:
        call_id = str(call.get("id", ""))
        if self._calls.add(call_id):
            self.facts.tool_call(str(call.get("name", "?")), call.get("args"))
        status = call.get("status")
        if status in TERMINAL and self._results.add(call_id):
            self.facts.tool_result(status == "error")
