"""A Textual driver whose terminal is the runtime's `dash` session.

The hosted dashboard draws exactly as it does on a real terminal; its bytes go
to the runtime (which streams them to attached clients and keeps a model of the
screen for the next client to attach), and the controlling client's bytes come
back through `feed`, parsed by Textual's own terminal-input parser. No thread
and no poll: input arrives on the event loop, and the only timer is the one a
lone Esc needs to be told apart from the start of an escape sequence.
"""

from __future__ import annotations

import asyncio
import codecs
from typing import TYPE_CHECKING, Any

from textual import events
from textual.driver import Driver
from textual.geometry import Size

from screens.driver import MOUSE_OFF, MOUSE_ON, InputParser

if TYPE_CHECKING:
    from zirv_dash.session.dash_session import DashLink

ESC_TIMEOUT = 0.1
"""Seconds after which a pending lone Esc is a key (Textual's parser's own)."""
START = (
    "\x1b[?1049h"  # the alternate screen
    "\x1b[?25l"  # the cursor is placed by each frame
    "\x1b[?1004h"  # focus in/out
    "\x1b[?2004h"  # bracketed paste
)
STOP = "\x1b[?2004l\x1b[?1004l" + MOUSE_OFF + "\x1b[?25h\x1b[?1049l"


class SocketDriver(Driver):
    """Textual's driver over a `DashLink` (output) and `feed` (input)."""

    def __init__(
        self,
        app: Any,
        *,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self.link: DashLink = app.hosted_link
        self._parser = InputParser(debug)
        self._decode = codecs.getincrementaldecoder("utf-8")("replace").decode
        self._tick: asyncio.TimerHandle | None = None
        self._input = True
        self._buffer: list[str] = []
        self._flush_soon: asyncio.Handle | None = None

    @property
    def is_headless(self) -> bool:
        return False

    # -- output ---------------------------------------------------------------------------

    def write(self, data: str) -> None:
        # A frame is written in pieces and flushed once; a write outside a frame
        # (a bell, a notification) is flushed on the next turn of the loop.
        self._buffer.append(data)
        if self._flush_soon is None:
            self._flush_soon = self._loop.call_soon(self.flush)

    def flush(self) -> None:
        if self._flush_soon is not None:
            self._flush_soon.cancel()
            self._flush_soon = None
        if self._buffer:
            data = "".join(self._buffer)
            self._buffer.clear()
            self.link.output(data.encode("utf-8", "replace"))

    # -- lifecycle ------------------------------------------------------------------------

    def start_application_mode(self) -> None:
        self.write(START + (MOUSE_ON if self._mouse else ""))
        self.flush()
        self.resize(*(self._size or (80, 24)))

    def stop_application_mode(self) -> None:
        self.disable_input()
        self.write(STOP)
        self.flush()

    def disable_input(self) -> None:
        self._input = False
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None

    # -- input ----------------------------------------------------------------------------

    def resize(self, columns: int, rows: int) -> None:
        self._size = (columns, rows)
        size = Size(columns, rows)
        self._app.post_message(events.Resize(size, size))

    def feed(self, data: bytes) -> None:
        if not self._input:
            return
        for message in self._parser.feed(self._decode(data)):
            self.process_message(message)
        self._arm_tick()

    def _arm_tick(self) -> None:
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        if self._parser._timeout_time is not None:  # a lone Esc waits to be told apart
            self._tick = self._loop.call_later(ESC_TIMEOUT + 0.01, self._on_tick)

    def _on_tick(self) -> None:
        self._tick = None
        if not self._input:
            return
        for message in self._parser.tick():
            self.process_message(message)
        self._arm_tick()
