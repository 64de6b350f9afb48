"""Claude Code transcripts: `~/.claude/projects/<slug>/<session>.jsonl`.

Schema verified in @anthropic-ai/claude-code 2.1.197 (native binary
`node_modules/@anthropic-ai/claude-code-linux-x64/claude`, its embedded JS):

- one JSON object per line with `type` (`user` / `assistant` / `system` / …),
  `uuid`, `sessionId`, `isSidechain`, `isMeta`; `message` is the API message;
- an assistant line carries `message.model`, `message.id` and `message.usage`
  {input_tokens, cache_creation_input_tokens, cache_read_input_tokens,
  output_tokens}. One API message is written as several lines (one per content
  block) sharing `message.id` and the same usage, so usage is counted once per
  id (the bundle's own session sum dedupes on `message.id` the same way). Lines
  with model `<synthetic>` are Claude Code's own, not an API reply;
- the context size is input + cache creation + cache read of the last reply:
  the bundle's status-line percent (`txn`) is exactly that over the window;
- tool calls are `tool_use` blocks {name, input}; results are `tool_result`
  blocks in a user line, `is_error: true` when the tool failed;
- compaction writes a `system` line with `subtype: "compact_boundary"`
  (`compactMetadata` {trigger, preTokens, …}), then a user line with
  `isCompactSummary: true` holding the summary (not a prompt);
- subagents write their own files, `<slug>/<session>/subagents/agent-<id>.jsonl`
  (bundle function building `…,"subagents",…,\\`agent-${id}.jsonl\\``), their
  lines marked `isSidechain: true`; a sidechain line in the main file is skipped
  so a subagent's context never reads as the main one's.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from zirv_dash.context.facts import SessionFacts, as_dict, as_int

SYNTHETIC_MODEL = "<synthetic>"
FIELD = "message.usage (input + cache_creation + cache_read)"


class ClaudeParser:
    def __init__(self, facts: SessionFacts) -> None:
        self.facts = facts
        facts.field_name = FIELD
        self._seen_ids: deque[str] = deque(maxlen=64)

    def feed(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if obj.get("isSidechain"):
            return
        if kind == "assistant":
            self._assistant(as_dict(obj.get("message")))
        elif kind == "user":
            self._user(obj)
        elif kind == "system" and obj.get("subtype") == "compact_boundary":
            self.facts.compaction()

    def _assistant(self, message: dict[str, Any]) -> None:
        model = message.get("model")
        if model == SYNTHETIC_MODEL:
            return
        self.facts.set_model(model)
        self._usage(message, model if isinstance(model, str) else None)
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            block = as_dict(block)
            if block.get("type") == "tool_use":
                self.facts.tool_call(str(block.get("name", "?")), block.get("input"))
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                self.facts.assistant_text(block["text"])
        if isinstance(content, str):
            self.facts.assistant_text(content)

    def _usage(self, message: dict[str, Any], model: str | None) -> None:
        usage = message.get("usage")
        if not isinstance(usage, dict):
            return
        fresh = as_int(usage.get("input_tokens"))
        write = as_int(usage.get("cache_creation_input_tokens"))
        read = as_int(usage.get("cache_read_input_tokens"))
        if fresh + write + read > 0:
            self.facts.context_tokens = fresh + write + read
        msg_id = message.get("id")
        if isinstance(msg_id, str):
            if msg_id in self._seen_ids:
                return
            self._seen_ids.append(msg_id)
        output = as_int(usage.get("output_tokens"))
        self.facts.add_usage(model, input=fresh, cache_write=write, cache_read=read, output=output)

    def _user(self, obj: dict[str, Any]) -> None:
        if obj.get("isCompactSummary"):
            return
        content = as_dict(obj.get("message")).get("content")
        results = [
            as_dict(b)
            for b in (content if isinstance(content, list) else [])
            if as_dict(b).get("type") == "tool_result"
        ]
        if results:
            for block in results:
                self.facts.tool_result(block.get("is_error") is True)
            return
        if obj.get("isMeta"):
            return
        if isinstance(content, str) or isinstance(content, list):
            self.facts.user_turn()
