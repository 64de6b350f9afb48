"""The dashboard hosted by the persistent runtime, over the runtime's own engine.

The same App and dashboard screen a terminal gets, with two differences: the
engine is the runtime's (it was started before the UI and outlives it: the UI
never closes it, never ends a pane on its way out), and the terminal is the
runtime's `dash` session (`SocketDriver`). Quitting or `Ctrl+A d` detaches the
client; a pane is ended only by its own stop or kill.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from textual.driver import Driver

from screens.app import ZirvApp
from screens.socket_driver import SocketDriver
from zirv_dash.cli.launch import LaunchOptions
from zirv_dash.harnesses import adapters
from zirv_dash.keymap import KeymapError, load_keymap, load_preset
from zirv_dash.outer_terminal import OuterTerminal
from zirv_dash.runtime import Engine
from zirv_dash.session.dash_session import DashLink

log = logging.getLogger("zirv.session.hosted")

CLOSE_WAIT = 5.0


class HostedApp(ZirvApp):
    """The dashboard App drawing into the runtime's `dash` session."""

    def __init__(self, options: LaunchOptions, link: DashLink) -> None:
        self.hosted_link = link
        self.hosted_pending: list[bytes] = []
        """Input that arrived before the driver existed (fed once it starts)."""
        super().__init__(options)

    def get_driver_class(self) -> type[Driver]:
        return SocketDriver

    @property
    def socket_driver(self) -> SocketDriver | None:
        driver = self._driver
        return driver if isinstance(driver, SocketDriver) else None


def hosted_options(
    engine: Engine, color_system: str | None, on_detach: Callable[[], None]
) -> LaunchOptions:
    """What `zirv chat` would decide, from the runtime's own configuration."""
    dash = engine.dash
    settings = dash.settings
    try:
        keymap = load_keymap(settings.dash.keymap)
    except KeymapError as exc:
        dash.error(f"keymap: {exc}; using the default keys")
        keymap = load_preset("default")
    enabled = {n for n in adapters.names() if dash.gate.enabled(n)}
    agent, reason = adapters.resolve_default(settings.agent, enabled)
    return LaunchOptions(
        repo=dash.repo,
        settings=settings,
        keymap=keymap,
        gate=dash.gate,
        agent=agent,
        agent_reason=reason,
        spinner=settings.dash.animated,
        outer=OuterTerminal(color_system=color_system or "truecolor"),
        engine=engine,
        on_detach=on_detach,
    )


class HostedDashboard:
    """One run of the hosted UI (`DashUI`)."""

    def __init__(
        self,
        engine: Engine,
        link: DashLink,
        columns: int,
        rows: int,
        color_system: str | None = None,
    ) -> None:
        self.link = link
        self.engine = engine
        options = hosted_options(engine, color_system, link.detach)
        self.app = HostedApp(options, link)
        self._task = asyncio.ensure_future(self._run(columns, rows, options))

    async def _run(self, columns: int, rows: int, options: LaunchOptions) -> None:
        why = "ended"
        try:
            await self.app.run_async(mouse=options.settings.dash.mouse, size=(columns, rows))
            if self.app.return_code not in (0, None):
                # Textual ended the App on an error of its own: said here, since
                # the runtime has no terminal to print its traceback on.
                why = f"failed (code {self.app.return_code})"
                log.error("the hosted dashboard ended: %s", why)
        except Exception as exc:  # noqa: BLE001 - a UI failure must never reach the runtime
            log.exception("the hosted dashboard failed")
            why = f"failed: {exc}"
        finally:
            if why != "ended":  # the next dashboard shows it under Ctrl+A e
                self.engine.dash.error(f"the dashboard {why}; it starts afresh at the next attach")
            self.link.ended(why)

    def feed(self, data: bytes) -> None:
        driver = self.app.socket_driver
        if driver is None:
            self.app.hosted_pending.append(data)
            return
        driver.feed(data)

    def resize(self, columns: int, rows: int) -> None:
        driver = self.app.socket_driver
        if driver is not None:
            driver.resize(columns, rows)

    async def close(self) -> None:
        if self._task.done():
            return
        self.app.exit(0)
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            async with asyncio.timeout(CLOSE_WAIT):
                await asyncio.shield(self._task)
        if not self._task.done():
            self._task.cancel()


def start(engine: Engine, link: DashLink, columns: int, rows: int) -> HostedDashboard:
    """The `DashFactory` the runtime is given (`zirv_dash.cli.chat`)."""
    return HostedDashboard(engine, link, columns, rows, link.color_system())
