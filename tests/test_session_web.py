"""`zirv session web`: the relay process textual-serve runs per browser, driven
over its real stdio pipes against a real runtime, and the token gate of the
real web server (a wrong or missing token never starts a relay)."""

from __future__ import annotations

import http.client
import os
import re
import select
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sessionrig import descendants, runtime, short_state  # noqa: F401 (fixtures)
from zirv_dash.session import blocking
from zirv_dash.session.web_packets import (
    DATA,
    META,
    PRELUDE,
    PacketReader,
    data_packet,
    meta_packet,
)

SHELL = ["/bin/sh", "-c", "echo web-$((6*7)); exec /bin/sh -i"]
"""Prints a marker no echo of the command line contains, then reads commands."""
RELAY = [sys.executable, "-m", "zirv_dash.session.web_relay"]


def start_shell(name: str = "sh") -> str:
    started = blocking.call("session.start", {"argv": SHELL, "name": name, "harness": "shell"})
    sid: str = started["session"]["id"]
    blocking.call("session.wait", {"session": sid, "text": "web-42", "timeout": 20}, timeout=30)
    return sid


class RelayProc:
    """A relay as textual-serve runs it: pipes, the browser's size in COLUMNS/ROWS."""

    def __init__(self, *args: str, columns: int = 100, rows: int = 30) -> None:
        env = dict(os.environ, COLUMNS=str(columns), ROWS=str(rows))
        self.proc = subprocess.Popen(
            [*RELAY, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        # A byte at a time, from the descriptor: the packets after the prelude
        # stay in the pipe for read_until (a buffered readline would swallow a
        # paint that arrived with it).
        fd, self.prelude = self.proc.stdout.fileno(), b""
        while not self.prelude.endswith(b"\n") and (byte := os.read(fd, 1)):
            self.prelude += byte
        self.reader = PacketReader()
        self.screen = b""
        self.metas: list[bytes] = []

    def send(self, packet: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(packet)
        self.proc.stdin.flush()

    def read_until(self, needle: bytes, timeout: float = 20.0) -> bytes:
        """Terminal bytes received so far once `needle` is among them."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while needle not in self.screen:
            assert time.monotonic() < deadline, f"no {needle!r} in {self.screen[-400:]!r}"
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"no {needle!r} in {self.screen[-400:]!r}"
            chunk = os.read(fd, 65536)
            assert chunk, f"the relay ended without {needle!r}: {self.stderr()}"
            for kind, payload in self.reader.feed(chunk):
                if kind == DATA:
                    self.screen += payload
                elif kind == META:
                    self.metas.append(payload)
        return self.screen

    def stderr(self) -> str:
        if self.proc.poll() is None or self.proc.stderr is None:
            return ""
        return self.proc.stderr.read().decode(errors="replace")

    def wait(self, timeout: float = 15.0) -> int:
        return self.proc.wait(timeout)

    def end(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


@pytest.fixture
def relays() -> Iterator[list[RelayProc]]:
    started: list[RelayProc] = []
    yield started
    for relay in started:
        relay.end()


def facts(sid: str) -> dict[str, object]:
    result: dict[str, object] = blocking.call("session.get", {"session": sid})["session"]
    return result


def test_the_relay_imports_no_textual() -> None:
    code = (
        "import sys, zirv_dash.session.web_relay\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_an_observer_relay_paints_the_screen_then_streams_and_types_nothing(
    runtime: subprocess.Popen[str],  # noqa: F811
    relays: list[RelayProc],
) -> None:
    sid = start_shell()
    relay = RelayProc("--session", "sh")
    relays.append(relay)
    assert relay.prelude == PRELUDE
    relay.read_until(b"web-42")  # the repaint carries what was on screen before
    relay.read_until(b"watching (read-only)")  # the status row below the 24-row session
    assert facts(sid)["observers"] == 1 and facts(sid)["controller"] is None

    relay.send(data_packet(b"echo leak-$((1+1))\r"))
    # A resize repaints (a fresh status row): by then the keys were handled.
    relay.send(meta_packet({"type": "resize", "width": 90, "height": 28}))
    relay.read_until(b"watching (read-only)" + b" " * 40)
    relay.send(meta_packet({"type": "resize", "width": 75, "height": 20}))
    relay.read_until(b"window 75x20 < session 80x24")  # too small for it: said
    lines = "\n".join(blocking.call("session.read", {"session": sid})["lines"])
    assert "leak" not in lines  # (the runtime would refuse an observer's keys too)
    assert facts(sid)["columns"] == 80  # an observer's browser does not resize the session


def test_an_observer_relay_streams_what_the_session_writes_after_the_repaint(
    runtime: subprocess.Popen[str],  # noqa: F811
    relays: list[RelayProc],
) -> None:
    ticker = "i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.1; done"
    params = {"argv": ["/bin/sh", "-c", ticker], "name": "ticker", "harness": "shell"}
    sid = blocking.call("session.start", params)["session"]["id"]
    blocking.call("session.wait", {"session": sid, "text": "tick-3", "timeout": 20}, timeout=30)
    relay = RelayProc("--session", sid)
    relays.append(relay)
    relay.read_until(b"watching (read-only)")
    shown = max(int(n) for n in re.findall(rb"tick-(\d+)", relay.screen))
    relay.read_until(f"tick-{shown + 3}\r".encode())


def test_a_controlling_relay_types_resizes_and_leaves_the_session_running(
    runtime: subprocess.Popen[str],  # noqa: F811
    relays: list[RelayProc],
) -> None:
    sid = start_shell()
    relay = RelayProc("--session", sid, "--control", columns=100, rows=30)
    relays.append(relay)
    relay.read_until(b"controlling")
    assert facts(sid)["controller"] is not None
    assert (facts(sid)["columns"], facts(sid)["rows"]) == (100, 29)  # less the status row

    relay.send(data_packet(b"echo typed-$((3*3))\r"))
    blocking.call("session.wait", {"session": sid, "text": "typed-9", "timeout": 20}, timeout=30)
    relay.read_until(b"typed-9")  # and its output streams back to the browser

    relay.send(meta_packet({"type": "resize", "width": 70, "height": 20}))
    deadline = time.monotonic() + 20
    while (facts(sid)["columns"], facts(sid)["rows"]) != (70, 19):
        assert time.monotonic() < deadline, facts(sid)
        time.sleep(0.05)

    relay.send(meta_packet({"type": "quit"}))  # the browser left
    assert relay.wait() == 0
    # Its seat is freed by its detach, or by the runtime seeing the link close.
    deadline = time.monotonic() + 20
    while (after := facts(sid))["controller"] is not None or after["observers"]:
        assert time.monotonic() < deadline, after
        time.sleep(0.05)
    assert after["state"] == "running"


def test_a_paste_larger_than_a_runtime_frame_reaches_the_session_whole(
    runtime: subprocess.Popen[str],  # noqa: F811
    relays: list[RelayProc],
    short_state: Path,  # noqa: F811
) -> None:
    out = short_state / "pasted"
    size = 1_500_000  # over the runtime's 1 MiB frame: it must go in pieces
    script = f"stty raw -echo; echo web-$((6*7)); head -c {size} > {out}; echo got-$((5*5))"
    params = {"argv": ["/bin/sh", "-c", script], "name": "paste", "harness": "shell"}
    sid = blocking.call("session.start", params)["session"]["id"]
    blocking.call("session.wait", {"session": sid, "text": "web-42", "timeout": 20}, timeout=30)
    relay = RelayProc("--session", sid, "--control")
    relays.append(relay)
    relay.read_until(b"controlling")
    pasted = bytes(range(33, 127)) * (size // 94 + 1)
    relay.send(data_packet(pasted[:size]))
    blocking.call("session.wait", {"session": sid, "text": "got-25", "timeout": 40}, timeout=50)
    assert out.read_bytes() == pasted[:size]
    assert relay.proc.poll() is None  # the link survived it


def test_a_taken_seat_leaves_a_control_relay_watching_with_a_note(
    runtime: subprocess.Popen[str],  # noqa: F811
    relays: list[RelayProc],
) -> None:
    sid = start_shell()
    holder = subprocess.Popen(  # another client holds the controller seat meanwhile
        [
            sys.executable,
            "-c",
            "import asyncio, sys\n"
            "from zirv_dash.session.client import Client\n"
            "async def hold():\n"
            "    c = await Client.connect()\n"
            f"    await c.call('session.attach', {{'session': '{sid}', 'mode': 'controller'}})\n"
            "    print('held', flush=True)\n"
            "    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)\n"
            "asyncio.run(hold())\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        seat_holder = facts(sid)["controller"]
        relay = RelayProc("--session", sid, "--control")
        relays.append(relay)
        relay.read_until(b"another client holds the controller seat")
        assert b"watching (read-only)" in relay.screen
        assert facts(sid)["controller"] == seat_holder
        assert facts(sid)["columns"] == 80  # it never resized what it does not control
    finally:
        holder.kill()
        holder.wait(10)
    # The seat is free again: the relay asked for control, so it takes it.
    relay.read_until(b"controlling")
    deadline = time.monotonic() + 20
    while (facts(sid)["columns"], facts(sid)["rows"]) != (100, 29):
        assert time.monotonic() < deadline, facts(sid)
        time.sleep(0.05)
    assert facts(sid)["controller"] not in (None, seat_holder)


def test_a_browser_that_goes_away_ends_its_relay(
    runtime: subprocess.Popen[str],  # noqa: F811
    relays: list[RelayProc],
) -> None:
    sid = start_shell()
    relay = RelayProc("--session", sid)
    relays.append(relay)
    relay.read_until(b"web-42")
    assert relay.proc.stdin is not None
    relay.proc.stdin.close()  # textual-serve's end of the pipe is gone
    assert relay.wait() == 0
    deadline = time.monotonic() + 10
    while facts(sid)["observers"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert facts(sid)["state"] == "running"


def test_a_missing_session_is_said_in_the_browser_not_crashed_on(
    runtime: subprocess.Popen[str],  # noqa: F811
    relays: list[RelayProc],
) -> None:
    relay = RelayProc("--session", "no-such-session")
    relays.append(relay)
    relay.read_until(b"cannot show session 'no-such-session'")
    relay.send(meta_packet({"type": "quit"}))
    assert relay.wait() == 1


# -- the web server's gate ------------------------------------------------------------------


class WebServer:
    """`zirv session web` in its own process, once it printed its URL."""

    def __init__(self, *args: str, command: list[str] | None = None) -> None:
        code = "import sys\nfrom zirv_dash.session.web import web_main\n"
        code += "raise SystemExit(web_main(sys.argv[1:]))\n"
        self.proc = subprocess.Popen(
            [*(command or [sys.executable, "-c", code]), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=(\S+)", line)
        assert found, line + (self.proc.stderr.read() if self.proc.stderr else "")
        self.url = found.group(0)
        self.port = int(found.group(1))
        self.token = found.group(2)

    def get(self, target: str, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        conn.request("GET", target, headers=headers or {})
        response = conn.getresponse()
        response.read()
        conn.close()
        return response

    def end(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


UPGRADE = {
    "Connection": "Upgrade",
    "Upgrade": "websocket",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
}


def test_without_the_token_every_request_is_forbidden_and_nothing_reaches_the_runtime(
    runtime: subprocess.Popen[str],  # noqa: F811
) -> None:
    sid = start_shell()
    server = WebServer("--session", sid)
    try:
        wrong = urllib.parse.quote("x" + server.token)
        for target in (
            "/",
            f"/?token={wrong}",
            "/?token=",
            "/ws?width=80&height=24",
            "/static/js/textual.js",
            "/nothing",
        ):
            assert server.get(target).status == 403, target
        assert server.get("/ws", UPGRADE).status == 403

        redeemed = server.get(f"/?token={server.token}")
        assert redeemed.status == 303 and redeemed.getheader("Location") == "/"
        cookie = (redeemed.getheader("Set-Cookie") or "").split(";")[0]
        assert cookie.startswith(f"zirv_web_{server.port}=")
        assert "HttpOnly" in (redeemed.getheader("Set-Cookie") or "")
        assert server.get(f"/?token={server.token}").status == 403  # spent: one browser only
        assert server.get("/", {"Cookie": cookie}).status == 200
        assert server.get("/", {"Cookie": cookie, "Host": "evil.example"}).status == 403
        # The websocket wants this page's Origin too (no other site's page may open it).
        assert server.get("/ws", {**UPGRADE, "Cookie": cookie}).status == 403
        evil = {**UPGRADE, "Cookie": cookie, "Origin": "http://evil.example"}
        assert server.get("/ws", evil).status == 403

        assert descendants(server.proc.pid) == set()  # no relay ever started
        assert facts(sid)["observers"] == 0 and facts(sid)["controller"] is None
    finally:
        server.end()
    assert server.proc.returncode == 0


def test_the_web_server_refuses_a_port_outside_the_range(short_state: Path) -> None:  # noqa: F811
    from zirv_dash.session.web import web_main

    assert web_main(["--port", "70000"]) == 2
