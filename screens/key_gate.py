"""Keys and pastes reach their target in the order they were typed.

Textual forwards each key to the widget focused *when the App dequeues it*, and
the dashboard interprets the prefix chord only later, on its own task. A burst
such as `Ctrl+A n echo hi Enter` (a paste, a laggy SSH link, `tmux send-keys`)
is therefore forwarded to the pane whole before the `n` chord has opened the
nudge overlay, and the text leaks into the agent. Likewise keys that arrive
while an overlay is still mounting land on a screen with nothing focused and
are lost, and a burst inside a dialog races its own focus changes (`Tab`
moves focus only when the key has bubbled back up to the App).

The gate fixes the order at the one place that sees every key first, the App:
- while the dashboard is on top, keys go straight to its router, synchronously,
  so a chord that pushes an overlay takes effect before the next key is looked at;
- while an overlay is on top, a key is forwarded only once the overlay is mounted
  with its focus settled and the previous key has been fully handled (its
  message queues drained); until then keys wait in a backlog, in order.
Typing one key at a time never waits: the backlog is empty and nothing is busy.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeGuard

from textual import events
from textual.screen import Screen
from textual.widget import Widget

from screens.kitty_input import is_release

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message
    from textual.message_pump import MessagePump

SETTLE_TIMEOUT = 0.25
"""Longest the loop may sit idle while one forwarded key is still unhandled
before the next is sent (a key whose handling publishes nothing)."""
SETTLE_POLL = 0.01
"""How often a settling key is looked at."""
STALL = 0.005
"""A look later than SETTLE_POLL + STALL found the loop busy, not idle: that
time is not counted against SETTLE_TIMEOUT."""
SETTLE_CAP = 2.0
"""Longest wait for one key however busy the loop is."""
MOUNT_TIMEOUT = 1.0
"""Longest wait for an overlay to mount and take focus before keys go anyway."""

FOCUS_TIMEOUT = 5.0
"""Longest wait for focus to reach the widget a declined key is for (a native
pane's composer while its pane is still opening) before the key is dropped."""

InputEvent = events.Key | events.Paste


class NotReady:
    """What a router returns for a key it cannot place yet (its target is still
    opening): the gate keeps it, and every key after it, and asks again."""


NOT_READY = NotReady()
NOT_READY_POLL = 0.01


class KeyRouter(Protocol):
    """The screen that interprets keys itself (the dashboard).

    `route_input` returns None when it handled the event, or the widget that
    should get it through Textual instead (a native pane's composer: its own
    bindings and text editing); the gate then forwards it in order, once focus
    has reached that widget."""

    def route_input(self, event: InputEvent) -> Widget | NotReady | None: ...


@dataclass(frozen=True)
class _Declined:
    """An event the router left to a widget (forwarded through Textual)."""

    event: InputEvent
    target: Widget


class KeyGate:
    """Owned by the App; `offer` is called for every driver key and paste."""

    def __init__(self, app: App[int], forward: Callable[[InputEvent], Awaitable[None]]) -> None:
        self._app = app
        self._forward = forward
        """Textual's own delivery (priority bindings, then the focused widget)."""
        self._backlog: deque[InputEvent | _Declined] = deque()
        self._drain: asyncio.Task[None] | None = None

    @property
    def pending(self) -> int:
        return len(self._backlog)

    def offer(self, event: InputEvent) -> bool:
        """True if the gate took the event (the App must not forward it)."""
        screen = self._app.screen
        if not self._backlog and self._drain is None and _is_router(screen):
            target = screen.route_input(event)
            if target is None:
                return True
            if isinstance(target, NotReady):
                self._backlog.append(event)
            else:
                self._backlog.append(_Declined(event, target))
        else:
            self._backlog.append(event)
        if self._drain is None:
            self._drain = asyncio.create_task(self._run())
        return True

    async def _run(self) -> None:
        try:
            while self._backlog:
                screen = self._app.screen
                item = self._backlog[0]
                if isinstance(item, _Declined):
                    self._backlog.popleft()
                    await self._to_widget(item, screen)
                    continue
                if _is_router(screen):
                    widget = screen.route_input(item)
                    if isinstance(widget, NotReady):
                        await asyncio.sleep(NOT_READY_POLL)  # the router bounds the wait
                        continue
                    self._backlog.popleft()
                    if widget is not None:
                        self._backlog.appendleft(_Declined(item, widget))
                    continue
                if is_release(item):
                    # A key release means something only to a pane's child
                    # (the router's): an overlay's bindings would take it for a press.
                    self._backlog.popleft()
                    continue
                await self._until_ready(screen)
                if self._app.screen is not screen:
                    continue  # the overlay went away while we waited: re-route
                event = self._backlog.popleft()
                if isinstance(event, _Declined):
                    continue  # only at the head, handled above
                target: MessagePump = self._app.focused or screen
                await self._deliver(event)
                await self._settle(target, screen, event)
        finally:
            self._drain = None

    async def _to_widget(self, item: _Declined, screen: Screen[object]) -> None:
        """Forward a declined event once focus is inside its target (a focus
        change a chord just made lands on the next frame), then let it settle."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + FOCUS_TIMEOUT
        target = item.target
        while loop.time() < deadline and _is_router(self._app.screen) and target.is_attached:
            focused = self._app.focused
            if focused is not None and (focused is target or target in focused.ancestors):
                break
            await asyncio.sleep(0.002)
        else:
            return  # the target went away (or never took focus): the event is dropped
        await self._deliver(item.event)
        await self._settle(self._app.focused or screen, screen, item.event)

    async def _deliver(self, event: InputEvent) -> None:
        # A key the App sent itself (Pilot's presses are) is stopped by Textual
        # once it bubbles back to the screen below the App, and bubbles on to
        # the App regardless; _settle would read that stop as handled and send
        # the next key before the App's bindings ran (a Tab not yet moved focus).
        # The terminal's keys have no sender: every key is delivered as those are.
        event._sender = None
        await self._forward(event)

    async def _until_ready(self, screen: Screen[object]) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + MOUNT_TIMEOUT
        while loop.time() < deadline and self._app.screen is screen:
            if screen.is_mounted and (screen.focused is not None or not screen.focus_chain):
                return
            await asyncio.sleep(0.002)

    async def _settle(self, target: MessagePump, screen: Screen[object], event: InputEvent) -> None:
        """Wait until `event` was handled along its whole bubbling path.

        Every pump publishes each message on its `message_signal` once handled;
        the key is done where it was stopped, or when the App (the last hop,
        where bindings run) has handled it. A dialog that closed meanwhile
        ends the wait: its widgets publish nothing once detached."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        chain: list[MessagePump] = [target, *getattr(target, "ancestors", [])]
        if self._app not in chain:
            chain.append(self._app)

        def watcher(node: MessagePump) -> Callable[[Message], None]:
            def seen(message: Message) -> None:
                last_hop = node is self._app or not message.bubble
                if message is event and not done.done() and (last_hop or message._stop_propagation):
                    done.set_result(None)

            return seen

        for node in chain:
            node.message_signal.subscribe(self._app, watcher(node), immediate=True)
        try:
            last = started = loop.time()
            idle = 0.0
            while not done.done() and self._app.screen is screen:
                now = loop.time()
                # Only time the loop sat idle counts: while it was busy (a long
                # frame, a loaded machine handing out short slices) the key may
                # still be on its way, and sending the next one would overtake
                # it (a Tab not yet moved focus, the next character lands in the
                # old field).
                step = now - last
                idle += step if step <= SETTLE_POLL + STALL else 0.0
                last = now
                if idle >= SETTLE_TIMEOUT or now - started >= SETTLE_CAP:
                    break
                await asyncio.wait({done}, timeout=SETTLE_POLL)
        finally:
            for node in chain:
                node.message_signal.unsubscribe(self._app)


def _is_router(screen: object) -> TypeGuard[KeyRouter]:
    return callable(getattr(screen, "route_input", None))
