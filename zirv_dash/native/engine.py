"""The conversation engine: route + journal + tools + approvals, on asyncio.

`NativeSession` runs in the caller's event loop (the Textual app's, or a test's).
Everything the pane shows comes from `snapshot()`: the transcript reduced from
the journal plus the few live facts that are not journaled yet (the text being
streamed, the open approval, the queue). `on_change` is called after every
change so a view can redraw.

Submitting depends on the state: idle → a new turn; mid-turn → steering,
journaled at once and sent at the next request; blocked on an approval → queued
(a queued line is never an approval answer; only `answer()` is).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from zirv_dash.native import orchestration_tools
from zirv_dash.native.approvals import Answer, ApprovalRequest, Policy
from zirv_dash.native.calls import run_call
from zirv_dash.native.commands import HELP_TEXT
from zirv_dash.native.compaction import summarize
from zirv_dash.native.filerefs import resolve_refs
from zirv_dash.native.journal import Event, Journal, JournalError, new_id
from zirv_dash.native.orchestration_tools import Fleet
from zirv_dash.native.protocol import (
    ChatRequest,
    ProviderError,
    TextDelta,
    ToolCall,
    ToolCallDone,
    ToolSpec,
    UsageReport,
)
from zirv_dash.native.providers import Provider, make_provider
from zirv_dash.native.routes import Route
from zirv_dash.native.snapshot import Snapshot, context_left
from zirv_dash.native.tools import Workdir, specs
from zirv_dash.native.transcript import Reducer, conversation
from zirv_dash.visible import visible

MAX_STEPS = 25
OPERATOR_CAUSE = "interrupted by the operator"
DROPPED_CAUSE = "the connection dropped"


class NativeSession:
    def __init__(
        self,
        route: Route,
        journal: Journal,
        workdir: Path,
        *,
        provider: Provider | None = None,
        headless: bool = False,
        on_change: Callable[[], None] | None = None,
        session_id: str = "",
        role: str = "",
        require_sandbox: bool = False,
    ) -> None:
        self.route = route
        self.journal = journal
        self.name = journal.path.stem
        self.workdir = Workdir(workdir, require_sandbox=require_sandbox)
        self.provider = provider or make_provider(route)
        self.policy = Policy(headless=headless)
        self.fleet: Fleet | None = None
        """The orchestration tools' backend, installed by a host that can open
        worker panes (`zirv_dash.delegation.service`); None offers no such tool."""
        self.on_change = on_change
        self.listeners: list[Callable[[], None]] = []
        """Told of every change too (the host's pane); `on_change` is the view's."""
        self.events: list[Event] = journal.events()
        self.state = "idle"
        self.streaming = ""
        """The answer being streamed, as the model sent it (journaled so)."""
        self._shown_stream = ""
        """`streaming` as views draw it: each delta through `visible` on arrival."""
        self.pending: ApprovalRequest | None = None
        self.queued: list[str] = []
        self.closed = False
        self._compacting = False
        self._future: asyncio.Future[tuple[Answer, str]] | None = None
        self._task: asyncio.Task[None] | None = None
        self._turn_started: float | None = None
        self._turn_tokens = 0
        self._reducer = Reducer()
        for event in self.events:
            self._reducer.feed(event)
        self._transcript = self._reducer.result()
        self._shown_only = 0
        self._reply_id: str | None = None
        """The id the reply being requested or streamed will be journaled under."""
        # Who and where, so a dashboard that was killed can offer it again
        # (`reopen.unfinished`).
        where = {"session": session_id, "role": role, "workdir": str(self.workdir.root)}
        self.record("open", route=route.name, model=route.model, **where)
        if journal.skipped:
            self._show(
                "notice",
                text=f"the journal had {journal.skipped} unreadable row(s); they were skipped",
            )

    # ---- journal --------------------------------------------------------------------

    def record(self, kind: str, **data: object) -> Event:
        """Journal one event and fold it into the transcript. A journal that
        cannot take it (locked by another process, damaged) raises JournalError
        after the fault is shown: nothing unjournaled is ever acted on."""
        try:
            event = self.journal.append(kind, **data)
        except JournalError as exc:
            self._show("error", error_kind="journal", label="journal error", message=str(exc))
            raise
        self.events.append(event)
        self._reducer.feed(event)
        self._transcript = self._reducer.result()
        self._changed()
        return event

    def _show(self, kind: str, **data: object) -> None:
        """Fold an event into the transcript only (never journaled, never sent to
        the model): what the journal itself could not keep, or what it lacks."""
        self._shown_only -= 1
        self._reducer.feed(Event(self._shown_only, kind, data))
        self._transcript = self._reducer.result()
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()
        for listener in list(self.listeners):
            listener()

    def snapshot(self) -> Snapshot:
        return Snapshot(
            transcript=self._transcript,
            streaming=self._shown_stream if self.streaming else "",
            state=self.state,
            pending=self.pending,
            queued=tuple(self.queued),
            turn_started=self._turn_started,
            turn_tokens=self._turn_tokens,
            route=self.route,
            context_left=context_left(self._transcript, self.route),
            running=self.busy,
        )

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    # ---- operator actions -------------------------------------------------------------

    def submit_mode(self) -> str:
        if self.pending is not None or self._compacting:
            return "queue"
        return "steer" if self.busy else "send"

    def submit(self, text: str, *, commands: bool = True) -> str:
        """What happened to `text`: sent, steer, queued, command, empty, or failed
        (the journal could not record it: the fault is shown, nothing started).
        `commands=False` (mail, nudges) never runs a /command or a !shell line."""
        try:
            return self._submit(text, commands)
        except JournalError:
            self.state = "failed"
            self._changed()
            return "failed"

    def _submit(self, text: str, commands: bool) -> str:
        if not text.strip():
            return "empty"
        if commands and text.startswith("/") and self._command(text.strip()):
            return "command"
        mode = "queue" if self.closed else self.submit_mode()
        if mode == "queue":
            self.queued.append(text)
            self._changed()
            return "queued"
        if mode == "steer":
            # Typed while a reply is being written: it answers that reply, so the
            # model reads it after it (`after`), never before it.
            after = {"after": self._reply_id} if self._reply_id else {}
            self.record("input", id=new_id("steer"), text=text, steering=True, **after)
            return "steer"
        if not commands and text.startswith("!"):
            self._start_turn(text)  # mail is text for the model, never a shell line
        else:
            self._start(text)
        return "sent"

    def restore_queue(self, texts: list[str]) -> None:
        """Queued input kept from an earlier run: sent in order once the session is
        ready, as if it had been queued just now."""
        self.queued.extend(t for t in texts if t.strip())
        if self.queued and not self.busy and self.pending is None and not self.closed:
            self._start_queued(self.queued.pop(0))
        self._changed()

    def interrupt(self) -> bool:
        if not self.busy:
            return False
        assert self._task is not None
        self._task.cancel()
        return True

    def answer(self, call_id: str, answer: Answer, guidance: str = "") -> bool:
        """Answer the open approval for `call_id`; a stale or foreign answer is ignored."""
        pending, future = self.pending, self._future
        if pending is None or future is None or future.done() or pending.call_id != call_id:
            return False
        if answer not in {a for a, _ in pending.options()}:
            return False  # e.g. "yes" on a headless session, "always" on an inexact scope
        future.set_result((answer, guidance))
        return True

    async def wait_idle(self) -> None:
        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)

    async def close(self, reason: str = "closed") -> None:
        """Stop the turn (its calls settle as cancelled), journal the end, close.
        Queued input is not sent: it stays in `queued` for the caller to keep."""
        if self.closed:
            return
        self.closed = True
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait([task])
        try:
            self.record("ended", reason=reason)
        except JournalError:
            pass  # shown; the end is then read as a stop, the reopened calls as unknown
        self.journal.close()

    # ---- slash commands -------------------------------------------------------------

    def _command(self, line: str) -> bool:
        word = line.split()[0]
        if word == "/clear":
            count = len(self.queued)
            self.queued.clear()
            self.record("notice", text=f"cleared {count} queued input(s)")
        elif word == "/help":
            self.record("notice", text=HELP_TEXT)
        elif word == "/status":
            billing = self.route.billing
            left = self.snapshot().context_left
            context = f" · context left {left}%" if left is not None else ""
            text = f"{self.route.label} · {self.route.name} · {self.state} · {billing}{context}"
            text += f" · {self.workdir.commands()}"
            self.record("notice", text=text)
        elif word == "/compact":
            if self.busy:
                self.record("notice", text="/compact waits until the turn has ended")
            else:
                self._task = asyncio.get_running_loop().create_task(self._compact())
        else:
            return False  # an unknown /word is ordinary text
        return True

    async def _compact(self) -> None:
        """Summarize through the route (no tools, bounded output); a structural
        summary when the route cannot. Input submitted meanwhile is queued."""
        try:
            await self._summarize()
        except JournalError:  # shown; the history stays as the journal has it
            self._compacting = False
            self._finish("failed")

    async def _summarize(self) -> None:
        history = conversation(self.events)
        if not history:
            self.record("notice", text="nothing to compact yet")
            return
        self._compacting = True
        self.state = "generating"
        self._changed()
        try:
            summary, method, failure = await summarize(self.provider, history)
        except asyncio.CancelledError:
            self._compacting = False
            self.record("notice", text="compaction interrupted; the history is unchanged")
            self._finish("cancelled")
            return
        if failure is not None:
            self.record("notice", text=failure)
        self._compacting = False
        self.record("compaction", summary=summary, method=method)
        self._finish("completed")

    # ---- the turn -------------------------------------------------------------------

    def _start(self, text: str) -> None:
        if text.startswith("!") and text[1:].strip():
            self._start_shell(text)
        else:
            self._start_turn(text)

    def _start_shell(self, text: str) -> None:
        """A `!` line: the operator's own command, through the same tool and the
        same approval gate as any call the model makes."""
        self.record("input", id=new_id("in"), text=text, steering=False, shell=True)
        self._turn_started = time.monotonic()
        self._turn_tokens = 0
        call = ToolCall(new_id("sh"), "run_command", {"command": text[1:].strip()})
        self._task = asyncio.get_running_loop().create_task(self._shell(call))

    async def _shell(self, call: ToolCall) -> None:
        self.record(
            "tool_call",
            id=call.id,
            message_id="operator",
            name=call.name,
            arguments=call.arguments,
            operator=True,
        )
        try:
            await run_call(self, call, operator=True)
            self._finish("completed")
        except asyncio.CancelledError:
            self._settle("cancelled", "interrupted", OPERATOR_CAUSE)
        except JournalError:
            self._finish("failed")

    def _start_turn(self, text: str) -> None:
        refs, notes = resolve_refs(self.workdir, text)
        files = [{"path": r.path, "content": r.content} for r in refs]
        self.record("input", id=new_id("in"), text=text, steering=False, files=files)
        for note in notes:
            self.record("notice", text=note)
        self._turn_started = time.monotonic()
        self._turn_tokens = 0
        self._task = asyncio.get_running_loop().create_task(self._turn())

    async def _turn(self) -> None:
        try:
            for _ in range(MAX_STEPS):
                step_start = self.events[-1].seq
                calls = await self._step()
                for call in calls:
                    await run_call(self, call)
                steered = any(
                    e.kind == "input" and e.data.get("steering") and e.seq > step_start
                    for e in self.events
                )
                if not calls and not steered:
                    break
            else:
                self.record("notice", text=f"stopped after {MAX_STEPS} steps in one turn")
            self._finish("completed")
        except asyncio.CancelledError:
            self._settle("cancelled", "interrupted", OPERATOR_CAUSE)
        except JournalError:
            # Shown already (`record`). Nothing more can be journaled, so nothing
            # more is done: the calls left open read as unknown when it reopens.
            self._finish("failed")
        except ProviderError as exc:
            label = str(exc).split(":")[0]
            cause = DROPPED_CAUSE if exc.dropped else f"the response failed ({label})"
            error = {"error_kind": exc.kind, "label": label, "message": exc.message}
            self._settle("failed", "failed", cause, error)
        except Exception as exc:  # noqa: BLE001 - the pane must survive any engine fault
            error = {"error_kind": "internal", "label": "internal error", "message": repr(exc)}
            self._settle("failed", "failed", "an internal error", error)

    def _settle(
        self, state: str, why: str, cause: str, error: dict[str, str] | None = None
    ) -> None:
        """End a turn that did not complete: what it leaves is settled and the
        error journaled; a journal that fails meanwhile is shown, not raised."""
        try:
            self._abandon(why, cause)
            if error is not None:
                self.record("error", **error)
        except JournalError:
            pass
        self._finish(state)

    def _finish(self, state: str) -> None:
        self.state = state
        self.streaming = ""
        self._turn_started = None
        self._changed()
        if self.queued and not self.closed:
            text = self.queued.pop(0)
            asyncio.get_running_loop().call_soon(self._start_queued, text)

    def _start_queued(self, text: str) -> None:
        if self.closed or self.busy:
            self.queued.insert(0, text)
            return
        try:
            self._start(text)
        except JournalError:
            self.queued.insert(0, text)  # kept for the next try; the fault is shown
            self.state = "failed"
            self._changed()

    async def _step(self) -> list[ToolCall]:
        self.state = "generating"
        self._changed()
        request = ChatRequest(
            self._system(), conversation(self.events), self.tool_specs(), self.route.max_tokens
        )
        calls: list[ToolCall] = []
        self.streaming = self._shown_stream = ""
        # Allocated before the request: steering typed from here on answers it.
        self._reply_id = message_id = new_id("m")
        async for event in self.provider.stream(request):
            if isinstance(event, TextDelta):
                self.streaming += event.text
                self._shown_stream += visible(event.text)
                self._turn_tokens += max(1, len(event.text) // 4)
                self._changed()
            elif isinstance(event, ToolCallDone):
                calls.append(event.call)
            elif isinstance(event, UsageReport):
                self.record("usage", input=event.input_tokens, output=event.output_tokens)
        text, self.streaming = self.streaming, ""
        self.record("assistant", id=message_id, text=text)
        self._reply_id = None
        for call in calls:
            self.record(
                "tool_call",
                id=call.id,
                message_id=message_id,
                name=call.name,
                arguments=call.arguments,
            )
        return calls

    # ---- what a tool call needs (`calls.CallHost`) ------------------------------------

    def tool_specs(self) -> tuple[ToolSpec, ...]:
        extra = orchestration_tools.specs() if self.fleet is not None else ()
        return (*specs(), *extra)

    def set_state(self, state: str) -> None:
        self.state = state
        self._changed()

    async def ask(self, request: ApprovalRequest) -> tuple[Answer, str]:
        """Block the turn on `request` until `answer()` settles it."""
        self.record("approval_request", id=request.call_id, scope=request.scope)
        self._future = asyncio.get_running_loop().create_future()
        self.pending = request
        self.state = "blocked"
        self._changed()
        try:
            return await self._future
        finally:
            self.pending = None
            self._future = None

    def _abandon(self, why: str, cause: str) -> None:
        """Settle what the turn leaves behind: partial text is kept (marked with
        `cause`, what cut it short), and every call not finished is cancelled —
        none is left to run later."""
        reply_id, self._reply_id = self._reply_id, None
        awaited = reply_id is not None and any(
            e.kind == "input" and e.data.get("after") == reply_id for e in self.events
        )
        if self.streaming or awaited:
            # Kept even when empty if steering answers it (`after`).
            text, self.streaming = self.streaming, ""
            message_id = reply_id or new_id("m")
            self.record("assistant", id=message_id, text=text, interrupted=True, cause=cause)
        finished = {e.data.get("id") for e in self.events if e.kind == "tool_finish"}
        for event in list(self.events):
            if event.kind == "tool_call" and event.data.get("id") not in finished:
                self.record(
                    "tool_finish",
                    id=event.data.get("id"),
                    ok=False,
                    display="cancelled",
                    output=f"cancelled ({why})",
                )

    def _system(self) -> str:
        return (
            "You are zirv's native coding agent. You work in the directory "
            f"{self.workdir.root} and can only reach files inside it through your tools. "
            "Mutating tools wait for the operator's approval; if one is denied, follow the "
            "operator's guidance instead of retrying."
            + (orchestration_tools.SYSTEM_NOTE if self.fleet is not None else "")
        )
