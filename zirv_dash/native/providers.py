"""Pick the client for a route."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol

from zirv_dash.native.demo_provider import DemoProvider
from zirv_dash.native.protocol import ChatRequest, StreamEvent
from zirv_dash.native.routes import Route

if TYPE_CHECKING:
    from zirv_dash.native.transport import Limits


class Provider(Protocol):
    route: Route

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]: ...


def make_provider(route: Route, limits: Limits | None = None) -> Provider:
    if route.provider == "demo":
        return DemoProvider(route)
    # The HTTP clients load with the first route that needs one: the offline demo
    # route, and a dashboard with no native pane, never pay for them.
    if route.provider == "anthropic":
        from zirv_dash.native.anthropic_messages import AnthropicProvider

        return AnthropicProvider(route, limits)
    from zirv_dash.native.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(route, limits)
