"""Provider-neutral conversation and stream types, and the typed provider errors.

Every provider client turns its own wire format into these, so the engine, the
journal and the tests never see a vendor's shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# ---- conversation sent to a provider ------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class UserMessage:
    text: str


@dataclass(frozen=True)
class AssistantMessage:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class ToolResultMessage:
    tool_call_id: str
    name: str
    content: str
    is_error: bool = False


Message = UserMessage | AssistantMessage | ToolResultMessage


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ChatRequest:
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 4096
    purpose: Literal["turn", "compact"] = "turn"


# ---- what a stream yields -----------------------------------------------------------


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallDone:
    call: ToolCall


@dataclass(frozen=True)
class UsageReport:
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class StreamEnd:
    stop_reason: str


StreamEvent = TextDelta | ToolCallDone | UsageReport | StreamEnd


# ---- typed errors ---------------------------------------------------------------------

ErrorKind = Literal["auth", "model", "rate_limit", "network", "bad_response"]


@dataclass
class ProviderError(Exception):
    """A provider request failed. `kind` says what the operator does next."""

    kind: ErrorKind
    message: str
    status: int | None = field(default=None)
    dropped: bool = field(default=False)
    """The connection ended before the response did (closed, reset, cut short):
    what the model is told happened to its unfinished answer."""

    def __str__(self) -> str:
        label = {
            "auth": "authentication failed",
            "model": "model not available",
            "rate_limit": "rate limited",
            "network": "network or service failure",
            "bad_response": "bad response",
        }[self.kind]
        return f"{label}: {self.message}"


def error_for_status(status: int, detail: str) -> ProviderError:
    """The typed error for an HTTP status (the body's detail is already bounded)."""
    if status in (401, 403):
        return ProviderError("auth", f"HTTP {status}: {detail}", status)
    if status == 404 or (status == 400 and "model" in detail.lower()):
        return ProviderError("model", f"HTTP {status}: {detail}", status)
    if status == 429:
        return ProviderError("rate_limit", f"HTTP {status}: {detail}", status)
    if status >= 500:
        return ProviderError("network", f"HTTP {status}: {detail}", status)
    return ProviderError("bad_response", f"HTTP {status}: {detail}", status)
