"""Anthropic Messages API streaming."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
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
from zirv_dash.native.transport import Limits, parse_json, post_events, route_secret

API_VERSION = "2023-06-01"


def request_body(route: Route, request: ChatRequest) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        # The API wants user/assistant alternating: tool results and a steering
        # line that follows them share one user message.
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})

    for msg in request.messages:
        if isinstance(msg, UserMessage):
            add("user", [{"type": "text", "text": msg.text}])
        elif isinstance(msg, AssistantMessage):
            blocks: list[dict[str, Any]] = []
            if msg.text:
                blocks.append({"type": "text", "text": msg.text})
            for call in msg.tool_calls:
                blocks.append(
                    {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
                )
            add("assistant", blocks or [{"type": "text", "text": "(no text)"}])
        elif isinstance(msg, ToolResultMessage):
            add(
                "user",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": msg.tool_call_id,
                        "content": msg.content,
                        "is_error": msg.is_error,
                    }
                ],
            )
    body: dict[str, Any] = {
        "model": route.model,
        "max_tokens": request.max_tokens,
        "messages": messages,
        "stream": True,
    }
    body.update(dict(route.extensions))
    if request.system:
        body["system"] = request.system
    if request.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
    return body


_ERRORS: dict[str, str] = {
    "authentication_error": "auth",
    "permission_error": "auth",
    "not_found_error": "model",
    "rate_limit_error": "rate_limit",
    "overloaded_error": "network",
    "api_error": "network",
}


class AnthropicProvider:
    def __init__(self, route: Route, limits: Limits | None = None) -> None:
        self.route = route
        self.limits = limits or Limits()

    def headers(self) -> dict[str, str]:
        headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            "anthropic-version": API_VERSION,
        }
        secret = route_secret(self.route)
        if secret is not None:
            headers["x-api-key"] = secret.reveal()
        return headers

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        body = request_body(self.route, request)
        blocks: dict[int, dict[str, Any]] = {}
        input_tokens = output_tokens = 0
        stop = ""
        finished = False
        async for event in post_events(self.route.url, self.headers(), body, self.limits):
            data = parse_json(event.data)
            kind = data.get("type", event.event)
            if kind == "error":
                raise _error(data)
            if kind == "message_start":
                usage = _dict(_dict(data.get("message")).get("usage"))
                input_tokens = _int(usage.get("input_tokens"))
            elif kind == "content_block_start":
                blocks[_index(data)] = dict(_dict(data.get("content_block")), parts=[])
            elif kind == "content_block_delta":
                text = _delta(blocks, data)
                if text:
                    yield TextDelta(text)
            elif kind == "content_block_stop":
                block = blocks.pop(_index(data), None)
                if block is not None and block.get("type") == "tool_use":
                    yield ToolCallDone(_tool_call(block))
            elif kind == "message_delta":
                stop = str(_dict(data.get("delta")).get("stop_reason") or stop)
                output_tokens = _int(_dict(data.get("usage")).get("output_tokens"))
            elif kind == "message_stop":
                finished = True
                break
        if not finished:
            raise ProviderError(
                "bad_response", "the stream ended before message_stop", dropped=True
            )
        yield UsageReport(input_tokens, output_tokens)
        yield StreamEnd(stop or "end_turn")


def _delta(blocks: dict[int, dict[str, Any]], data: dict[str, Any]) -> str:
    delta = _dict(data.get("delta"))
    block = blocks.get(_index(data))
    if block is None:
        raise ProviderError("bad_response", "a delta for a block that never started")
    if delta.get("type") == "text_delta":
        return str(delta.get("text") or "")
    if delta.get("type") == "input_json_delta":
        block["parts"].append(str(delta.get("partial_json") or ""))
    return ""


def _tool_call(block: dict[str, Any]) -> ToolCall:
    name = block.get("name")
    if not isinstance(name, str) or not name:
        raise ProviderError("bad_response", "a tool_use block has no name")
    text = "".join(block["parts"]).strip()
    try:
        args = json.loads(text) if text else _dict(block.get("input"))
    except ValueError as exc:
        raise ProviderError("bad_response", f"tool call {name}: input is not JSON") from exc
    if not isinstance(args, dict):
        raise ProviderError("bad_response", f"tool call {name}: input is not an object")
    return ToolCall(str(block.get("id") or name), name, args)


def _error(data: dict[str, Any]) -> ProviderError:
    err = _dict(data.get("error"))
    kind = _ERRORS.get(str(err.get("type")), "bad_response")
    message = str(err.get("message") or err.get("type") or "error event")[:300]
    return ProviderError(kind, message)  # type: ignore[arg-type]


def _index(data: dict[str, Any]) -> int:
    index = data.get("index")
    if not isinstance(index, int):
        raise ProviderError("bad_response", "a content block event has no index")
    return index


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
