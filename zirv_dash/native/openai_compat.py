"""OpenAI-compatible streaming chat completions (ollama, lmstudio, vllm, llamacpp, …)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from zirv_dash.native.protocol import (
    AssistantMessage,
    ChatRequest,
    ProviderError,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDone,
    ToolResultMessage,
    UsageReport,
    UserMessage,
)
from zirv_dash.native.routes import Route
from zirv_dash.native.transport import Limits, error_message, parse_json, post_events, route_secret


def request_body(route: Route, request: ChatRequest) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    for msg in request.messages:
        if isinstance(msg, UserMessage):
            messages.append({"role": "user", "content": msg.text})
        elif isinstance(msg, AssistantMessage):
            entry: dict[str, Any] = {"role": "assistant", "content": msg.text or None}
            if msg.tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                    }
                    for call in msg.tool_calls
                ]
            messages.append(entry)
        elif isinstance(msg, ToolResultMessage):
            messages.append(
                {"role": "tool", "tool_call_id": msg.tool_call_id, "content": msg.content}
            )
    body: dict[str, Any] = {
        "model": route.model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": request.max_tokens,
    }
    body.update(dict(route.extensions))
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in request.tools
        ]
    return body


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class OpenAICompatProvider:
    def __init__(self, route: Route, limits: Limits | None = None) -> None:
        self.route = route
        self.limits = limits or Limits()

    def headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        secret = route_secret(self.route)
        if secret is not None:
            headers["authorization"] = f"Bearer {secret.reveal()}"
        return headers

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        body = request_body(self.route, request)
        calls: dict[int, _PendingCall] = {}
        finish = ""
        done = False
        async for event in post_events(self.route.url, self.headers(), body, self.limits):
            if event.data.strip() == "[DONE]":
                done = True
                break
            chunk = parse_json(event.data)
            if "error" in chunk:
                raise _stream_error(chunk)
            usage = chunk.get("usage")
            if isinstance(usage, dict):
                yield UsageReport(
                    _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))
                )
            for choice in _list(chunk.get("choices")):
                delta = choice.get("delta") if isinstance(choice, dict) else None
                if isinstance(delta, dict):
                    text = delta.get("content")
                    if isinstance(text, str) and text:
                        yield TextDelta(text)
                    _merge_calls(calls, delta.get("tool_calls"))
                if isinstance(choice, dict) and isinstance(choice.get("finish_reason"), str):
                    finish = choice["finish_reason"]
        if not done and not finish:
            raise ProviderError("bad_response", "the stream ended before it finished", dropped=True)
        for index in sorted(calls):
            yield ToolCallDone(_finish_call(calls[index], index))
        yield StreamEnd(finish or "stop")


def _merge_calls(calls: dict[int, _PendingCall], raw: object) -> None:
    for part in _list(raw):
        if not isinstance(part, dict):
            raise ProviderError("bad_response", "a tool call delta is not an object")
        index = part.get("index", 0)
        if not isinstance(index, int):
            raise ProviderError("bad_response", "a tool call delta has no index")
        pending = calls.setdefault(index, _PendingCall())
        if isinstance(part.get("id"), str):
            pending.id = part["id"]
        fn = part.get("function")
        if isinstance(fn, dict):
            if isinstance(fn.get("name"), str):
                pending.name += fn["name"]
            if isinstance(fn.get("arguments"), str):
                pending.arguments.append(fn["arguments"])


def _finish_call(pending: _PendingCall, index: int) -> ToolCall:
    if not pending.name:
        raise ProviderError("bad_response", f"tool call {index} has no name")
    text = "".join(pending.arguments).strip() or "{}"
    try:
        args = json.loads(text)
    except ValueError as exc:
        raise ProviderError(
            "bad_response", f"tool call {pending.name}: arguments are not JSON"
        ) from exc
    if not isinstance(args, dict):
        raise ProviderError("bad_response", f"tool call {pending.name}: arguments not an object")
    return ToolCall(pending.id or f"call_{index}", pending.name, args)


def _stream_error(chunk: dict[str, Any]) -> ProviderError:
    err = chunk.get("error")
    message = error_message(chunk) or "error event"
    code = str(err.get("code") or err.get("type") or "") if isinstance(err, dict) else ""
    if "rate" in code or "429" in code:
        return ProviderError("rate_limit", message)
    if "auth" in code or "key" in code:
        return ProviderError("auth", message)
    if "model" in code:
        return ProviderError("model", message)
    return ProviderError("bad_response", f"mid-stream error: {message}")


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
