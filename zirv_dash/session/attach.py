"""`zirv session attach`: this terminal shows one runtime session and types into it.

The terminal is put in raw mode, cleared, and painted with the session's
repaint; then every `Output` after the repaint's `seq` is written as it comes.
Keys go to the session (`Ctrl+A d` detaches, `Ctrl+A Ctrl+A` sends a literal
Ctrl+A); the terminal's size follows SIGWINCH while this client holds the
controller seat. Detaching, or this process dying, stops nothing: the session
keeps running in the runtime and a later attach repaints the same screen.

A terminal that does not hold the seat (another client did: `busy`; a
`--takeover` took it: `controller_changed`) observes: it draws the session at
its own size, letterboxed or cropped, with a status line saying why
(`session.observer_view`), and draws it again when its own size changes.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import select
import signal
import termios
import tty
from collections.abc import Awaitable, Callable
from typing import Any

from zirv_dash.session.client import Client, RemoteError
from zirv_dash.session.dash_session import DASH_ID
from zirv_dash.session.observer_view import ObserverView
from zirv_dash.session.protocol import ErrorCode, EventKind, Output

PREFIX = 0x01  # Ctrl+A
DETACH = ord("d")
RESET_TERMINAL = (
    "\x1b[0m\x1b[?1l\x1b[?2004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l"
    "\x1b[?1004l\x1b[<u\x1b[0 q\x1b[?25h\x1b[?1049l"
)
"""What a session may have switched on in this terminal, switched off again."""
WRITE_WAIT = 1.0
"""Longest wait for a full terminal to take more output, per try."""
OBSERVER_FRAME = 1 / 30
"""An observer's terminal is drawn at most this often (its frames are whole screens)."""


class _Attachment:
    def __init__(self, client: Client, session: str, in_fd: int, out_fd: int) -> None:
        self.client = client
        self.session = session
        self.in_fd = in_fd
        self.out_fd = out_fd
        self.seq = 0
        self.controller = False
        self.done: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._prefixed = False
        self._painting = True  # output waits for the first paint
        self._held: list[Output] = []
        self._repaint: asyncio.Future[None] | None = None
        self.chords_here = True
        """`Ctrl+A d` / `Ctrl+A Ctrl+A` act here (false: every byte is the session's)."""
        self.view: ObserverView | None = None
        """While observing: the session's model, drawn at this terminal's size."""
        self.status = ""
        """Why this terminal observes (shown on its status line)."""
        self._drawing: asyncio.TimerHandle | None = None
        self._session_size: tuple[int, int] | None = None

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self.out_fd, view)
            except BlockingIOError:  # a terminal someone left non-blocking: wait for it
                select.select([], [self.out_fd], [], WRITE_WAIT)
                continue
            view = view[written:]

    async def paint(self) -> None:
        """Clear the terminal and paint the session's repaint; output frames that
        arrive meanwhile wait, then those after the repaint's `seq` are written."""
        self._painting = True
        try:
            params = {"session": self.session, "repaint": True}
            screen = await self.client.call("session.screen", params)
            self.seq = int(screen["seq"])
            repaint = base64.b64decode(screen["repaint"])
            self._session_size = (int(screen["columns"]), int(screen["rows"]))
            if self.controller:
                self.view = None
                self.write(b"\x1b[H\x1b[2J" + repaint)
            else:
                self.view = ObserverView(*self._session_size)
                self.view.status = self.status
                self.view.load(*self._session_size, repaint)
                self.write(b"\x1b[H\x1b[2J")
                self.draw()
        finally:
            self._painting = False
        held, self._held = self._held, []
        for out in held:
            self.on_output(out)

    def on_output(self, out: Output) -> None:
        """One output frame, written as soon as it is read (the client's sink)."""
        if out.output != self.session or out.seq <= self.seq:
            return
        if self._painting:
            self._held.append(out)
        elif out.lost:  # bytes were dropped for us: start again from a fresh screen
            self._painting = True
            self._repaint = asyncio.ensure_future(self.paint())
        elif self.view is not None:
            self.seq = out.seq
            self.view.feed(out.data)
            if self._drawing is None:
                loop = asyncio.get_running_loop()
                self._drawing = loop.call_later(OBSERVER_FRAME, self.draw)
        else:
            self.seq = out.seq
            try:
                self.write(out.data)
            except OSError:  # the terminal went away (a hang-up): nothing to show on
                self._finish("terminal gone")

    def draw(self) -> None:
        """An observer's whole frame, at this terminal's size."""
        if self._drawing is not None:
            self._drawing.cancel()
            self._drawing = None
        if self.view is None:
            return
        try:
            columns, rows = os.get_terminal_size(self.out_fd)
            self.write(self.view.frame(columns, rows))
        except OSError:
            self._finish("terminal gone")

    def observe(self, why: str) -> None:
        """This terminal no longer holds the seat (or never did): say why, and
        draw the session at this terminal's size from a fresh screen."""
        self.controller = False
        self.status = why
        self._repaint = asyncio.ensure_future(self.paint())

    async def resize(self) -> None:
        if not self.controller:
            self.draw()  # an observer's own size changed: the same screen, drawn again
            return
        with contextlib.suppress(OSError):
            columns, rows = os.get_terminal_size(self.out_fd)
            await self.client.call(
                "session.resize", {"session": self.session, "columns": columns, "rows": rows}
            )

    async def watch_events(self) -> None:
        while True:
            event = await self.client.events.get()
            data = event.data
            if event.event is EventKind.SESSION_EXITED and data.session is not None:
                if data.session.id == self.session:
                    self._finish("exited")
            elif event.event is EventKind.CONTROLLER_CHANGED and data.session_id == self.session:
                mine = self.client.client_id
                if data.controller == mine and not self.controller:
                    self.controller, self.status = True, ""
                    await self.resize()
                    self._repaint = asyncio.ensure_future(self.paint())
                elif data.controller != mine and self.controller:
                    taker = data.controller or "nobody"
                    self.observe(f"controller_changed: {taker} took over")
                elif self.view is not None:  # the seat moved between others: say who has it
                    holder = data.controller
                    self.status = (
                        f"controller_changed: {holder} controls it (--takeover takes it)"
                        if holder
                        else "controller_changed: nobody controls it (--takeover takes it)"
                    )
                    self.view.status = self.status
                    self.draw()
            elif event.event is EventKind.SESSION_CHANGED and data.session is not None:
                facts = data.session
                size = (facts.columns, facts.rows)
                if facts.id == self.session and self.view is not None:
                    if self._session_size is not None and size != self._session_size:
                        # Redrawn at the controller's new size: start from its screen.
                        self._repaint = asyncio.ensure_future(self.paint())
            elif event.event is EventKind.CLIENT_DETACHED and data.session_id == self.session:
                if data.client_id == self.client.client_id:
                    self._finish("detached")

    def on_input(self) -> None:
        try:
            data = os.read(self.in_fd, 4096)
        except OSError:
            data = b""
        if not data:
            self._finish("detached")
            return
        self.forward(data)

    def forward(self, data: bytes) -> None:
        """Typed bytes for the session (and this client's own chords)."""
        # An observer's keys reach nothing, so its own chords (Ctrl+A d) act here.
        keys = self._keys(data) if self.chords_here or not self.controller else data
        if keys and self.controller:
            text = base64.b64encode(keys).decode()
            # Written at once, its answer not awaited: a key is on its way to the
            # runtime before this callback returns (a refusal changes nothing here).
            with contextlib.suppress(ConnectionError, RuntimeError):
                self.client.notify("session.send_input", {"session": self.session, "data": text})

    def _keys(self, data: bytes) -> bytes:
        """`data` without the prefix chords (which act here)."""
        out = bytearray()
        for byte in data:
            if self._prefixed:
                self._prefixed = False
                if byte == DETACH:
                    self._finish("detached")
                    return bytes(out)
                out.append(byte)  # Ctrl+A Ctrl+A is a literal Ctrl+A, anything else as typed
            elif byte == PREFIX:
                self._prefixed = True
            else:
                out.append(byte)
        return bytes(out)

    def _finish(self, why: str) -> None:
        if not self.done.done():
            self.done.set_result(why)


async def _choose(client: Client, ref: str | None) -> str:
    if ref:
        return str((await client.call("session.get", {"session": ref}))["session"]["id"])
    sessions = (await client.call("session.list"))["sessions"]
    if any(s["id"] == DASH_ID for s in sessions):
        return DASH_ID  # the runtime's dashboard: every session at once
    live = [s for s in sessions if s["state"] in ("starting", "running")]
    if len(live) != 1:
        names = ", ".join(s["name"] for s in live) or "none"
        raise RemoteError(ErrorCode.BAD_PARAMS, f"name a session to attach (running: {names})")
    return str(live[0]["id"])


async def _seat(
    client: Client, session: str, takeover: bool, color_system: str = ""
) -> tuple[dict[str, Any], str]:
    """The attach's result, and why this terminal observes ("" when it controls)."""
    params = {"session": session, "mode": "controller", "color_system": color_system}
    try:
        result: dict[str, Any] = await client.call("session.attach", params)
    except RemoteError as exc:
        if exc.code is not ErrorCode.BUSY:
            raise
        if takeover:
            result = await client.call("session.takeover", {"session": session})
        else:  # someone else controls it: watch, and say how to take it
            result = await client.call("session.attach", {"session": session})
            holder = result["session"].get("controller") or "another client"
            return result, f"busy: {holder} controls it (--takeover takes it)"
    return result, ""


async def attach(
    ref: str | None,
    takeover: bool = False,
    in_fd: int = 0,
    out_fd: int = 1,
    color_system: str = "",
    typed: bytes = b"",
    connect: Callable[[], Awaitable[Client]] | None = None,
) -> str:
    """Attach until detached or the session ends; returns why ("detached", "exited",
    "runtime gone"). `typed`: keys typed before this client read the terminal (the
    start-up probe kept them), sent ahead of any read here. `connect` opens the
    client (default: this machine's runtime; `zirv session attach --host` passes
    one over ssh)."""
    client = await (connect() if connect is not None else Client.connect())
    loop = asyncio.get_running_loop()
    saved = termios.tcgetattr(in_fd)
    try:
        session = await _choose(client, ref)
        seat, why = await _seat(client, session, takeover, color_system)
        link = _Attachment(client, session, in_fd, out_fd)
        # The dashboard reads its own chords (its `Ctrl+A d` detaches this client).
        link.chords_here = session != DASH_ID
        link.controller = seat["mode"] == "controller"
        link.status = why or ("" if link.controller else "observing")
        tty.setraw(in_fd)
        client.output_sink = link.on_output
        await link.resize()
        await link.paint()
        if typed:
            link.forward(typed)
        loop.add_reader(in_fd, link.on_input)
        loop.add_signal_handler(signal.SIGWINCH, lambda: asyncio.ensure_future(link.resize()))
        tasks = [asyncio.ensure_future(link.watch_events())]
        closed = asyncio.ensure_future(client.closed.wait())
        waits: list[asyncio.Future[Any]] = [link.done, closed]
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        why = link.done.result() if link.done.done() else "runtime gone"
        for task in (*tasks, closed):
            task.cancel()
        if link._repaint is not None and not link._repaint.done():
            link._repaint.cancel()
        if link._drawing is not None:
            link._drawing.cancel()
        return why
    finally:
        with contextlib.suppress(ValueError, OSError):
            loop.remove_reader(in_fd)
        with contextlib.suppress(ValueError, RuntimeError):
            loop.remove_signal_handler(signal.SIGWINCH)
        termios.tcsetattr(in_fd, termios.TCSADRAIN, saved)
        with contextlib.suppress(OSError):
            os.write(out_fd, RESET_TERMINAL.encode())
        await client.close()
