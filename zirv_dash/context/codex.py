"""Codex rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`.

Schema verified in @openai/codex 0.171.0 (native binary
`node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex`,
its strings; field order from codex-rs/protocol/src/protocol.rs):

- each line is {timestamp, type, payload}; the binary's own memory prompt says
  "`session_meta.payload.id` identifies the session, `turn_context` marks turn
  boundaries, `event_msg` is the lightweight status stream, and `response_item`
  contains actual messages, tool calls, and tool outputs";
- `turn_context.payload.model` is the turn's model;
- `event_msg` with `payload.type == "token_count"` holds `payload.info`
  (`TokenUsageInfo`: total_token_usage, last_token_usage, model_context_window)
  or null; each usage is `TokenUsage` {input_tokens, cached_input_tokens,
  cache_write_input_tokens, output_tokens, reasoning_output_tokens,
  total_tokens}, where cached input is part of input and reasoning part of
  output. The context size is `last_token_usage.total_tokens` (codex's own TUI
  reads the last usage for "context left"); the window is `model_context_window`;
- compaction: a top-level `compacted` line, and `event_msg` `context_compacted`;
- tool calls: `response_item` payloads `function_call` {name, arguments},
  `custom_tool_call` {name, input}, `local_shell_call` {action}; their outputs
  `function_call_output` / `custom_tool_call_output` {output}. A failed command
  reads "Exit code: N" / "Process exited with code N" (both strings in the
  binary) with N ≠ 0, older rollouts a JSON `metadata.exit_code`, structured
  outputs `success: false`. Anything else counts as a success.
"""

from __future__ import annotations

import json
import re
from typing import Any

from zirv_dash.context.facts import SessionFacts, as_dict, as_int
from zirv_dash.context.reading import UsageTotals

FIELD = "event_msg token_count info.last_token_usage.total_tokens"
_EXIT = re.compile(r"(?:^|\n)\s*(?:Exit code:|Process exited with code)\s*(-?\d+)")


class CodexParser:
    def __init__(self, facts: SessionFacts) -> None:
        self.facts = facts
        facts.field_name = FIELD
        self._last_total = UsageTotals()

    def feed(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        payload = as_dict(obj.get("payload"))
        if kind == "turn_context":
            self.facts.set_model(payload.get("model"))
            self.facts.user_turn()
        elif kind == "compacted":
            self.facts.compaction()
        elif kind == "event_msg":
            self._event(payload)
        elif kind == "response_item":
            self._item(payload)

    def _event(self, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "context_compacted":
            self.facts.compaction()
        elif kind == "token_count":
            self._tokens(as_dict(payload.get("info")))

    def _tokens(self, info: dict[str, Any]) -> None:
        if not info:
            return  # `info: null`: a rate-limit-only update
        last = as_dict(info.get("last_token_usage"))
        if as_int(last.get("total_tokens")) > 0:
            self.facts.context_tokens = as_int(last.get("total_tokens"))
        window = as_int(info.get("model_context_window"))
        if window > 0:
            self.facts.window = window
        total = _billed(as_dict(info.get("total_token_usage")))
        self.facts.session_tokens = as_int(
            as_dict(info.get("total_token_usage")).get("total_tokens")
        )
        # The totals are cumulative: the growth since the last report is this model's.
        prev = self._last_total
        self.facts.add_usage(
            self.facts.model,
            input=total.input - prev.input,
            cache_write=total.cache_write - prev.cache_write,
            cache_read=total.cache_read - prev.cache_read,
            output=total.output - prev.output,
        )
        self._last_total = total

    def _item(self, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "function_call":
            self.facts.tool_call(str(payload.get("name", "?")), payload.get("arguments"))
        elif kind == "custom_tool_call":
            self.facts.tool_call(str(payload.get("name", "?")), payload.get("input"))
        elif kind == "local_shell_call":
            self.facts.tool_call("local_shell", payload.get("action"))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self.facts.tool_result(output_failed(payload.get("output")))
        elif kind == "message" and payload.get("role") == "assistant":
            for block in payload.get("content") or []:
                block = as_dict(block)
                if block.get("type") == "output_text" and isinstance(block.get("text"), str):
                    self.facts.assistant_text(block["text"])


def _billed(usage: dict[str, Any]) -> UsageTotals:
    cached = as_int(usage.get("cached_input_tokens"))
    write = as_int(usage.get("cache_write_input_tokens"))
    fresh = max(0, as_int(usage.get("input_tokens")) - cached - write)
    return UsageTotals(fresh, write, cached, as_int(usage.get("output_tokens")))


def output_failed(output: object) -> bool:
    """Whether a codex tool output says the call failed (see the module docstring)."""
    if isinstance(output, dict):
        if output.get("success") is False:
            return True
        output = output.get("content", output.get("output", ""))
    if not isinstance(output, str):
        return False
    head = output[:4096]
    if head.lstrip().startswith("{"):
        try:
            data = json.loads(output)
        except ValueError:
            data = None
        if isinstance(data, dict):
            code = as_dict(data.get("metadata")).get("exit_code")
            if isinstance(code, int) and not isinstance(code, bool):
                return code != 0
    match = _EXIT.search(head)
    return bool(match and int(match.group(1)) != 0)
