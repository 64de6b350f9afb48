"""The dashboard's engine as the owner of its host links (remote/hostlink.py).

The dashboard opens one link per host of the operator's `~/.zirv/remotes.toml`
when it starts and closes them when it ends; closing detaches, and the remote
sessions run on in their runtimes. A runtime that hosts the dashboard
(`[session] persistent = true`) opens them when it starts, for as long as it
runs (`open_runtime_links`).
"""

from __future__ import annotations

import weakref

from zirv_dash.panes.pane import Pane
from zirv_dash.remote import hosts
from zirv_dash.remote.hostlink import HostLink, start_links
from zirv_dash.runtime import Engine
from zirv_dash.session.engine_host import EngineHost

_OF_ENGINE: weakref.WeakKeyDictionary[Engine, EngineLinks] = weakref.WeakKeyDictionary()


def links_of(engine: Engine) -> EngineLinks | None:
    """The links an engine's dashboard opened (in process, or its runtime's)."""
    return _OF_ENGINE.get(engine)


class EngineLinks:
    """Every host link of one engine: `LinkOwner` for each of them."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.links: list[HostLink] = []
        _OF_ENGINE[engine] = self
        self._said: dict[str, str] = {}
        """The last problem put on the error line per host: a link retried with
        backoff says the same thing once, not on every try."""

    def start(self) -> None:
        try:
            known = hosts.load()
        except hosts.HostError as exc:
            self.engine.dash.error(f"remote hosts: {exc}")
            return
        self.links = start_links(list(known.values()), self)

    def spawn(
        self, host: str, harness: str, prompt: str | None = None, model: str | None = None
    ) -> None:
        """`Ctrl+A s` on a host: its runtime starts the harness (`session.start`
        over the link); the pane shows when that runtime announces the session."""
        link = next((lk for lk in self.links if lk.host.name == host), None)
        if link is None:
            self.engine.dash.error(f"spawn: no host named {host!r}")
        elif not link.connected:
            self.engine.dash.error(f"spawn on {host}: disconnected ({link.problem or 'linking'})")
        else:
            link.spawn(harness, prompt or "", model or "")

    async def close(self) -> None:
        for link in self.links:
            await link.close()

    def close_now(self) -> None:
        for link in self.links:
            link.close_now()

    # -- LinkOwner --------------------------------------------------------------------------

    def adopt_pane(self, pane: Pane) -> None:
        self.engine.adopt_pane(pane)

    def link_changed(self, host: str) -> None:
        link = next((lk for lk in self.links if lk.host.name == host), None)
        if link is not None and not link.connected and link.problem:
            if self._said.get(host) != link.problem:
                self._said[host] = link.problem
                self.engine.dash.error(f"remote {link.problem}")
        elif link is not None and link.connected:
            self._said.pop(host, None)
        self.engine.poll_states()

    def say(self, text: str) -> None:
        self.engine.dash.notify(text)

    @property
    def pane_size(self) -> tuple[int, int]:
        return self.engine.dash.pane_columns, self.engine.dash.pane_rows

    @property
    def scrollback_bytes(self) -> int:
        return self.engine.dash.settings.dash.scrollback_bytes


def open_runtime_links(host: EngineHost) -> EngineLinks:
    """The links of a runtime's engine (its hosted dashboard shows their panes),
    closed (detached) first when the runtime closes."""
    links = EngineLinks(host.engine)
    links.start()
    host.on_close.append(links.close)
    return links
