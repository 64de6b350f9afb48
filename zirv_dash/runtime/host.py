"""What the engine's controllers may ask of it: one narrow Protocol per controller.

The engine (`runtime.engine`) builds its controllers and hands each itself; a
controller names only the Protocol here, never `Engine`, so the import arrows go
one way: engine -> controllers -> host. `Engine` satisfies every Protocol below
(mypy checks it where the engine builds them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.handover.files import HandoverAck
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime import events as ev
from zirv_dash.runtime.watch import StateWatcher


class Host(Protocol):
    """What every controller uses: the dashboard state, events, timers and tasks."""

    @property
    def dash(self) -> Dashboard: ...

    @property
    def quitting(self) -> bool: ...

    @property
    def started(self) -> bool: ...

    def emit(self, event: ev.EngineEvent) -> None: ...

    def changed(self) -> None: ...

    def call_later(self, name: str, delay: float, callback: Callable[[], None]) -> None: ...

    def cancel_timer(self, name: str) -> None: ...

    def run_task(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]: ...


class WatchingHost(Host, Protocol):
    """A controller woken by the engine's one file watcher (mail, the swap requests)."""

    @property
    def watcher(self) -> StateWatcher: ...


class OpeningHost(Host, Protocol):
    """A controller that opens panes with I/O and an event (worktrees)."""

    def open_pane(self, agent: str, *, focus: bool = True, **kw: Any) -> Pane: ...

    def operator_pane(
        self, pane: Pane, prompt: str | None, model: str | None, worktree: bool = ...
    ) -> None: ...


class IntakeHost(WatchingHost, OpeningHost, Protocol):
    """The intake: opens, ends, replaces and focuses rows."""

    def close_native(self, pane: Pane, reason: str = ...) -> bool: ...

    def remove_pane(self, pane: Pane) -> None: ...

    def focus(self, index: int) -> bool: ...


class PumpHost(Host, Protocol):
    """The parse pump: a parsed pane is read again, flushed, and its state looked at."""

    def watch(self, pane: Pane) -> None: ...

    def ensure_flush(self, pane: Pane) -> None: ...

    def poll_soon(self) -> None: ...

    def schedule_reap(self) -> None: ...

    def pause_hidden_reads(self, until: float) -> None: ...

    def resume_hidden_reads(self) -> None: ...


class StopHost(Host, Protocol):
    """The stop ladders: a native pane is closed, a finished ladder reaps."""

    def close_native(self, pane: Pane, reason: str = ...) -> bool: ...

    def schedule_reap(self) -> None: ...


class SwapHost(WatchingHost, Protocol):
    """The swap scheduler: a pane's reader is moved to its successor's PTY."""

    def watch(self, pane: Pane) -> None: ...

    def unwatch(self, pane: Pane) -> None: ...


class IoHost(Protocol):
    """The panes' fd readers and writers (`runtime.pane_io`)."""

    @property
    def dash(self) -> Dashboard: ...

    @property
    def quitting(self) -> bool: ...

    @property
    def output_taps(self) -> list[Callable[[Pane, bytes], None]]: ...

    def schedule_reap(self) -> None: ...

    def call_later(self, name: str, delay: float, callback: Callable[[], None]) -> None: ...

    def cancel_timer(self, name: str) -> None: ...


class StatesHost(Protocol):
    """The state poll (`runtime.states`): its timer and the events it emits."""

    @property
    def dash(self) -> Dashboard: ...

    @property
    def loop(self) -> asyncio.AbstractEventLoop: ...

    def emit(self, event: ev.EngineEvent) -> None: ...

    def call_later(self, name: str, delay: float, callback: Callable[[], None]) -> None: ...

    def timer_when(self, name: str) -> float | None: ...


class TypingMail(Protocol):
    """The mail controller's typing: a line at a pane's input prompt, or not at all."""

    def type_command(self, pane: Pane, text: str, *, kind: str) -> bool: ...


class ContextHost(WatchingHost, Protocol):
    """The context controller: transcripts watched, commands typed at a prompt."""

    @property
    def mail(self) -> TypingMail: ...


class Swapping(Protocol):
    """The swap scheduler's request: how a fallback hands a pane over (and whether
    a successor is still on trial in a pane)."""

    def request(
        self,
        short: str,
        agent: str,
        model: str | None,
        *,
        force: bool = ...,
        from_cli: bool = ...,
        fresh: bool = ...,
    ) -> HandoverAck: ...

    def on_trial(self, short: str) -> bool: ...


class FallbackHost(ContextHost, Protocol):
    """The usage-limit breaker: a stopped pane handed to another harness."""

    @property
    def swaps(self) -> Swapping: ...
