"""The HTTP side of `zirv session web`: textual-serve's page, terminal script and
per-connection process runner (`AppService`), behind a token gate, on 127.0.0.1.

The gate: the URL printed at start carries a random token. The first request
with it is answered with a cookie (HttpOnly, SameSite=Lax, named for the port)
and a redirect to `/`, and the token is spent: the same link opens nothing in
another browser. Every other request (page, scripts, the websocket) needs that
cookie, a Host header naming this server, and, for the websocket, an Origin
that is this page, or it gets 403 before anything runs, so no relay starts and
nothing reaches the runtime. textual-serve itself has no authentication; its
websocket URL is fixed (`/ws`, the script appends the size as the query), which
is why the token is traded for a cookie rather than carried along.

The page is textual-serve's own template without its web-font link (a local
dashboard asks no third party for anything). Imported only by `web_main`:
aiohttp and jinja2 stay out of every other command's start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import re
import secrets
import shlex
import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import jinja2
from aiohttp import WSMsgType, web
from aiohttp.typedefs import Handler
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

HOST = "127.0.0.1"
MAX_BROWSERS = 8
"""Browser connections (relay processes) served at once."""
RELAY_STOP = 5.0
"""Seconds a relay gets to leave after its browser did, before it is killed."""
FORBIDDEN = "zirv session web: open the link printed when the server started (it works once)\n"
_FONT_LINK = re.compile(r"<link[^>]*fonts\.googleapis\.com[^>]*>\s*", re.S)


@dataclass(frozen=True)
class WebOptions:
    session: str = "dash"
    control: bool = False
    port: int = 0


@dataclass
class Gate:
    """The one-time token and the browser cookie it is traded for."""

    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    spent: bool = False
    port: int = 0

    @property
    def cookie(self) -> str:
        return f"zirv_web_{self.port}"

    def redeem(self, token: str) -> bool:
        if self.spent or not hmac.compare_digest(token.encode(), self.token.encode()):
            return False
        self.spent = True
        return True

    def admits(self, request: web.Request) -> bool:
        value = request.cookies.get(self.cookie, "")
        return hmac.compare_digest(value.encode(), self.secret.encode())

    def hosts(self) -> frozenset[str]:
        return frozenset({f"{HOST}:{self.port}", f"localhost:{self.port}"})


class RelayService(AppService):
    """textual-serve's runner for one browser connection, ending its process for
    sure: a relay that does not leave when asked is killed."""

    async def end(self) -> None:
        try:
            await asyncio.wait_for(self.stop(), RELAY_STOP)
        except TimeoutError:
            process = self._process
            if process is not None and process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()


def relay_command(options: WebOptions) -> str:
    """The shell command textual-serve runs per browser (`exec`: no shell lingers)."""
    argv = [sys.executable, "-m", "zirv_dash.session.web_relay", "--session", options.session]
    if options.control:
        argv.append("--control")
    return "exec " + shlex.join(argv)


def _static_dir() -> Path:
    return Path(str(resources.files("textual_serve") / "static"))


def _template() -> jinja2.Template:
    text = (resources.files("textual_serve") / "templates" / "app_index.html").read_text("utf-8")
    return jinja2.Environment(autoescape=True).from_string(_FONT_LINK.sub("", text))


class WebApp:
    def __init__(self, options: WebOptions, gate: Gate | None = None) -> None:
        self.options = options
        self.gate = gate or Gate()
        self.template = _template()
        self.downloads = DownloadManager()
        self.sockets: set[web.WebSocketResponse] = set()

    def application(self) -> web.Application:
        app = web.Application(middlewares=[self.guard])
        app.add_routes(
            [
                web.get("/", self.index),
                web.get("/ws", self.websocket),
                web.static("/static", _static_dir()),
            ]
        )
        app.on_shutdown.append(self.close_sockets)
        return app

    @web.middleware
    async def guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        gate = self.gate
        if request.host not in gate.hosts():
            raise web.HTTPForbidden(text=FORBIDDEN)
        token = request.query.get("token")
        if request.path == "/" and token is not None:
            if not (gate.admits(request) or gate.redeem(token)):
                raise web.HTTPForbidden(text=FORBIDDEN)
            # The token leaves the address bar (and history); the cookie stays.
            answer = web.HTTPSeeOther("/")
            answer.set_cookie(gate.cookie, gate.secret, httponly=True, samesite="Lax", path="/")
            raise answer
        if not gate.admits(request):
            raise web.HTTPForbidden(text=FORBIDDEN)
        if request.path == "/ws" and request.headers.get("Origin") != f"http://{request.host}":
            raise web.HTTPForbidden(text=FORBIDDEN)
        response = await handler(request)
        if not response.prepared:
            response.headers["Referrer-Policy"] = "no-referrer"
            response.headers["X-Frame-Options"] = "DENY"
            response.headers["Cache-Control"] = "no-store"
        return response

    async def index(self, request: web.Request) -> web.Response:
        base = f"http://{request.host}"
        page = self.template.render(
            font_size=_int(request.query.get("fontsize"), 16),
            app_websocket_url=f"ws://{request.host}/ws",
            config={"static": {"url": f"{base}/static/"}},
            application={"name": f"zirv · {self.options.session}"},
            ping_url="",
        )
        return web.Response(text=page, content_type="text/html")

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        if len(self.sockets) >= MAX_BROWSERS:
            raise web.HTTPServiceUnavailable(text="zirv session web: too many browsers open\n")
        socket = web.WebSocketResponse(heartbeat=15)
        await socket.prepare(request)
        self.sockets.add(socket)
        service = RelayService(
            relay_command(self.options),
            write_bytes=socket.send_bytes,
            write_str=socket.send_str,
            close=lambda: _close(socket),
            download_manager=self.downloads,
        )
        try:
            await service.start(
                _int(request.query.get("width"), 80), _int(request.query.get("height"), 24)
            )
            await self._messages(socket, service)
        finally:
            self.sockets.discard(socket)
            await service.end()
        return socket

    async def _messages(self, socket: web.WebSocketResponse, service: AppService) -> None:
        """The browser's envelopes, as textual-serve's own server reads them."""
        async for message in socket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                kind, data = message.json()
            except (ValueError, TypeError):
                continue
            if kind == "stdin" and isinstance(data, str):
                await service.send_bytes(data.encode("utf-8", "surrogateescape"))
            elif kind == "resize" and isinstance(data, dict):
                width, height = _int(data.get("width"), 80), _int(data.get("height"), 24)
                await service.set_terminal_size(width, height)
            elif kind == "ping":
                await socket.send_json(["pong", data])

    async def close_sockets(self, app: web.Application) -> None:
        for socket in list(self.sockets):
            await socket.close()


async def _close(socket: web.WebSocketResponse) -> None:
    await socket.close()


def _int(value: object, default: int) -> int:
    try:
        number = int(str(value))
    except ValueError:
        return default
    return min(max(number, 1), 1000)


async def serve(options: WebOptions, stop: asyncio.Event, say: bool = True) -> str:
    """Serve until `stop` is set; returns the URL it served at."""
    web_app = WebApp(options)
    runner = web.AppRunner(web_app.application(), access_log=None, handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, HOST, options.port, shutdown_timeout=RELAY_STOP + 2)
        await site.start()
        port = int(runner.addresses[0][1])
        web_app.gate.port = port
        url = f"http://{HOST}:{port}/?token={web_app.gate.token}"
        if say:
            mode = "controlling" if options.control else "watching"
            print(f"zirv session web: {mode} session {options.session!r} at {url}", flush=True)
            print("  (the link works once, in one browser; Ctrl+C stops serving)", flush=True)
        await stop.wait()
        return url
    finally:
        await runner.cleanup()
