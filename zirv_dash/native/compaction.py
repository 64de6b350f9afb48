"""Compaction: the conversation summarized through the route for a fresh
context window, or structurally when the route cannot."""

from __future__ import annotations

from zirv_dash.native.demo_provider import structural_summary
from zirv_dash.native.protocol import ChatRequest, Message, ProviderError, TextDelta, UserMessage
from zirv_dash.native.providers import Provider

COMPACT_PROMPT = (
    "Summarize this conversation for a fresh context window: the objective, hard "
    "constraints, every request the operator made, what was done (tool calls and their "
    "outcomes, unknown ones as unknown) and what is still open. Plain text, no preamble."
)
COMPACT_MAX_TOKENS = 1024


async def summarize(
    provider: Provider, history: tuple[Message, ...]
) -> tuple[str, str, str | None]:
    """The summary (stripped), how it was made ("route" or "structural"), and a
    notice to journal before it when the route failed. No tools, bounded output;
    a cancellation propagates."""
    summary, failure = "", None
    request = ChatRequest(
        COMPACT_PROMPT,
        history + (UserMessage(COMPACT_PROMPT),),
        (),
        COMPACT_MAX_TOKENS,
        "compact",
    )
    try:
        async for event in provider.stream(request):
            if isinstance(event, TextDelta):
                summary += event.text
    except ProviderError as exc:
        failure = f"compaction through the route failed ({exc})"
        summary = ""
    if not summary.strip():
        return structural_summary(history).strip(), "structural", failure
    return summary.strip(), "route", failure
