"""The built-in offline `demo` route: a deterministic, scripted provider.

It lets `zirv chat --runtime native` work on a fresh machine with no key and no
network, and it exercises every part of the pane: streamed text, a read-only
tool call, a mutating tool call that needs an approval, and a reply that reads
the outcome. The same conversation always produces the same stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from zirv_dash.native.protocol import (
    AssistantMessage,
    ChatRequest,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDone,
    ToolResultMessage,
    UsageReport,
    UserMessage,
)
from zirv_dash.native.routes import Route, demo_route
from zirv_dash.native.transcript import STEERING_PREFIX

NOTE_FILE = "zirv-demo.txt"


class DemoProvider:
    def __init__(self, route: Route | None = None, delay: float = 0.02) -> None:
        self.route = route or demo_route()
        self.delay = delay

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        text, calls = self._script(request)
        for word in _words(text):
            if self.delay:
                await asyncio.sleep(self.delay)
            yield TextDelta(word)
        for call in calls:
            yield ToolCallDone(call)
        yield UsageReport(_tokens(request), max(1, len(text) // 4))
        yield StreamEnd("tool_use" if calls else "end_turn")

    def _script(self, request: ChatRequest) -> tuple[str, tuple[ToolCall, ...]]:
        if request.purpose == "compact":
            return structural_summary(request.messages), ()
        asks = [
            i
            for i, m in enumerate(request.messages)
            if isinstance(m, UserMessage) and not m.text.startswith(STEERING_PREFIX)
        ]
        turn = len(asks)
        last_user = asks[-1] if asks else -1
        results = [m for m in request.messages[last_user + 1 :] if isinstance(m, ToolResultMessage)]
        prompt = request.messages[last_user] if last_user >= 0 else None
        asked = prompt.text if isinstance(prompt, UserMessage) else ""
        first = asked.strip().splitlines()[0][:80] if asked.strip() else "(nothing)"
        if not results:
            return (
                "I'll take a look at the **workdir** first.",
                (ToolCall(f"demo-{turn}-list", "list_dir", {"path": "."}),),
            )
        if len(results) == 1:
            content = f"Notes from the zirv demo route.\nYou asked: {first}\n"
            return (
                f"Now I'll write a short note to `{NOTE_FILE}`.",
                (
                    ToolCall(
                        f"demo-{turn}-write",
                        "write_file",
                        {"path": NOTE_FILE, "content": content},
                    ),
                ),
            )
        if results[-1].is_error:
            return f"Understood, I did not write `{NOTE_FILE}`: {results[-1].content[:120]}", ()
        return (
            f"Done. I listed the workdir and wrote `{NOTE_FILE}`.\n\n"
            "- the demo route is offline and scripted\n"
            "- configure `~/.zirv/native.toml` for a real model",
            (),
        )


def structural_summary(messages: tuple[object, ...]) -> str:
    """A deterministic summary built from the conversation's structure alone:
    every user request verbatim, every tool call with its outcome, the last answer."""
    lines = ["Summary of the conversation so far:"]
    for msg in messages:
        if isinstance(msg, UserMessage):
            lines.append(f"- the operator asked: {msg.text.strip()[:400]}")
        elif isinstance(msg, AssistantMessage):
            for call in msg.tool_calls:
                lines.append(f"- called {call.name} {_brief(call.arguments)}")
        elif isinstance(msg, ToolResultMessage):
            state = "failed" if msg.is_error else "succeeded"
            lines.append(f"  {msg.name} {state}: {msg.content.strip()[:160]}")
    answers = [m for m in messages if isinstance(m, AssistantMessage) and m.text.strip()]
    if answers:
        lines.append(f"- last answer: {answers[-1].text.strip()[:400]}")
    return "\n".join(lines)


def _brief(args: dict[str, object]) -> str:
    return ", ".join(f"{k}={str(v)[:60]!r}" for k, v in sorted(args.items()))


def _words(text: str) -> list[str]:
    out: list[str] = []
    for index, part in enumerate(text.split(" ")):
        out.append(part if index == 0 else " " + part)
    return out


def _tokens(request: ChatRequest) -> int:
    size = len(request.system)
    for msg in request.messages:
        size += len(getattr(msg, "text", "") or getattr(msg, "content", ""))
    return max(1, size // 4)
