"""One remote host in a dashboard: its link, its sessions as panes, reconnects.

A `HostLink` runs on the dashboard's event loop. It opens the ssh link
(remote/client_link.py), lists the host's sessions, subscribes to its events,
and attaches to each session (the controller seat when it is free, else as an
observer: the runtime's seat rules hold across the link), painting the
session's current screen into its pane and then writing every output frame
after that screen's sequence number. When the link drops every pane of the host
turns `disconnected` and the link is retried with backoff; on reconnect each
pane is repainted with its real current screen. A host that stalls costs only
its own task: nothing here blocks the loop.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
from typing import Any, Protocol

from zirv_dash.panes.pane import Pane
from zirv_dash.remote.channel import LINK_TIMEOUT_S, LinkError
from zirv_dash.remote.client_link import RemoteClient, connect
from zirv_dash.remote.faults import fault_reason
from zirv_dash.remote.feed import MAX_BUFFERED, Feed
from zirv_dash.remote.hosts import Host
from zirv_dash.remote.pane import RemotePane
from zirv_dash.session.methods import START_PROMPT
from zirv_dash.session.protocol import EventKind, Output

log = logging.getLogger("zirv.remote")

BACKOFF_S = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
HIDDEN_SESSIONS = frozenset({"dash"})
"""Not panes: the runtime's hosted dashboard (it shows those sessions itself)."""
ENDED = frozenset({"exited", "failed", "stopped"})


class LinkOwner(Protocol):
    """What a host link needs of the dashboard's engine."""

    def adopt_pane(self, pane: Pane) -> None: ...
    def link_changed(self, host: str) -> None: ...
    def say(self, text: str) -> None: ...

    @property
    def pane_size(self) -> tuple[int, int]: ...
    @property
    def scrollback_bytes(self) -> int: ...


class HostLink:
    def __init__(self, host: Host, owner: LinkOwner) -> None:
        self.host = host
        self.owner = owner
        self.client: RemoteClient | None = None
        self.feeds: dict[str, Feed] = {}
        self.problem = ""
        self.timeout = LINK_TIMEOUT_S
        """How long the host may take to answer anything (the hello, each call):
        past it the link is dropped as stalled and retried."""
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def connected(self) -> bool:
        return self.client is not None and not self.client.closed.is_set()

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = self._loop.create_task(self._run(), name=f"remote {self.host.name}")

    def close_now(self) -> None:
        """`close` for a caller that cannot wait (the UI going away): the task is
        cancelled and the ssh child told to end."""
        self._closing = True
        if self._task is not None:
            self._task.cancel()
        client = self.client
        if client is not None and client.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                client.proc.terminate()

    async def close(self) -> None:
        """Detach (the sessions keep running there) and release every socket."""
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self._drop_client()

    # -- the link's life ----------------------------------------------------------------------

    async def _run(self) -> None:
        attempt = 0
        while not self._closing:
            fault: BaseException | None = None
            try:
                self.client = await connect(self.host, self.timeout)
                self.problem = ""
                attempt = 0
                await self._sync()
                self.owner.link_changed(self.host.name)
                await self._serve()
            except (LinkError, OSError, ConnectionError) as exc:
                fault = exc
                self.problem = str(exc)
            except Exception as exc:  # noqa: BLE001 - one host's fault stays its own
                log.exception("remote %s", self.host.name)
                fault = exc
                self.problem = f"{self.host.name}: {exc}"
            await self._drop_client()
            reason = fault_reason(self.host.name, fault)
            for feed in self.feeds.values():
                feed.pane.link_down(reason)
            self.owner.link_changed(self.host.name)
            if self._closing:
                return
            delay = BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]
            attempt += 1
            await asyncio.sleep(delay)

    async def _drop_client(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.close()

    async def _sync(self) -> None:
        client = self.client
        assert client is not None
        client.output_sink = self._on_output
        await self._call("events.subscribe")
        listed = await self._call("session.list")
        sessions = listed.get("sessions", [])
        present = {str(facts.get("id", "")) for facts in sessions}
        for sid, feed in self.feeds.items():
            if sid not in present and feed.pane.remote.exit_code is None:
                # Gone from the runtime while the link was down (that runtime
                # stopped, or the session ended): it will not come back.
                feed.pane.remote.ended(None)
                self.owner.say(
                    f"{feed.pane.title}@{self.host.name}: not in {self.host.name}'s runtime"
                    " any more; it ended while the link was down"
                )
        for facts in sessions:
            await self._attach(facts)

    async def _serve(self) -> None:
        client = self.client
        assert client is not None
        closed = asyncio.ensure_future(client.closed.wait())
        try:
            while True:
                getter = asyncio.ensure_future(client.events.get())
                done, _ = await asyncio.wait({getter, closed}, return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    raise await client.why_closed()
                await self._on_event(getter.result())
        finally:
            closed.cancel()

    # -- sessions and panes --------------------------------------------------------------------

    async def _attach(self, facts: dict[str, Any]) -> None:
        sid = str(facts.get("id", ""))
        if not sid or sid in HIDDEN_SESSIONS:
            return
        feed = self.feeds.get(sid)
        if str(facts.get("state", "")) in ENDED:
            if feed is not None:
                feed.pane.remote.ended(facts.get("exit_code"))
            return
        if feed is None:
            columns, rows = self.owner.pane_size
            pane = RemotePane(
                self.host.name,
                sid,
                str(facts.get("name", "")),
                str(facts.get("harness", "")),
                columns,
                rows,
                self.owner.scrollback_bytes,
                on_resize=self._resize,
                on_stop=self._stop,
                say=self.owner.say,
            )
            pane.start({})
            assert self._loop is not None
            feed = self.feeds[sid] = Feed(pane, self._loop)
            self._loop.add_reader(pane.remote.far.fileno(), self._on_keys, feed)
            self.owner.adopt_pane(pane)
        client = self.client
        assert client is not None
        params = {"session": sid, "mode": "controller"}
        try:
            seat = await self._call("session.attach", params)
        except (LinkError, ConnectionError):
            raise
        except Exception:  # noqa: BLE001 - another client holds the seat: watch instead
            seat = await self._call("session.attach", {"session": sid})
        feed.pane.link_up(controller=seat.get("mode") == "controller")
        await self._paint(feed)
        if feed.pane.controller:
            columns, rows = feed.pane.model_view.columns, feed.pane.model_view.rows
            self._resize(sid, columns, rows)

    async def _call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """One call on the link, bounded: a host that stops answering is a fault
        of that host (its task), never a wait without end."""
        client = self.client
        if client is None:
            raise ConnectionError(f"{self.host.name}: the link closed")
        try:
            return await asyncio.wait_for(client.call(method, params), self.timeout)
        except TimeoutError:
            raise LinkError(
                f"{self.host.name}: no answer to {method} within {self.timeout:.0f} s", "stalled"
            ) from None
        except ConnectionError:
            if client.closed.is_set():
                raise await client.why_closed() from None
            raise

    async def _paint(self, feed: Feed) -> None:
        """The session's current screen, from scratch; frames that arrive meanwhile
        wait and are written after it (those it already holds are dropped)."""
        client = self.client
        if client is None:
            return
        feed.painting = True
        try:
            screen = await self._call(
                "session.screen", {"session": feed.pane.remote_session, "repaint": True}
            )
            feed.pane.seq = int(screen.get("seq", 0))
            feed.clear()
            feed.write(b"\x1b[H\x1b[2J" + base64.b64decode(screen.get("repaint", "")))
        finally:
            feed.painting = False
        held, feed.held = feed.held, []
        for out in held:
            self._on_output(out)

    async def _repaint(self, feed: Feed) -> None:
        """A repaint outside the link's own task: if the host fails it, the link is
        dropped (its task then reconnects), never left half painted."""
        try:
            await self._paint(feed)
        except Exception as exc:  # noqa: BLE001 - the host's fault, handled by reconnecting
            self.problem = str(exc)
            client = self.client
            if client is not None:
                await client.close()

    async def _on_event(self, event: Any) -> None:
        data = event.data
        if event.event is EventKind.SESSION_STARTED and data.session is not None:
            await self._attach(
                {
                    "id": data.session.id,
                    "name": data.session.name,
                    "harness": data.session.harness,
                    "state": data.session.state,
                }
            )
        elif event.event is EventKind.SESSION_EXITED and data.session is not None:
            feed = self.feeds.get(data.session.id)
            if feed is not None:
                feed.pane.remote.ended(data.session.exit_code)
                self.owner.link_changed(self.host.name)
        elif event.event is EventKind.CONTROLLER_CHANGED and data.session_id in self.feeds:
            client = self.client
            pane = self.feeds[data.session_id].pane
            pane.controller = client is not None and data.controller == client.client_id

    def spawn(self, harness: str, prompt: str = "", model: str = "") -> None:
        """Start `harness` in this host's runtime; its pane arrives with the
        runtime's `session_started` event, like any session started there."""
        assert self._loop is not None
        task = self._spawn(harness, prompt, model)
        self._loop.create_task(task, name=f"spawn on {self.host.name}")

    async def _spawn(self, harness: str, prompt: str, model: str) -> None:
        columns, rows = self.owner.pane_size
        params: dict[str, Any] = {"harness": harness, "columns": columns, "rows": rows}
        if prompt or model:
            client = self.client
            if client is None or not client.supports(START_PROMPT):
                self.owner.say(
                    f"spawn on {self.host.name}: its runtime takes no first prompt or model;"
                    f" install this zirv there (`zirv remote install {self.host.name}`)"
                )
                return
            params.update(prompt=prompt, model=model)
        try:
            facts = await self._call("session.start", params)
        except Exception as exc:  # noqa: BLE001 - the host's refusal, said in one line
            self.owner.say(f"spawn on {self.host.name}: {exc}")
            return
        sid = (facts.get("session") or {}).get("id", "?")
        self.owner.say(f"spawned {harness} on {self.host.name} as {sid}")

    # -- bytes both ways ------------------------------------------------------------------------

    def _on_output(self, out: Output) -> None:
        feed = self.feeds.get(out.output)
        if feed is None or out.seq <= feed.pane.seq:
            return
        if feed.painting:
            feed.held.append(out)
            return
        if out.lost or feed.size > MAX_BUFFERED:
            asyncio.ensure_future(self._repaint(feed))
            return
        feed.pane.seq = out.seq
        feed.write(out.data)

    def _on_keys(self, feed: Feed) -> None:
        """What the engine wrote to the pane: keys, pastes, the model's replies."""
        far = feed.pane.remote.far
        try:
            data = far.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            if self._loop is not None:
                with contextlib.suppress(ValueError, OSError):
                    self._loop.remove_reader(far.fileno())
            return
        self._notify(
            feed.pane,
            "session.send_input",
            {"session": feed.pane.remote_session, "data": base64.b64encode(data).decode()},
        )

    def _notify(self, pane: RemotePane, method: str, params: dict[str, Any]) -> bool:
        client = self.client
        if client is None or not pane.connected:
            return False
        try:
            client.notify(method, params)
        except (ConnectionError, RuntimeError, OSError):
            return False
        return True

    def _resize(self, session: str, columns: int, rows: int) -> None:
        feed = self.feeds.get(session)
        if feed is not None and feed.pane.controller:
            params = {"session": session, "columns": columns, "rows": rows}
            self._notify(feed.pane, "session.resize", params)

    def _stop(self, session: str) -> None:
        feed = self.feeds.get(session)
        if feed is None:
            return
        if not self._notify(feed.pane, "session.stop", {"session": session, "grace": 1.0}):
            self.owner.say(f"{feed.pane.title}@{self.host.name}: disconnected; cannot stop it now")


def start_links(hosts: list[Host], owner: LinkOwner) -> list[HostLink]:
    links = [HostLink(host, owner) for host in hosts]
    for link in links:
        link.start()
    return links
