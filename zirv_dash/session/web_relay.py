"""The process `zirv session web` runs per browser connection (`textual-serve`
starts it): one runtime session shown in the browser's terminal.

It stands where a Textual app would (it speaks textual's web-driver stdio
protocol, `web_packets`) but imports no Textual: it is a relay. It attaches to
the runtime session as an observer, or as its controller with `--control` (a
seat someone else holds leaves it observing, and says so on the status row).
It paints the session's repaint, then streams its `Output` bytes; browser keys
and resizes reach the session only while it holds the controller seat. It never
stops or changes a session otherwise. The browser leaving (a `quit` packet, or
stdin closing) ends it; the session keeps running.

    python -m zirv_dash.session.web_relay --session ID [--control]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

from zirv_dash.session.client import Client, NotRunning, RemoteError
from zirv_dash.session.protocol import ErrorCode, EventKind, ProtocolError
from zirv_dash.session.web_packets import (
    DATA,
    META,
    PRELUDE,
    PacketError,
    PacketReader,
    data_packet,
    parse_meta,
    split_complete,
)

DETACH_TIMEOUT = 2.0
KEY_CHUNK = 192 * 1024
"""Bytes of browser input per `session.send_input` (base64: 256 KiB of a 1 MiB frame)."""
MAX_QUEUED_OUTPUTS = 512
"""Output frames waiting for a slow browser above which they are dropped for a repaint."""
_REGION_RESET = re.compile(rb"\x1b\[[\d;]*r|\x1b\[\?(?:1049|1047|47)[hl]|\x1bc")
"""What may reset the scroll region the relay keeps off the status row."""


class Relay:
    """One browser terminal showing one session."""

    def __init__(self, client: Client, session: str, out: asyncio.StreamWriter) -> None:
        self.client = client
        self.session = session
        self.name = session
        self.out = out
        self.seq = 0
        self.controller = False
        self.browser = (80, 24)
        self.size = (80, 24)
        """The session's terminal size, as its last screen said."""
        self.note = ""
        self.want_control = False
        self.held = b""
        self.keys: asyncio.Queue[bytes] = asyncio.Queue()
        self._paint_lock = asyncio.Lock()

    # -- what the browser sees -------------------------------------------------------------

    def write(self, data: bytes) -> None:
        if data:
            self.out.write(data_packet(data))

    def notes(self) -> str:
        """What the status row says beyond the mode: the latest note, and a window
        too small for a session this browser cannot resize."""
        notes = [self.note] if self.note else []
        (columns, rows), (width, height) = self.browser, self.size
        if not self.controller and (columns < width or rows < height):
            notes.append(f"window {columns}x{rows} < session {width}x{height}")
        return " · ".join(notes)

    def status_row(self) -> int:
        """The browser row (1-based) for the status line, or 0 for none: the row
        below the session when there is one; over its last row only to show a note."""
        rows = self.browser[1]
        if rows > self.size[1]:
            return rows
        return rows if self.notes() else 0

    def status(self, region: bool = True) -> bytes:
        """The status row, drawn; with `region`, the scroll region that keeps the
        session's scrolling off it is set again too."""
        row = self.status_row()
        if not row:
            return b""
        mode = "controlling" if self.controller else "watching (read-only)"
        text = f" zirv web · {self.name} · {mode}"
        if notes := self.notes():
            text += f" · {notes}"
        text = text[: self.browser[0]].ljust(self.browser[0])
        below = region and self.browser[1] > self.size[1]
        margins = f"\x1b[1;{self.size[1]}r" if below else ""
        # Saved and restored around: the session's cursor stays where it put it.
        return f"\x1b7{margins}\x1b[{row};1H\x1b[0;7m{text}\x1b[0m\x1b8".encode()

    async def paint(self) -> None:
        """Clear, repaint the session's screen, and draw the status row."""
        async with self._paint_lock:
            params = {"session": self.session, "repaint": True}
            screen = await self.client.call("session.screen", params)
            self.seq = int(screen["seq"])
            self.size = (int(screen["columns"]), int(screen["rows"]))
            self.held = b""
            repaint = base64.b64decode(screen["repaint"])
            self.write(b"\x1b[0m\x1b[r\x1b[H\x1b[2J" + repaint + self.status())

    def on_output(self, data: bytes) -> None:
        safe, self.held = split_complete(self.held + data)
        # Only an escape sequence can reach the status row (plain text scrolls
        # inside the region), so only a chunk with one redraws it.
        extra = self.status(bool(_REGION_RESET.search(safe))) if b"\x1b" in safe else b""
        self.write(safe + extra)

    def say(self, note: str) -> None:
        self.note = note
        self.write(self.status() or f"\r\n[{note}]\r\n".encode())

    # -- the session -------------------------------------------------------------------

    async def attach(self, control: bool) -> None:
        # Attach by the name given: a session the runtime opens on demand (the
        # hosted dashboard) exists once someone attaches, not before.
        # xterm.js renders truecolor (a UI the runtime draws for us, `dash`, asks).
        params = {"session": self.session, "color_system": "truecolor"}
        self.want_control = control
        mode = "controller" if control else "observer"
        try:
            seat = await self.client.call("session.attach", {**params, "mode": mode})
        except RemoteError as exc:
            if exc.code is not ErrorCode.BUSY:
                raise
            seat = await self.client.call("session.attach", params)
            self.note = "another client holds the controller seat"
        facts = seat["session"]
        self.session = str(facts["id"])
        self.name = str(facts.get("name") or self.session)
        self.controller = seat["mode"] == "controller"
        await self.fit()

    async def claim(self) -> None:
        """`--control` waiting on a taken seat: take it now that it is free (if
        another waiting client is quicker, keep watching)."""
        params = {"session": self.session, "mode": "controller", "color_system": "truecolor"}
        try:
            seat = await self.client.call("session.attach", params)
        except RemoteError:
            return
        self.controller = seat["mode"] == "controller"
        if self.controller:
            self.note = ""
        with contextlib.suppress(RemoteError):
            await self.fit()

    async def fit(self) -> None:
        """The controller makes the session the browser's size (less the status row)."""
        if self.controller:
            columns, rows = self.browser
            params = {"session": self.session, "columns": columns, "rows": max(1, rows - 1)}
            with contextlib.suppress(RemoteError):
                await self.client.call("session.resize", params)
        await self.paint()

    async def pump_output(self) -> None:
        outputs = self.client.outputs
        while True:
            out = await outputs.get()
            if out.output != self.session or out.seq <= self.seq:
                continue
            if out.lost or outputs.qsize() > MAX_QUEUED_OUTPUTS:
                while not outputs.empty():  # the browser fell behind: start from a fresh screen
                    outputs.get_nowait()
                await self.repaint()
                continue
            self.seq = out.seq
            self.on_output(out.data)
            await self.out.drain()

    async def watch_events(self) -> None:
        while True:
            event = await self.client.events.get()
            data = event.data
            if event.event is EventKind.CONTROLLER_CHANGED and data.session_id == self.session:
                was = self.controller
                self.controller = data.controller == self.client.client_id
                if was and not self.controller:
                    self.say("another client took the controller seat")
                elif data.controller is None and self.want_control:
                    await self.claim()
                else:
                    self.write(self.status())
            elif data.session is None or data.session.id != self.session:
                continue
            elif event.event is EventKind.SESSION_EXITED:
                self.say("the session ended")
            elif (data.session.columns, data.session.rows) != self.size:
                await self.repaint()

    async def send_keys(self) -> None:
        """Browser keys, in order, coalesced while a send is under way, in pieces
        well inside the runtime's frame limit (a big paste must not end the link)."""
        while True:
            data = await self.keys.get()
            while not self.keys.empty() and len(data) < KEY_CHUNK:
                data += self.keys.get_nowait()
            for start in range(0, len(data), KEY_CHUNK):
                if not self.controller:
                    break
                piece = base64.b64encode(data[start : start + KEY_CHUNK]).decode()
                with contextlib.suppress(RemoteError):
                    await self.client.call(
                        "session.send_input", {"session": self.session, "data": piece}
                    )

    async def repaint(self) -> None:
        """`paint`, for the streams: a session gone meanwhile is said by its event."""
        with contextlib.suppress(RemoteError):
            await self.paint()

    # -- the browser -------------------------------------------------------------------

    async def on_packet(self, kind: bytes, payload: bytes) -> bool:
        """Act on one browser packet; False when the browser has left."""
        if kind == DATA:
            if self.controller:
                self.keys.put_nowait(payload)
            return True
        if kind != META:
            return True
        meta = parse_meta(payload)
        if meta["type"] in ("quit", "exit"):
            return False
        if meta["type"] == "resize":
            self.browser = _size(meta, self.browser)
            await self.fit()
        return True


def _size(meta: dict[str, Any], default: tuple[int, int]) -> tuple[int, int]:
    try:
        columns, rows = int(meta["width"]), int(meta["height"])
    except (KeyError, TypeError, ValueError):
        return default
    return (min(max(columns, 1), 1000), min(max(rows, 1), 1000))


def _initial_size() -> tuple[int, int]:
    """textual-serve passes the browser's first size as COLUMNS/ROWS."""
    return _size({"width": os.environ.get("COLUMNS"), "height": os.environ.get("ROWS")}, (80, 24))


async def _browser_packets(stdin: asyncio.StreamReader, relay: Relay | None) -> None:
    """Until the browser leaves (a quit packet, stdin closing, a broken stream)."""
    reader = PacketReader()
    while True:
        data = await stdin.read(65536)
        if not data:
            return
        try:
            packets = reader.feed(data)
        except PacketError:
            return
        for kind, payload in packets:
            if relay is None:
                if kind == META and _is_quit(payload):
                    return
                continue
            try:
                if not await relay.on_packet(kind, payload):
                    return
            except (PacketError, RemoteError):
                continue  # a bad packet, or a refused resize: the browser stays


def _is_quit(payload: bytes) -> bool:
    try:
        return parse_meta(payload)["type"] in ("quit", "exit")
    except PacketError:
        return False


async def _pipes() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin.buffer)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout.buffer
    )
    return stdin, asyncio.StreamWriter(transport, protocol, None, loop)


def _message(out: asyncio.StreamWriter, text: str) -> None:
    out.write(data_packet(f"\x1b[0m\x1b[H\x1b[2Jzirv session web: {text}\r\n".encode()))


async def relay(session: str, control: bool) -> int:
    stdin, out = await _pipes()
    out.write(PRELUDE)
    try:
        client = await Client.connect()
    except (NotRunning, OSError, ProtocolError) as exc:
        _message(out, f"{exc}")
        await _browser_packets(stdin, None)
        return 1
    link = Relay(client, session, out)
    link.browser = _initial_size()
    tasks: list[asyncio.Task[Any]] = []
    try:
        try:
            await link.attach(control)
        except (RemoteError, ConnectionError) as exc:
            _message(out, f"cannot show session {session!r}: {exc}")
            await _browser_packets(stdin, None)
            return 1
        tasks = [
            asyncio.create_task(link.pump_output()),
            asyncio.create_task(link.watch_events()),
            asyncio.create_task(link.send_keys()),
        ]
        browser = asyncio.create_task(_browser_packets(stdin, link))
        closed = asyncio.create_task(client.closed.wait())
        tasks.append(closed)
        await asyncio.wait([browser, closed], return_when=asyncio.FIRST_COMPLETED)
        if not browser.done():  # the runtime went away: say so, wait for the browser
            link.say("the runtime is gone")
            await browser
        return 0
    finally:
        for task in tasks:
            task.cancel()
        with contextlib.suppress(RemoteError, ConnectionError, TimeoutError, OSError):
            params = {"session": link.session}
            await asyncio.wait_for(client.call("session.detach", params), DETACH_TIMEOUT)
        await client.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="zirv session web (relay)")
    parser.add_argument("--session", default="dash")
    parser.add_argument("--control", action="store_true")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        return asyncio.run(relay(args.session, args.control))
    except (BrokenPipeError, ConnectionResetError):
        return 0  # textual-serve closed our stdout: the browser is gone


if __name__ == "__main__":
    raise SystemExit(main())
