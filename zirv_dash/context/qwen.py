"""Qwen Code chats: `~/.qwen/projects/<cwd with non-alphanumerics as ->/chats/<session>.jsonl`.

Schema verified in @qwen-code/qwen-code 0.15.10, `cli.js` (`ChatRecordingService`,
`Storage.getProjectDir`, `sanitizeCwd`; `QWEN_RUNTIME_DIR` moves the root):

- every line is a record {uuid, parentUuid, sessionId, timestamp, type, cwd,
  version, gitBranch}; `type` is `user`, `assistant`, `tool_result` or `system`;
- a `user` record without `subtype` is a prompt (`cron` / `notification`
  subtypes are not);
- an `assistant` record has `model`, `message` {role, parts} (text parts and
  `functionCall` {name, args}), `usageMetadata` (the Gemini-API shape:
  promptTokenCount, candidatesTokenCount, cachedContentTokenCount,
  thoughtsTokenCount, totalTokenCount) and `contextWindowSize`, the window;
- the context size is `usageMetadata.promptTokenCount`;
- a `tool_result` record has `toolCallResult` {callId, status, …}; status
  `error` is a failed call (its `error` is an Error object, which serialises
  as `{}`, so the status is what says it);
- compaction is a `system` record with `subtype: "chat_compression"`.
"""

from __future__ import annotations

from typing import Any

from zirv_dash.context.facts import SessionFacts, as_dict, as_int

FIELD = "usageMetadata.promptTokenCount"


class QwenParser:
    def __init__(self, facts: SessionFacts) -> None:
        self.facts = facts
        facts.field_name = FIELD

    def feed(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if kind == "user" and not obj.get("subtype"):
            self.facts.user_turn()
        elif kind == "assistant":
            self._assistant(obj)
        elif kind == "tool_result":
            status = as_dict(obj.get("toolCallResult")).get("status")
            self.facts.tool_result(status == "error")
        elif kind == "system" and obj.get("subtype") == "chat_compression":
            self.facts.compaction()

    def _assistant(self, obj: dict[str, Any]) -> None:
        self.facts.set_model(obj.get("model"))
        window = as_int(obj.get("contextWindowSize"))
        if window > 0:
            self.facts.window = window
        usage = obj.get("usageMetadata")
        if isinstance(usage, dict):
            prompt = as_int(usage.get("promptTokenCount"))
            cached = as_int(usage.get("cachedContentTokenCount"))
            if prompt > 0:
                self.facts.context_tokens = prompt
            output = as_int(usage.get("candidatesTokenCount")) + as_int(
                usage.get("thoughtsTokenCount")
            )
            self.facts.add_usage(
                self.facts.model, input=prompt - cached, cache_read=cached, output=output
            )
        texts: list[str] = []
        for part in as_dict(obj.get("message")).get("parts") or []:
            part = as_dict(part)
            call = as_dict(part.get("functionCall"))
            if call:
                self.facts.tool_call(str(call.get("name", "?")), call.get("args"))
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                texts.append(part["text"])
        self.facts.assistant_text("".join(texts))
