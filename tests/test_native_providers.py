"""Provider clients against a real loopback HTTP server speaking each protocol."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.fixtures.native.server import (
    ProviderServer,
    Reply,
    anthropic_stream,
    openai_text,
    openai_tool,
    serve,
    sse,
)
from zirv_dash.native.anthropic_messages import AnthropicProvider
from zirv_dash.native.openai_compat import OpenAICompatProvider
from zirv_dash.native.protocol import (
    AssistantMessage,
    ChatRequest,
    ProviderError,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDone,
    ToolResultMessage,
    ToolSpec,
    UsageReport,
    UserMessage,
)
from zirv_dash.native.routes import Route
from zirv_dash.native.transport import Limits

server = pytest.fixture(serve)
FAST = Limits(connect=2.0, idle=1.0, total=5.0, max_bytes=4 * 1024 * 1024, max_line=256 * 1024)
TOOL = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {}})
REQUEST = ChatRequest("be brief", (UserMessage("hello"),), (TOOL,))


def route(srv: ProviderServer, provider: str = "openai-compatible") -> Route:
    anthropic = provider == "anthropic"
    return Route(
        name="t",
        provider=provider,
        vendor="anthropic" if anthropic else "vllm",
        base_url=srv.base_url,
        path="/v1/messages" if anthropic else "/v1/chat/completions",
        model="m1",
        account="a",
        billing="api",
        credential_ref="env:ZIRV_TEST_KEY",
    )


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("ZIRV_TEST_KEY", "sk-test-123")
    yield


async def collect(provider: OpenAICompatProvider | AnthropicProvider) -> list[StreamEvent]:
    return [event async for event in provider.stream(REQUEST)]


async def test_openai_streams_text_usage_and_sends_the_protocol(server: ProviderServer) -> None:
    server.replies.append(Reply(chunks=openai_text("Hel", "lo ", "there")))
    events = await collect(OpenAICompatProvider(route(server), FAST))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello there"
    assert UsageReport(12, 5) in events
    seen = server.seen[0]
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer sk-test-123"
    assert seen.body["stream"] is True and seen.body["model"] == "m1"
    assert seen.body["messages"][0] == {"role": "system", "content": "be brief"}
    assert seen.body["tools"][0]["function"]["name"] == "read_file"


async def test_openai_tool_call_arguments_arrive_in_pieces(server: ProviderServer) -> None:
    server.replies.append(Reply(chunks=openai_tool("call_9", "read_file", {"path": "a.txt"})))
    events = await collect(OpenAICompatProvider(route(server), FAST))
    assert ToolCallDone(ToolCall("call_9", "read_file", {"path": "a.txt"})) in events


async def test_openai_history_carries_tool_results(server: ProviderServer) -> None:
    server.replies.append(Reply(chunks=openai_text("ok")))
    call = ToolCall("c1", "read_file", {"path": "x"})
    history = (
        UserMessage("hi"),
        AssistantMessage("", (call,)),
        ToolResultMessage("c1", "read_file", "X"),
    )
    provider = OpenAICompatProvider(route(server), FAST)
    _ = [e async for e in provider.stream(ChatRequest("", history))]
    sent = server.seen[0].body["messages"]
    assert sent[1]["tool_calls"][0]["function"]["arguments"] == '{"path": "x"}'
    assert sent[2] == {"role": "tool", "tool_call_id": "c1", "content": "X"}


async def test_anthropic_streams_text_and_tool_use(server: ProviderServer) -> None:
    server.replies.append(
        Reply(chunks=anthropic_stream("Looking now", ("toolu_1", "read_file", {"path": "b"})))
    )
    events = await collect(AnthropicProvider(route(server, "anthropic"), FAST))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Looking now "
    assert ToolCallDone(ToolCall("toolu_1", "read_file", {"path": "b"})) in events
    assert UsageReport(30, 7) in events
    seen = server.seen[0]
    assert seen.path == "/v1/messages" and seen.headers["x-api-key"] == "sk-test-123"
    assert seen.headers["anthropic-version"] == "2023-06-01"
    assert seen.body["system"] == "be brief" and seen.body["tools"][0]["input_schema"]


async def test_anthropic_merges_tool_results_and_steering_into_one_user_turn(
    server: ProviderServer,
) -> None:
    server.replies.append(Reply(chunks=anthropic_stream("fine")))
    call = ToolCall("t1", "read_file", {})
    history = (
        UserMessage("hi"),
        AssistantMessage("ok", (call,)),
        ToolResultMessage("t1", "read_file", "body"),
        UserMessage("also this"),
    )
    provider = AnthropicProvider(route(server, "anthropic"), FAST)
    _ = [e async for e in provider.stream(ChatRequest("", history))]
    roles = [m["role"] for m in server.seen[0].body["messages"]]
    assert roles == ["user", "assistant", "user"]


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (401, b'{"error": {"message": "bad key"}}', "auth"),
        (404, b'{"error": {"message": "no such model m1"}}', "model"),
        (429, b'{"error": {"message": "slow down"}}', "rate_limit"),
        (503, b"overloaded", "network"),
    ],
)
@pytest.mark.parametrize("provider", ["openai-compatible", "anthropic"])
async def test_http_errors_are_typed(
    server: ProviderServer, status: int, body: bytes, kind: str, provider: str
) -> None:
    server.replies.append(Reply(status=status, content_type="application/json", chunks=[body]))
    client = (AnthropicProvider if provider == "anthropic" else OpenAICompatProvider)(
        route(server, provider), FAST
    )
    with pytest.raises(ProviderError) as err:
        await collect(client)
    assert err.value.kind == kind and "sk-test-123" not in str(err.value)


async def test_anthropic_mid_stream_error_event_is_typed(server: ProviderServer) -> None:
    chunks = anthropic_stream("partial")[:3] + sse(
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        named=True,
    )
    server.replies.append(Reply(chunks=chunks))
    with pytest.raises(ProviderError, match="Overloaded") as err:
        await collect(AnthropicProvider(route(server, "anthropic"), FAST))
    assert err.value.kind == "network"


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (Reply(chunks=[b"data: {not json\n\n"]), "not JSON"),
        (Reply(chunks=openai_text("cut")[:1]), "ended before it finished"),
        (Reply(content_type="application/json", chunks=[b'{"id": 1}']), "expected an event"),
        (Reply(chunks=[b"data: \xff\xfe\n\n"]), "not UTF-8"),
    ],
)
async def test_malformed_streams_are_bad_responses(
    server: ProviderServer, reply: Reply, words: str
) -> None:
    server.replies.append(reply)
    with pytest.raises(ProviderError, match=words) as err:
        await collect(OpenAICompatProvider(route(server), FAST))
    assert err.value.kind == "bad_response"


async def test_a_100_mb_response_ends_in_a_bounded_error(server: ProviderServer) -> None:
    server.replies.append(Reply(huge=100 * 1024 * 1024))
    started = time.monotonic()
    with pytest.raises(ProviderError, match="exceeded") as err:
        await collect(OpenAICompatProvider(route(server), FAST))
    assert err.value.kind == "bad_response" and time.monotonic() - started < 10


async def test_a_hanging_server_ends_in_a_network_error(server: ProviderServer) -> None:
    server.replies.append(Reply(chunks=openai_text("slow")[:1], hang=True))
    started = time.monotonic()
    with pytest.raises(ProviderError, match="no data for") as err:
        await collect(OpenAICompatProvider(route(server), FAST))
    assert err.value.kind == "network" and time.monotonic() - started < 10


async def test_a_dribbling_stream_hits_the_total_deadline(server: ProviderServer) -> None:
    keepalive = [b": keep-alive\n\n"] * 40
    server.replies.append(Reply(chunks=keepalive, delay=0.2))
    limits = Limits(connect=2.0, idle=1.0, total=1.5)
    with pytest.raises(ProviderError, match="did not finish within"):
        await collect(OpenAICompatProvider(route(server), limits))


async def test_nothing_listening_is_a_network_error() -> None:
    dead = Route(
        name="d",
        provider="openai-compatible",
        vendor="vllm",
        base_url="http://127.0.0.1:9",
        path="/v1/chat/completions",
        model="m",
        account="a",
        billing="api",
    )
    with pytest.raises(ProviderError) as err:
        await collect(OpenAICompatProvider(dead, FAST))
    assert err.value.kind == "network"


async def test_a_missing_credential_is_an_auth_error_before_any_request(
    server: ProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ZIRV_TEST_KEY")
    with pytest.raises(ProviderError, match="ZIRV_TEST_KEY is not set") as err:
        await collect(OpenAICompatProvider(route(server), FAST))
    assert err.value.kind == "auth" and server.seen == []
