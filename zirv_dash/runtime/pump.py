"""The parse pump: PTY bytes into terminal models, in budgeted slices.

One task parses every pending inbox in slices of at most PARSE_SLICE seconds,
the focused pane first, and yields to the loop between slices, so input and
chords are handled within one slice even while every other pane floods.
"""

from __future__ import annotations

import asyncio
import logging
import time

from zirv_dash.runtime import events as ev
from zirv_dash.runtime.host import PumpHost

log = logging.getLogger("zirv.pump")

PARSE_SLICE = 0.001
"""Longest stretch of parsing before the event loop gets a turn (input, timers, paint)."""
PARSE_CHUNK = 4096
BACKGROUND_REST = 2.0
"""While only hidden panes have a backlog, rest this many times the time just spent
parsing: flooding neighbours get at most a third of a core and typing stays prompt."""
HOLD_LIMIT = 0.5
"""Holds renewed back to back (keys faster than a hold lasts) end after this long..."""
BACKGROUND_TURN = 0.1
"""...and for this long the hidden panes are read and parsed whatever is typed, so a
hidden pane reaching its prompt is seen within about HOLD_LIMIT plus its backlog."""


class Pump:
    def __init__(self, engine: PumpHost) -> None:
        self._engine = engine
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._hold_until = 0.0
        self._held_since = 0.0
        self._turn_until = 0.0

    def hold_background(self, seconds: float) -> None:
        """For `seconds`, parse and read only the focused pane: what the user just
        asked for (a chord's overlay, a keystroke's echo) gets the loop and the
        CPU first, and the hidden panes' output waits in the kernel (their
        children block, as on a slow tty)."""
        now = time.monotonic()
        if self._hold_until <= now:
            if now < self._turn_until:
                return  # the hidden panes' turn after a long hold
            self._held_since = now
        elif now - self._held_since >= HOLD_LIMIT:
            self._turn_until = now + BACKGROUND_TURN
            self.release_hold()
            return
        self._hold_until = max(self._hold_until, now + seconds)
        self._engine.pause_hidden_reads(self._hold_until)

    def release_hold(self) -> None:
        """End a hold now: every pane is read and parsed again."""
        self._hold_until = time.monotonic()
        self._engine.resume_hidden_reads()
        self.wake()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="pump")

    def close(self) -> asyncio.Task[None] | None:
        """Stop the pump; the task to await until it has."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        return task

    def wake(self) -> None:
        self._wake.set()

    async def _loop(self) -> None:
        engine = self._engine
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self.drain()
            except Exception as exc:  # noqa: BLE001 - output must keep flowing
                # A bug while parsing one pane must not freeze every pane.
                log.exception("pump")
                engine.dash.error(f"dashboard: output handling failed ({exc})")

    async def drain(self) -> None:
        """Parse every pending inbox, in slices, until none is left."""
        engine = self._engine
        dash = engine.dash
        while True:
            busy = [p for p in dash.panes if p.inbox]
            if not busy:
                break
            focused = dash.focused_pane
            held = self._hold_until - time.monotonic()
            if held > 0:
                if focused is None or focused not in busy:
                    # Until the hold ends, or at once when the echo (the
                    # focused pane's output) is read.
                    await self._rest(held, holding=True)
                    continue
                busy = [focused]
            busy.sort(key=lambda p: p is not focused)
            started = time.monotonic()
            deadline = started + PARSE_SLICE
            for pane in busy:
                while pane.inbox and time.monotonic() < deadline:
                    pane.pump(PARSE_CHUNK)
                engine.emit(ev.PaneOutput(pane.short))
                if pane.wants_read and pane.exit_code is None:
                    engine.watch(pane)
                    engine.ensure_flush(pane)  # query replies, injected text
                pty = pane.pty
                if not pane.inbox and pane.exit_code is None and pty and pty.exit_code is not None:
                    # Its exit was seen before its last output was parsed (the
                    # reap waits for that): now it can be reaped.
                    engine.schedule_reap()
                if time.monotonic() >= deadline:
                    break
            engine.poll_soon()
            if focused is not None and focused.inbox:
                await asyncio.sleep(0)
            else:
                await self._rest((time.monotonic() - started) * BACKGROUND_REST)

    async def _rest(self, seconds: float, *, holding: bool = False) -> None:
        """Give the loop `seconds`, cut short when the focused pane has output
        to parse (a keystroke's echo must not wait for the hidden panes' turn)
        or, `holding`, when the hold is released."""
        end = time.monotonic() + seconds
        while True:
            focused = self._engine.dash.focused_pane
            now = time.monotonic()
            left = end - now
            released = holding and self._hold_until <= now
            if (focused is not None and focused.inbox) or left <= 0 or released:
                return
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), left)
            except TimeoutError:
                return
