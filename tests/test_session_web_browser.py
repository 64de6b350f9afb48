"""`zirv session web` in a real headless Chromium against the product's runtime
(`zirv session serve`, the real engine): the page loads, its terminal shows a
pane's text, and with `--control` the browser's keys reach the pane.

The browser is driven over the DevTools protocol. textual-serve's terminal is
xterm.js drawing on a canvas, so the text is read from xterm.js's own buffer:
a script installed before the page's captures the terminal object when
textual-serve's page code assigns its `fitAddon`.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.sessionrig import (  # noqa: F401 (fixtures)
    end_runtime,
    engine_env,
    engine_runtime,
    short_state,
    spawn_runtime,
)
from tests.test_session_web import WebServer
from zirv_dash.session import blocking

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Chromium (Debian: apt-get install chromium)"
)

CAPTURE = """
Object.defineProperty(Object.prototype, 'fitAddon', {
  configurable: true,
  set(value) {
    window.__zirvTerminal = this;
    Object.defineProperty(this, 'fitAddon', {
      value, writable: true, configurable: true, enumerable: true});
  },
});
"""
SCREEN_TEXT = """(() => {
  const page = window.__zirvTerminal;
  if (!page || !page.terminal) return '';
  const buffer = page.terminal.buffer.active, rows = [];
  for (let y = 0; y < buffer.length; y++) {
    const line = buffer.getLine(y);
    rows.push(line ? line.translateToString(true) : '');
  }
  return rows.join('\\n');
})()"""


class DevTools:
    """One page of a browser, over the DevTools protocol."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.ids = itertools.count(1)

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        rid = next(self.ids)
        await self.socket.send_json({"id": rid, "method": method, "params": params})
        async with asyncio.timeout(30):
            while True:
                message: dict[str, Any] = await self.socket.receive_json()
                if message.get("id") == rid:
                    assert "error" not in message, message
                    result: dict[str, Any] = message.get("result", {})
                    return result

    async def evaluate(self, expression: str) -> Any:
        answer = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return answer["result"].get("value")

    async def screen_showing(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = str(await self.evaluate(SCREEN_TEXT) or "")
            if text in screen:
                return screen
            assert time.monotonic() < deadline, f"the page never showed {text!r}:\n{screen}"
            await asyncio.sleep(0.1)


@pytest.fixture
def browser() -> Iterator[int]:
    """A headless Chromium in its own process group; yields its DevTools port."""
    assert CHROMIUM is not None
    profile = Path(tempfile.mkdtemp(prefix="zirv-chromium-"))
    proc = subprocess.Popen(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",  # we may be root (CI is)
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--window-size=1100,700",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "about:blank",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        active = profile / "DevToolsActivePort"  # written once DevTools listens
        deadline = time.monotonic() + 45
        while not (active.exists() and active.read_text().strip()):
            assert proc.poll() is None, "Chromium ended at start"
            assert time.monotonic() < deadline, "Chromium's DevTools never listened"
            time.sleep(0.1)
        yield int(active.read_text().split()[0])
    finally:
        with _suppress_gone():
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            with _suppress_gone():
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        shutil.rmtree(profile, ignore_errors=True)


def _suppress_gone() -> Any:
    import contextlib

    return contextlib.suppress(ProcessLookupError)


@pytest.fixture
async def page(browser: int) -> AsyncIterator[DevTools]:
    async with aiohttp.ClientSession() as http:
        async with http.get(f"http://127.0.0.1:{browser}/json/list") as answer:
            targets = await answer.json()
        target = next(t for t in targets if t["type"] == "page")
        async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as socket:
            devtools = DevTools(socket)
            await devtools.call("Page.enable")
            await devtools.call("Page.addScriptToEvaluateOnNewDocument", source=CAPTURE)
            yield devtools


@pytest.fixture
def web_servers() -> Iterator[list[WebServer]]:
    started: list[WebServer] = []
    yield started
    for server in started:
        server.end()


@pytest.fixture
def dash_runtime(short_state: Path) -> Iterator[subprocess.Popen[str]]:  # noqa: F811
    """`zirv session serve` as the product runs it: hosting the dashboard (`dash`)."""
    repo = short_state / "repo"
    repo.mkdir(exist_ok=True)
    command = [sys.executable, "-m", "zirv_dash.cli.main", "session", "serve"]
    proc = spawn_runtime(command, cwd=repo, env=engine_env(short_state))
    yield proc
    end_runtime(proc)


def shell_showing(text: str, name: str) -> str:
    """A shell pane of the runtime's engine that ran `echo <text>`."""
    sid: str = blocking.call("session.start", {"harness": "shell", "name": name})["session"]["id"]
    command = text.replace("42", "$((6*7))")  # the echoed command line does not contain it
    blocking.call("session.send_input", {"session": sid, "text": f"echo {command}\r"})
    blocking.call("session.wait", {"session": sid, "text": text, "timeout": 30}, timeout=40)
    return sid


@pytest.mark.timeout(150)
async def test_the_page_shows_a_pane_of_the_runtime(
    engine_runtime: subprocess.Popen[str],  # noqa: F811
    page: DevTools,
    web_servers: list[WebServer],
) -> None:
    sid = await asyncio.to_thread(shell_showing, "in-the-browser-42", "webpane")
    server = await asyncio.to_thread(WebServer, "--session", sid)
    web_servers.append(server)
    await page.call("Page.navigate", url=server.url)
    screen = await page.screen_showing("in-the-browser-42")
    assert "watching (read-only)" in screen
    assert await page.evaluate("location.href") == f"http://127.0.0.1:{server.port}/"
    assert await page.evaluate("document.body.classList.contains('-first-byte')")
    seats = await asyncio.to_thread(blocking.call, "session.get", {"session": sid})
    assert seats["session"]["observers"] == 1 and seats["session"]["controller"] is None

    await page.call("Page.navigate", url="about:blank")  # the browser leaves
    deadline = time.monotonic() + 20
    while seats["session"]["observers"]:
        assert time.monotonic() < deadline, "the relay outlived its browser"
        await asyncio.sleep(0.1)
        seats = await asyncio.to_thread(blocking.call, "session.get", {"session": sid})
    assert seats["session"]["state"] == "running"


@pytest.mark.timeout(150)
async def test_with_control_the_browsers_keys_reach_the_pane(
    engine_runtime: subprocess.Popen[str],  # noqa: F811
    page: DevTools,
    web_servers: list[WebServer],
) -> None:
    sid = await asyncio.to_thread(shell_showing, "ready-42", "typed")
    server = await asyncio.to_thread(WebServer, "--session", sid, "--control")
    web_servers.append(server)
    await page.call("Page.navigate", url=server.url)
    await page.screen_showing("controlling")
    await page.evaluate("window.__zirvTerminal.terminal.focus()")
    await page.call("Input.insertText", text="echo from-the-browser-$((3*3))")
    enter = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"}
    await page.call("Input.dispatchKeyEvent", type="keyDown", **enter)
    await page.call("Input.dispatchKeyEvent", type="keyUp", key="Enter", code="Enter")
    params = {"session": sid, "text": "from-the-browser-9", "timeout": 30}
    await asyncio.to_thread(blocking.call, "session.wait", params, timeout=40)
    await page.screen_showing("from-the-browser-9")

    # Stopping the web server while the page is open ends its relay, stops nothing.
    await asyncio.to_thread(server.end)
    assert server.proc.returncode == 0
    facts = (await asyncio.to_thread(blocking.call, "session.get", {"session": sid}))["session"]
    assert facts["state"] == "running" and facts["controller"] is None
    assert facts["observers"] == 0


@pytest.mark.timeout(180)
async def test_zirv_session_web_shows_the_hosted_dashboard_and_types_into_its_pane(
    dash_runtime: subprocess.Popen[str],
    page: DevTools,
    web_servers: list[WebServer],
) -> None:
    sessions = (await asyncio.to_thread(blocking.call, "session.list"))["sessions"]
    assert any(s["id"] == "dash" for s in sessions), sessions
    sid = await asyncio.to_thread(shell_showing, "on-the-dashboard-42", "webpane")
    zirv = [sys.executable, "-m", "zirv_dash.cli.main", "session", "web"]
    server = await asyncio.to_thread(WebServer, "--control", command=zirv)  # `dash` by default
    web_servers.append(server)
    await page.call("Page.navigate", url=server.url)
    screen = await page.screen_showing("on-the-dashboard-42", timeout=60)  # the pane, in the UI
    assert "controlling" in screen
    dash = (await asyncio.to_thread(blocking.call, "session.get", {"session": "dash"}))["session"]
    columns, rows = await page.evaluate(
        "[window.__zirvTerminal.terminal.cols, window.__zirvTerminal.terminal.rows]"
    )
    assert (dash["columns"], dash["rows"]) == (columns, rows - 1)  # the browser's, less the status
    assert dash["controller"] is not None

    await page.evaluate("window.__zirvTerminal.terminal.focus()")
    await page.call("Input.insertText", text="echo via-the-dashboard-$((3*3))")
    enter = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"}
    await page.call("Input.dispatchKeyEvent", type="keyDown", **enter)
    await page.call("Input.dispatchKeyEvent", type="keyUp", key="Enter", code="Enter")
    params = {"session": sid, "text": "via-the-dashboard-9", "timeout": 30}
    await asyncio.to_thread(blocking.call, "session.wait", params, timeout=40)
    await page.screen_showing("via-the-dashboard-9")
