"""Pure reducers over the journal: the transcript the pane draws, and the
history the next provider request sends. Same events in, same output out —
no clock, no filesystem, no randomness.

A tool call that was started before the latest `open` event (a restart) and
never finished is "outcome unknown": it is shown so, and the provider is told
so, but nothing ever runs it again.

The transcript is what every view draws (pane, grid tile, web view, a replayed
journal), so each string in it passed `visible` here: no control character from
a model, a tool or an error body reaches a terminal. The provider history keeps
the text as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from zirv_dash.native.journal import Event
from zirv_dash.native.orchestration_tools import SPECS as _ORCHESTRATION_SPECS
from zirv_dash.native.protocol import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from zirv_dash.visible import visible

MAX_TRANSCRIPT_ITEMS = 500
STEERING_PREFIX = "(operator, while you worked)"
SHELL_SHARE = 8000
"""How much of a `!` line's output the model is shown."""
UNKNOWN_RESULT = (
    "outcome unknown: the session stopped while this call ran; it was not re-run. "
    "Check its effect before trying again."
)
RESTART_CANCEL = "cancelled: the session restarted before this call ran"


@dataclass(frozen=True)
class Outcome:
    kind: str  # pending awaiting running cancelled unknown diff test text worker error
    body: str = ""
    passed: int = 0
    failed: int = 0


@dataclass(frozen=True)
class Item:
    kind: str  # user assistant tool notice ended elided
    key: str
    text: str = ""
    steering: bool = False
    name: str = ""
    args: str = ""
    outcome: Outcome | None = None
    tone: str = ""


@dataclass(frozen=True)
class Transcript:
    items: tuple[Item, ...]
    input_tokens: int = 0
    output_tokens: int = 0
    total_output_tokens: int = 0
    acknowledged: tuple[str, ...] = field(default=())


class Reducer:
    """The transcript reducer, fed one event at a time (a live session feeds each
    new event; a replay feeds them all). `build_transcript` is the pure form."""

    def __init__(self, limit: int = MAX_TRANSCRIPT_ITEMS) -> None:
        self.limit = limit
        self.items: list[Item] = []
        self.where: dict[str, int] = {}
        self.started: set[str] = set()
        self.settled: set[str] = set()
        self.usage = (0, 0)
        self.total_out = 0
        self.acked: list[str] = []

    def _outcome(self, call_id: str, outcome: Outcome) -> None:
        if call_id in self.where:
            index = self.where[call_id]
            self.items[index] = replace(self.items[index], outcome=outcome)

    def feed(self, event: Event) -> None:
        d = event.data
        kind = event.kind
        items = self.items
        if kind == "input":
            self.acked.append(str(d.get("id", "")))
            steering = bool(d.get("steering"))
            items.append(Item("user", str(d.get("id")), visible(str(d.get("text", ""))), steering))
        elif kind == "assistant":
            text = visible(str(d.get("text", "")))
            if text.strip():
                items.append(Item("assistant", str(d.get("id")), text))
            if d.get("interrupted"):
                cause = visible(interruption_cause(d))
                text = cause if cause.startswith("interrupted") else f"cut short: {cause}"
                items.append(Item("notice", f"int-{event.seq}", text, tone="muted"))
        elif kind == "tool_call":
            call_id = str(d.get("id"))
            self.where[call_id] = len(items)
            args = args_preview(d.get("arguments"))
            name = visible(str(d.get("name")))
            items.append(Item("tool", call_id, name=name, args=args, outcome=Outcome("pending")))
        elif kind == "approval_request":
            self._outcome(str(d.get("id")), Outcome("awaiting"))
        elif kind == "tool_start":
            self.started.add(str(d.get("id")))
            self._outcome(str(d.get("id")), Outcome("running"))
        elif kind == "tool_finish":
            call_id = str(d.get("id"))
            self.settled.add(call_id)
            name = items[self.where[call_id]].name if call_id in self.where else ""
            self._outcome(call_id, classify(name, d))
        elif kind == "open":
            unknown = 0
            for call_id in list(self.where):
                if call_id in self.settled:
                    continue
                self.settled.add(call_id)
                lost = "unknown" if call_id in self.started else "cancelled"
                unknown += lost == "unknown"
                self._outcome(call_id, Outcome(lost))
            if unknown:
                text = (
                    f"reopened: {unknown} tool call(s) were running when the session stopped; "
                    "their outcome is unknown and they were not re-run — check their effect"
                )
                items.append(Item("notice", f"open-{event.seq}", text, tone="warn"))
        elif kind == "usage":
            self.usage = (_int(d.get("input")), _int(d.get("output")))
            self.total_out += self.usage[1]
        else:
            self._notice(event)

    def _notice(self, event: Event) -> None:
        d = event.data
        if event.kind == "error":
            text = visible(f"{d.get('label', 'error')}: {d.get('message', '')}")
            self.items.append(Item("notice", f"err-{event.seq}", text, tone="err"))
        elif event.kind == "notice":
            text = visible(str(d.get("text", "")))
            self.items.append(Item("notice", f"n-{event.seq}", text, tone="muted"))
        elif event.kind == "compaction":
            text = visible(f"compacted the conversation ({d.get('method', 'structural')} summary)")
            self.items.append(Item("notice", f"c-{event.seq}", text, tone="muted"))
        elif event.kind == "ended":
            self.items.append(Item("ended", f"e-{event.seq}", visible(str(d.get("reason", "")))))

    def result(self) -> Transcript:
        items = self.items
        if len(items) > self.limit:
            hidden = len(items) - (self.limit - 1)
            items = [Item("elided", "elided", str(hidden))] + items[hidden:]
        return Transcript(
            tuple(items), self.usage[0], self.usage[1], self.total_out, tuple(self.acked)
        )


def build_transcript(events: Iterable[Event], limit: int = MAX_TRANSCRIPT_ITEMS) -> Transcript:
    reducer = Reducer(limit)
    for event in events:
        reducer.feed(event)
    return reducer.result()


ORCHESTRATION = frozenset(_ORCHESTRATION_SPECS)
_TEST_COUNTS = re.compile(r"(\d+) (passed|failed)")


def classify(name: str, data: object) -> Outcome:
    d = data if isinstance(data, dict) else {}
    output = visible(str(d.get("output", "")))
    if d.get("display") == "cancelled":
        return Outcome("cancelled", output)
    if not d.get("ok"):
        return Outcome("error", output)
    if name in ORCHESTRATION:  # its first line names the worker and its state
        return Outcome("worker", output)
    if ("\n+++ " in output or output.startswith("--- ")) and "\n@@" in output:
        return Outcome("diff", output)
    if "test" in name:
        counts = {word: int(n) for n, word in _TEST_COUNTS.findall(output)}
        return Outcome("test", output, counts.get("passed", 0), counts.get("failed", 0))
    return Outcome("text", output)


def args_preview(args: object, limit: int = 80) -> str:
    if not isinstance(args, dict):
        return ""
    parts = []
    for key in sorted(args):
        value = args[key]
        shown = value if isinstance(value, str) else repr(value)
        shown = visible(shown.replace("\n", "\\n"))
        parts.append(f"{visible(str(key))}: {shown[:40] + '…' if len(shown) > 40 else shown}")
    text = ", ".join(parts)
    return text[: limit - 1] + "…" if len(text) > limit else text


def conversation(events: Sequence[Event]) -> tuple[Message, ...]:
    """The provider history: what the next request sends.

    Steering that arrived while tool calls were outstanding waits until they all
    have results (a tool call must be answered before anything else is said), and
    a compaction replaces everything before it with its summary."""
    history = _History(events)
    for event in events:
        history.feed(event)
    history.release()
    history.flush_assistant()
    return tuple(history.messages)


class _History:
    """The provider history as `conversation` builds it, one event at a time."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.events = events
        self.messages: list[Message] = []
        self.calls: dict[str, ToolCall] = {}
        self.outstanding: list[str] = []
        self.deferred: list[str] = []
        self.shell: dict[str, str] = {}
        """The operator's `!` commands still running, by call id."""
        self.current: AssistantMessage | None = None
        self.replies: set[str] = set()
        self.waiting: dict[str, list[str]] = {}
        """Steering typed while a reply was written, by that reply's id."""
        self.answering: tuple[str, list[str]] | None = None
        """The reply just read whose steering follows it (and its tool calls)."""

    def say_waiting(self) -> None:
        """Steering whose reply never came (the session stopped while it streamed,
        the journal failed): still said, in the order it was typed."""
        for texts in self.waiting.values():
            self._say_all(texts)
        self.waiting.clear()

    def release(self) -> None:
        """The steering that answers the reply just read, now that its calls are in."""
        if self.answering is not None:
            _, texts = self.answering
            self.answering = None
            self._say_all(texts)

    def _say_all(self, texts: list[str]) -> None:
        for text in texts:
            if not self.outstanding:
                self.flush_assistant()
            self.say(text)

    def flush_assistant(self) -> None:
        if self.current is not None:
            self.messages.append(self.current)
            self.current = None

    def say(self, text: str) -> None:
        """A user message now, or once every outstanding call has its result."""
        if self.outstanding:
            self.deferred.append(text)
        else:
            self.messages.append(UserMessage(text))

    def settle(self, call_id: str, content: str, error: bool) -> None:
        self.flush_assistant()
        if call_id in self.outstanding:
            self.outstanding.remove(call_id)
            name = self.calls[call_id].name if call_id in self.calls else ""
            self.messages.append(ToolResultMessage(call_id, name, content, error))
        if not self.outstanding:
            self.messages.extend(UserMessage(text) for text in self.deferred)
            self.deferred.clear()

    def feed(self, event: Event) -> None:
        d = event.data
        if self.answering is not None and not (
            event.kind == "tool_call" and d.get("message_id") == self.answering[0]
        ):
            self.release()
        if self._operator_shell(event):
            return
        if event.kind == "input":
            after = d.get("after")
            if isinstance(after, str) and after and after not in self.replies:
                self.waiting.setdefault(after, []).append(_input_text(d))
                return
            if not d.get("steering"):
                self.say_waiting()  # a new turn: a reply still awaited never came
            self.flush_assistant()
            self.say(_input_text(d))
        elif event.kind == "assistant":
            self.flush_assistant()
            message_id = str(d.get("id", ""))
            self.replies.add(message_id)
            if message_id in self.waiting:
                self.answering = (message_id, self.waiting.pop(message_id))
            text = str(d.get("text", ""))
            if d.get("interrupted"):
                text = f"{text} [{interruption_cause(d)}]".strip()
            self.current = AssistantMessage(text)
        elif event.kind == "tool_call":
            call = ToolCall(str(d.get("id")), str(d.get("name")), _dict(d.get("arguments")))
            self.calls[call.id] = call
            self.outstanding.append(call.id)
            base = self.current or AssistantMessage("")
            self.current = AssistantMessage(base.text, base.tool_calls + (call,))
        elif event.kind == "tool_finish":
            self.settle(str(d.get("id")), str(d.get("output", "")), not d.get("ok"))
        elif event.kind == "open":
            for call_id in list(self.outstanding):
                started = _was_started(self.events, call_id, event.seq)
                self.settle(call_id, UNKNOWN_RESULT if started else RESTART_CANCEL, True)
            self.say_waiting()
        elif event.kind == "compaction":
            self.flush_assistant()
            self.messages = [UserMessage(str(d.get("summary", "")))]
            self.messages.extend(UserMessage(text) for text in self.deferred)
            self.deferred.clear()

    def _operator_shell(self, event: Event) -> bool:
        """Take the events of the operator's `!` lines; False for any other."""
        d = event.data
        if event.kind == "input" and d.get("shell"):
            return True  # the operator's `!` line reaches the model with its output
        if event.kind == "tool_call" and d.get("operator"):
            self.shell[str(d.get("id"))] = str(_dict(d.get("arguments")).get("command", ""))
            return True
        if event.kind == "tool_finish" and str(d.get("id")) in self.shell:
            command = self.shell.pop(str(d.get("id")))
            output = str(d.get("output", ""))[:SHELL_SHARE]
            if not self.outstanding:
                self.flush_assistant()
            self.say(f"(the operator ran `{command}` in the workdir; its output follows)\n{output}")
            return True
        return False


def interruption_cause(d: Mapping[str, Any]) -> str:
    """What cut an assistant answer short, as journaled (journals written before
    the cause was recorded knew only the operator's interrupt)."""
    cause = d.get("cause")
    return cause if isinstance(cause, str) and cause else "interrupted by the operator"


def _input_text(d: Mapping[str, Any]) -> str:
    """An input event as the model reads it: steering marked, files attached."""
    text = str(d.get("text", ""))
    if d.get("steering"):
        text = f"{STEERING_PREFIX} {text}"
    for ref in d.get("files") or ():
        if isinstance(ref, dict):
            text += f'\n\n<file path="{ref.get("path")}">\n{ref.get("content")}\n</file>'
    return text


def _was_started(events: Sequence[Event], call_id: str, before: int) -> bool:
    return any(
        e.kind == "tool_start" and e.data.get("id") == call_id and e.seq < before for e in events
    )


def _dict(value: object) -> dict[str, object]:
    return dict(value) if isinstance(value, dict) else {}


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
