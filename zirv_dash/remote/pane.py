"""A remote host's session as a dashboard pane.

`RemotePane` is a `Pane` whose terminal is a `RemoteTerminal` (remote/terminal.py):
its output is parsed, scrolled, zoomed and copied by the same model and its
state read by the same attention rules as a local pane's, from the same bytes.
What differs is said here:

- `remote_host` names its host (the roster groups rows by it, local first);
- while the host's link is down the pane is `disconnected` — never idle or
  exited, since the agent keeps running there — and keys typed into it are
  refused with a notice, never queued blind;
- without the controller seat (another client holds it) keys are refused the
  same way: the runtime's observer rules hold across the link;
- quitting the dashboard detaches it; only an explicit stop ends it there.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping

from zirv_dash.harnesses.adapters import ADAPTERS
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.spec import PaneSpec
from zirv_dash.remote.terminal import RemoteTerminal


def remote_short(host: str, session: str) -> str:
    """A pane's short id for `session` on `host`: stable across reconnects, and not
    the remote id itself (two hosts, or this machine, may hold the same one)."""
    return hashlib.sha256(f"{host}/{session}".encode()).hexdigest()[:8]


class RemotePane(Pane):
    kind = "remote"

    def __init__(
        self,
        host: str,
        session: str,
        name: str,
        harness: str,
        columns: int,
        rows: int,
        scrollback_bytes: int,
        *,
        on_resize: Callable[[str, int, int], None],
        on_stop: Callable[[str], None],
        say: Callable[[str], None],
    ) -> None:
        adapter = ADAPTERS.get(harness) or ADAPTERS["shell"]
        spec = PaneSpec(
            agent=adapter.name,
            adapter=adapter,
            argv=[],
            cwd="",
            role="worker",
            session_id=f"{host}-{session}",
        )
        super().__init__(spec, columns, rows, scrollback_bytes)
        self.remote_host = host
        self.remote_session = session
        self.short = remote_short(host, session)
        self.title = (name or session)[:12]
        self.connected = False
        self.controller = False
        self.seq = 0
        """The last output frame's sequence number written to the terminal."""
        self.disconnected_since: float | None = None
        self._say = say
        self._on_resize = on_resize
        self._on_stop = on_stop

    def start(self, env: Mapping[str, str]) -> bool:
        self.pty = RemoteTerminal(
            self.remote_session,
            self.model_view.columns,
            self.model_view.rows,
            on_resize=lambda c, r: self._on_resize(self.remote_session, c, r),
            on_stop=lambda: self._on_stop(self.remote_session),
        )
        return True

    @property
    def remote(self) -> RemoteTerminal:
        assert isinstance(self.pty, RemoteTerminal)
        return self.pty

    # -- the link ---------------------------------------------------------------------------

    def link_up(self, controller: bool) -> None:
        self.connected, self.controller = True, controller
        self.disconnected_since = None
        self.tracker.unreachable = None

    def link_down(self, reason: str = "") -> None:
        """The link dropped; `reason` (remote/hostlink.py `fault_reason`) says why,
        in the row's words: the runtime stopped, no zirv there, a stall."""
        if self.connected or self.disconnected_since is None:
            self.disconnected_since = time.monotonic()
        self.connected = False
        self.tracker.unreachable = reason or f"the link to {self.remote_host} is down; reconnecting"

    # -- what differs from a local pane -----------------------------------------------------

    def send(self, data: bytes, typed: bool = True) -> None:
        if self.exit_code is None and data and typed:
            if not self.connected:
                self._say(f"{self.title}@{self.remote_host}: disconnected; keys not sent")
                return
            if not self.controller:
                self._say(
                    f"{self.title}@{self.remote_host}: another client holds this session;"
                    " keys not sent"
                )
                return
        super().send(data, typed)

    def at_input_prompt(self) -> bool:
        # Mail and nudges are typed only while the link is up and ours to type on.
        return self.connected and self.controller and super().at_input_prompt()
