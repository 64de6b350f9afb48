"""The runtime's hosted dashboard as a session: `dash`.

With a dashboard factory, the runtime hosts the whole dashboard (every pane, the
sidebar, overlays, mouse review) over its own engine, the way tmux's server
draws for its clients: the UI writes terminal bytes, and those bytes are this
session's output, streamed to attached clients like any session's. The runtime
also parses them into a terminal model of its own, so an attaching client gets
the current screen as a repaint, `session.read`/`session.wait` see the
dashboard's text, and a client killed with -9 costs nothing but a repaint.

The UI toolkit is not imported here: the factory that builds the UI is handed
in by the command that starts the runtime (`zirv_dash.cli.chat`), and is called
only when a client first attaches (a runtime nobody attached to loads no UI).
The UI starts at the size of the client that asked, and ends when every pane
has ended or it fails; the next attach starts a fresh one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from zirv_dash.session import repaint
from zirv_dash.session.host import HostError, Screen
from zirv_dash.session.protocol import ErrorCode, SessionFacts, SessionState
from zirv_dash.terminal import TerminalModel

if TYPE_CHECKING:
    from zirv_dash.runtime import Engine

log = logging.getLogger("zirv.session.dash")

DASH_ID = "dash"
"""The hosted dashboard's session id (pane ids are hex, so it never collides)."""
HARNESS = "dashboard"
DEFAULT_SIZE = (120, 40)
PARSE_AHEAD = 256 * 1024
"""Unparsed output bytes kept before the model catches up on its own (it is
otherwise parsed only when someone reads the screen)."""


class DashUI(Protocol):
    """What the runtime needs of a hosted dashboard UI."""

    def feed(self, data: bytes) -> None:
        """Keys, pastes and mouse reports from the controlling client."""
        ...

    def resize(self, columns: int, rows: int) -> None: ...

    async def close(self) -> None:
        """End the UI; the engine and its panes are untouched."""
        ...


class DashLink:
    """What a hosted UI calls back: its output, a detach, its end."""

    def __init__(self, session: DashSession) -> None:
        self._session = session

    def output(self, data: bytes) -> None:
        self._session.output(data)

    def detach(self) -> None:
        """The controlling client asked the dashboard to detach it (`Ctrl+A d`)."""
        self._session.request_detach()

    def ended(self, why: str) -> None:
        self._session.ui_ended(why)

    def color_system(self) -> str | None:
        """The colour system of the terminal that asked for the UI (a Rich name)."""
        return self._session.color_system


DashFactory = Callable[["Engine", DashLink, int, int], DashUI]
"""(engine, link, columns, rows) -> a started UI over that engine."""
UIStarter = Callable[[DashLink, int, int], DashUI]


class DashSession:
    """The hosted dashboard's terminal: a model of what the UI drew, and the UI."""

    def __init__(
        self,
        factory: UIStarter,
        emit_output: Callable[[bytes], None],
        emit_changed: Callable[[], None],
        repo: str,
    ) -> None:
        self._factory = factory
        self._emit_output = emit_output
        self._emit_changed = emit_changed
        self.repo = repo
        self.columns, self.rows = DEFAULT_SIZE
        self.model = TerminalModel(self.columns, self.rows)
        self._pending = bytearray()
        self.ui: DashUI | None = None
        self.started_at: float | None = None
        self.generation = 0
        self.last_end = ""
        self.color_system: str | None = None
        """What the latest controlling client's terminal renders ("truecolor", "256", …)."""
        self.on_detach: Callable[[], None] | None = None
        """Releases the controlling client (bound by the server)."""

    # -- the UI ---------------------------------------------------------------------------

    def ensure_ui(self) -> DashUI:
        """The running UI, started at the current size if there is none."""
        if self.ui is not None:
            return self.ui
        # A fresh UI draws from nothing: the model must not keep the last one's screen.
        self.model = TerminalModel(self.columns, self.rows)
        self._pending.clear()
        self.generation += 1
        self.started_at = time.time()
        try:
            self.ui = self._factory(DashLink(self), self.columns, self.rows)
        except Exception as exc:  # noqa: BLE001 - a UI that cannot start is the client's error
            log.exception("the hosted dashboard could not start")
            self.last_end = f"could not start: {exc}"
            raise HostError(ErrorCode.FAILED, f"the dashboard could not start: {exc}") from exc
        log.info("hosted dashboard started at %dx%d", self.columns, self.rows)
        self._emit_changed()
        return self.ui

    def ui_ended(self, why: str) -> None:
        if self.ui is None:
            return
        self.ui = None
        self.last_end = why
        log.info("hosted dashboard ended: %s", why)
        self._emit_changed()
        self.request_detach()

    def request_detach(self) -> None:
        if self.on_detach is not None:
            self.on_detach()

    async def close(self) -> None:
        ui, self.ui = self.ui, None
        if ui is not None:
            await ui.close()

    def note_client(self, color_system: str) -> None:
        """A client took the seat; a UI started from now on renders for its terminal."""
        if color_system in ("truecolor", "256", "standard"):
            self.color_system = color_system

    # -- the terminal ---------------------------------------------------------------------

    def output(self, data: bytes) -> None:
        self._pending += data
        if len(self._pending) > PARSE_AHEAD:
            self._catch_up()
        self._emit_output(data)

    def _catch_up(self) -> None:
        if self._pending:
            data = bytes(self._pending)
            self._pending.clear()
            self.model.feed(data)

    def send_input(self, data: bytes) -> None:
        self.ensure_ui().feed(data)

    def resize(self, columns: int, rows: int) -> None:
        if (columns, rows) == (self.columns, self.rows) and self.ui is not None:
            return
        self._catch_up()
        self.columns, self.rows = columns, rows
        self.model.resize(columns, rows)
        if self.ui is not None:
            self.ui.resize(columns, rows)
        else:
            self.ensure_ui()
        self._emit_changed()

    def screen(self) -> Screen:
        # Whoever looks at the dashboard wants it drawn (an observer too).
        self.ensure_ui()
        self._catch_up()
        model = self.model
        return Screen(model.columns, model.rows, model.cursor, model.lines(), model.version)

    def repaint(self) -> bytes:
        self.ensure_ui()
        self._catch_up()
        return repaint.repaint(self.model)

    def facts(self) -> SessionFacts:
        return SessionFacts(
            id=DASH_ID,
            name=HARNESS,
            harness=HARNESS,
            state=SessionState.RUNNING,
            generation=max(1, self.generation),
            started_at=round(self.started_at, 3) if self.started_at is not None else None,
            columns=self.columns,
            rows=self.rows,
            repo=self.repo,
        )
