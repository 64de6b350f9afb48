"""The terminal driver: Textual's Linux driver with only the mouse reports we use,
and an input thread that sleeps until there is input.

Textual asks the terminal for every motion of the mouse (mode 1003), so each
pixel of movement over the dashboard becomes an escape sequence to parse and
an event to route, for nothing: no part of zirv reacts to a pointer that merely
hovers. Clicks and the wheel need 1000, drag-selection needs motion only while
a button is held (1002), and 1006 gives coordinates past column 223 (SGR).

Textual asks every terminal for the kitty keyboard protocol without event
types. Here it is asked for only where the terminal said it speaks it (the
start-up probe's ``CSI ? u``, `outer_terminal`), then with event types too, so a
child that wants key releases and repeats gets them (`kitty_input`); a
terminal that did not answer is sent neither the push nor the pop, and an
unknown one (no answer in time) gets Textual's request as before.

Textual's input thread wakes ten times a second (`select(0.1)`) to look at its
exit flag, which alone costs an idle dashboard a fraction of a percent of a
core. Here the thread blocks until a key arrives, the parser's own timeout is
due (a lone Esc is told from the start of a sequence by waiting), or the exit
flag is set, which also writes to a pipe the thread watches.
"""

from __future__ import annotations

import os
import selectors
import threading
from codecs import getincrementaldecoder
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from textual import events
from textual._loop import loop_last
from textual._parser import ParseError
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

from screens.direct_writer import DirectWriter
from screens.kitty_input import PUSH_FLAGS, KittyKey, without_event_type

MOUSE_ON = (
    "\x1b[?1000h"  # button presses and releases, the wheel
    "\x1b[?1002h"  # motion while a button is held: drag-selection
    "\x1b[?1006h"  # SGR coordinates
)
MOUSE_OFF = (
    "\x1b[?1000l"
    "\x1b[?1002l"
    "\x1b[?1003l"  # in case anything before us asked for all motion
    "\x1b[?1006l"
)
READ_SIZE = 4096
TEXTUAL_KITTY_PUSH = "\x1b[>25u"
"""What Textual 8 writes to enter the kitty keyboard protocol (flags 1|8|16)..."""
TEXTUAL_KITTY_POP = "\x1b[<u"
"""... and to leave it (before leaving the alternate screen)."""


class WakingEvent(threading.Event):
    """An Event whose `set()` also makes a pipe readable, so a thread blocked in
    `select` on that pipe sees the flag at once instead of polling it."""

    def __init__(self) -> None:
        super().__init__()
        self.read_fd, self._write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        os.set_blocking(self._write_fd, False)
        self._closed = False

    def set(self) -> None:
        super().set()
        if self._closed:
            return  # the fd numbers may belong to someone else by now
        try:
            os.write(self._write_fd, b"x")
        except OSError:
            pass  # the pipe is full, so already readable: the flag is what counts

    def drain(self) -> None:
        try:
            while os.read(self.read_fd, 64):
                pass
        except OSError:
            pass  # empty (BlockingIOError) or closed

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for fd in (self.read_fd, self._write_fd):
            try:
                os.close(fd)
            except OSError:
                pass


KEEP_ALT = frozenset("\x1b\r\n\t")
"""Control characters after an Esc that stay one key (see `InputParser`)."""


class InputParser(XTermParser):
    """Textual's parser, except that Esc followed at once by a control key
    (`Esc` then `Ctrl+A`, the prefix, in one read) is those two keys.

    Textual reads such a pair as Alt plus the control key, then drops the Alt,
    since a key like `ctrl+a` has no Alt form: the Esc was lost, so Esc closing a
    dialog followed by the prefix left the dialog open and the prefix unarmed.
    Sent on to a pane, the two keys are the same bytes the pair was. Esc with
    Enter, Tab or Ctrl+J is left as Textual reads it (Alt+Enter is a terminal's
    newline-in-composer key, not an Esc that would cancel the draft)."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        typed = without_event_type(sequence) if sequence.startswith("\x1b[") else None
        if typed is not None:
            # A repeat or release: named by Textual as the press it repeats.
            press, kind = typed
            for key in super()._sequence_to_key_events(press, alt):
                yield key if kind == 1 else KittyKey(key.key, key.character, kind)
            return
        if alt and len(sequence) == 1 and sequence < " " and sequence not in KEEP_ALT:
            yield events.Key("escape", "\x1b")
            alt = False
        yield from super()._sequence_to_key_events(sequence, alt)


def parser_timeout(parser: XTermParser) -> float | None:
    """Seconds until the parser's pending timeout (a lone Esc), None if none is."""
    due: float | None = getattr(parser, "_timeout_time", 0.0)
    if due is None:
        return None
    return max(0.0, due - get_time())


class ButtonMotionDriver(LinuxDriver):
    """Requests button-motion mouse tracking (1002) instead of any-motion (1003),
    and reads input without waking when there is none."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.exit_event: WakingEvent = WakingEvent()
        options = getattr(self._app, "options", None)
        kitty: bool | None = getattr(getattr(options, "outer", None), "kitty_keyboard", None)
        self._kitty_push = (
            TEXTUAL_KITTY_PUSH if kitty is None else f"\x1b[>{PUSH_FLAGS}u" if kitty else ""
        )
        """What replaces Textual's push: Textual's own (unknown), ours, or nothing."""
        self._collecting: list[str] | None = None
        """Writes held for one write, inside `at_once`."""

    def write(self, data: str) -> None:
        if data == TEXTUAL_KITTY_PUSH:
            data = self._kitty_push
        elif data == TEXTUAL_KITTY_POP and not self._kitty_push:
            data = ""  # nothing was pushed: nothing to pop (the outer flags stay as they were)
        if not data:
            return
        if self._collecting is not None:
            self._collecting.append(data)
        else:
            super().write(data)

    def process_message(self, message: Message) -> None:
        # Keys and pastes go to the app's key gate on the loop's next turn
        # rather than through the app's message queue: one loop turn and one
        # dispatch fewer between a key and its bytes reaching the pane. Every
        # key and paste takes this one path, so their order holds.
        take = getattr(self._app, "take_input", None)
        if take is not None and isinstance(message, events.Key | events.Paste):
            message.set_sender(self._app)
            self._loop.call_soon_threadsafe(take, message)
            return
        super().process_message(message)

    def start_application_mode(self) -> None:
        super().start_application_mode()  # type: ignore[no-untyped-call]
        # Textual's output thread, for one that can tell when it is idle
        # (`direct_writer`): what Textual queued so far is written first.
        old, file = self._writer_thread, self._file
        if old is not None and file is not None and not isinstance(old, DirectWriter):
            old.stop()
            self._writer_thread = DirectWriter(file)
            self._writer_thread.start()

    @contextmanager
    def at_once(self) -> Iterator[None]:
        """Everything written inside goes out as one write: from this thread
        at once when the output thread is idle (`direct_writer`), else queued."""
        collected: list[str] = []
        self._collecting = collected
        try:
            yield
        finally:
            self._collecting = None
            data = "".join(collected)
            writer = self._writer_thread
            if data and not (isinstance(writer, DirectWriter) and writer.write_now(data)):
                LinuxDriver.write(self, data)

    def _enable_mouse_support(self) -> None:
        if not self._mouse:
            return
        self.write(MOUSE_ON)
        self.flush()

    def _disable_mouse_support(self) -> None:
        if not self._mouse:
            return
        self.write(MOUSE_OFF)
        self.flush()

    def suspend_application_mode(self) -> None:
        """`App.suspend()` (the diff review's `e` runs $EDITOR): Textual's
        suspend ends with `close()`, but the input thread comes back on resume
        and waits on the exit pipe again, so the pipe stays open until the
        driver really closes (a closed one made that `select` fail with EBADF,
        and the input thread's failure ended the dashboard)."""
        self.stop_application_mode()
        super().close()

    def close(self) -> None:
        super().close()
        self.exit_event.close()

    def run_input_thread(self) -> None:
        """Textual's loop (same parser, same events), with a blocking wait."""
        exit_event = self.exit_event
        exit_event.drain()  # a set() from an earlier stop of input
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        selector.register(exit_event.read_fd, selectors.EVENT_READ)
        fileno = self.fileno
        parser = InputParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode
        take = getattr(self._app, "take_typed_ahead", None)
        typed = decode(take()) if take is not None else ""
        if typed:  # never "": an empty feed is the parser's end of input
            # Keys typed while zirv started, read with the colour answers
            # (`outer_terminal`): before anything typed since, so nothing is
            # lost and the order holds.
            for event in parser.feed(typed):
                self.process_message(event)

        def process(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
            keys = [item for item in ready if item[0].fd == fileno]
            for last, (_key, mask) in loop_last(keys):
                if mask & selectors.EVENT_READ:
                    data = decode(os.read(fileno, READ_SIZE), final=final and last)
                    if not data:
                        break  # stdin is a pipe at its end
                    for event in parser.feed(data):
                        self.process_message(event)
            for event in parser.tick():
                self.process_message(event)

        try:
            while not exit_event.is_set():
                process(selector.select(parser_timeout(parser)))
            # As Textual does: no more reads, but a pending Esc is still sent.
            process([], final=True)
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass
