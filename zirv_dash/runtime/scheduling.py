"""Named timers and owned worker tasks: what the engine (and its controllers) schedule.

`Engine` takes these from `Scheduling`; `close()` there cancels every one, and
`wait_closed()` awaits the tasks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from zirv_dash.dash.dashboard import Dashboard

log = logging.getLogger("zirv.engine")


class Scheduling:
    """Mixed into `Engine`, which sets these attributes."""

    dash: Dashboard
    closed: bool
    _loop: asyncio.AbstractEventLoop | None
    _tasks: set[asyncio.Task[Any]]
    _timers: dict[str, asyncio.TimerHandle]

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            raise RuntimeError("engine not started")
        return self._loop

    def call_later(self, name: str, delay: float, callback: Callable[[], None]) -> None:
        """One named timer: arming it again replaces the previous one."""
        self.cancel_timer(name)
        if self.closed or self._loop is None:
            return

        def fire() -> None:
            self._timers.pop(name, None)
            if not self.closed:
                callback()

        self._timers[name] = self._loop.call_later(max(0.0, delay), fire)

    def cancel_timer(self, name: str) -> None:
        handle = self._timers.pop(name, None)
        if handle is not None:
            handle.cancel()

    def timer_when(self, name: str) -> float | None:
        """When the named timer fires (loop time), None if it is not armed."""
        handle = self._timers.get(name)
        return None if handle is None else handle.when()

    def run_task(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """A worker task the engine owns (cancelled on close; failures logged)."""
        task = self.loop.create_task(coro, name=name)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                exc = t.exception()
                log.error("task %s failed", name, exc_info=exc)
                self.dash.error(f"{name}: {exc}")

        task.add_done_callback(done)
        return task
