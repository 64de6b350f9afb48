"""Pick the client for a route."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from zirv_dash.native.anthropic_messages import AnthropicProvider
from zirv_dash.native.demo_provider import DemoProvider
from zirv_dash.native.openai_compat import OpenAICompatProvider
from zirv_dash.native.protocol import ChatRequest, StreamEvent
from zirv_dash.native.routes import Route
from zirv_dash.native.transport import Limits


class Provider(Protocol):
    route: Route

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]: ...


def make_provider(route: Route, limits: Limits | None = None) -> Provider:
    if route.provider == "demo":
        return DemoProvider(route)
    if route.provider == "anthropic":
        return AnthropicProvider(route, limits)
    return OpenAICompatProvider(route, limits)
