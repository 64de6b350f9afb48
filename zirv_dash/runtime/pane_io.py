"""The panes' fd readers and writers on the loop: PTY output, pending input, turn signals.

Each pane's PTY fd is watched with `loop.add_reader`; the callback only moves
bytes into the pane's inbox and wakes the pump (`runtime.pump`), which parses.
A pane whose inbox passes its high-water mark, or a hidden one while a key is on
its way (`runtime.hidden_reads`), is not read: its child blocks on write, the
back-pressure a slow terminal applies. A big paste the child has not taken yet
is finished by a writer as soon as its PTY can take more.
"""

from __future__ import annotations

import itertools
import time

from zirv_dash.panes.pane import Pane
from zirv_dash.runtime.fdwatch import FdWatch
from zirv_dash.runtime.hidden_reads import HiddenReads
from zirv_dash.runtime.host import IoHost
from zirv_dash.runtime.native_pane import NativeSessionPane
from zirv_dash.runtime.pump import Pump
from zirv_dash.runtime.states import StatePoller

RESUME_TIMER = "resume reads"


class PaneIO:
    def __init__(self, host: IoHost, pump: Pump, states: StatePoller) -> None:
        self._host = host
        self._pump = pump
        self._states = states
        self._fds: FdWatch | None = None
        self._hidden_reads = HiddenReads()

    def bind(self, fds: FdWatch) -> None:
        """The engine started: its fd watch on the running loop."""
        self._fds = fds

    def watch(self, pane: Pane) -> None:
        fds = self._fds
        if fds is None or self._host.quitting:
            return
        if isinstance(pane, NativeSessionPane):
            # Its session says when its state changes.
            pane.wake = self._states.native_changed
            return
        dash = self._host.dash
        server = dash.signals.get(pane.short)
        if server is not None:
            fds.add_reader(server.fileno(), server, lambda: self._on_signal(pane))
        pty = pane.pty
        if pty is None or pty.eof:
            # Nothing more to read; after the exit drain its fd is closed and its
            # number may already be another's.
            return
        fd, held = pane.fd, self._hidden_reads.holds(pane, dash.focused_pane)
        if fd is not None and not held:  # held: read on resume
            fds.add_reader(fd, pty, lambda: self._on_readable(pane))

    def pause_hidden_reads(self, until: float) -> None:
        """Leave every pane but the focused one unread until `until` (`hidden_reads`)."""
        host = self._host
        if self._fds is not None and not host.quitting:
            reads = self._hidden_reads
            reads.pause(self._fds, host.dash.panes, host.dash.focused_pane, until)
            left = reads.until - time.monotonic()
            host.call_later(RESUME_TIMER, left, self.resume_hidden_reads)

    def resume_hidden_reads(self) -> None:
        """Read every pane again (the hold ended, or the focus moved)."""
        self._host.cancel_timer(RESUME_TIMER)
        for pane in self._hidden_reads.resume():
            self.watch(pane)

    def unwatch(self, pane: Pane) -> None:
        self._hidden_reads.release(pane)
        pty = pane.pty
        if pty is None or self._fds is None:
            return
        self._fds.remove_writer(pty.fd, pty)
        self._fds.remove_reader(pty.fd, pty)

    def unwatch_signal(self, pane: Pane) -> None:
        server = self._host.dash.signals.get(pane.short)
        if server is not None and self._fds is not None:
            self._fds.remove_reader(server.fileno(), server)

    def ensure_flush(self, pane: Pane) -> None:
        """If the child has not taken all its input yet (a big paste), finish the
        write as soon as its PTY can take more, instead of on the next keystroke."""
        pty = pane.pty
        fds = self._fds
        if pty is None or fds is None or not pty.has_pending_writes or pty.eof:
            return
        fds.add_writer(pty.fd, pty, lambda: self._on_writable(pane))

    def _on_writable(self, pane: Pane) -> None:
        pty = pane.pty
        if pty is not None and (pty.flush() or pty.eof) and self._fds is not None:
            self._fds.remove_writer(pty.fd, pty)

    def _on_signal(self, pane: Pane) -> None:
        server = self._host.dash.signals.get(pane.short)
        if server is not None and server.drain():
            pane.turn_signal()
            self._states.poll()

    def _on_readable(self, pane: Pane) -> None:
        before = len(pane.inbox)
        got = pane.read_available()
        host = self._host
        if got and host.output_taps:
            for chunk in itertools.islice(pane.inbox, before, None):
                for tap in list(host.output_taps):
                    tap(pane, chunk)
        if got == 0 and pane.pty is not None and pane.pty.eof:
            self.unwatch(pane)
            host.schedule_reap()
        elif not pane.wants_read:
            self.unwatch(pane)
        self._pump.wake()
