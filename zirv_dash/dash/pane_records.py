"""What the dashboard publishes for each pane: its registry record, its turn-signal
socket and its private spawn-request channel, and their release when it ends."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from zirv_dash.attention.turn_signal import TurnSignalError, TurnSignalServer
from zirv_dash.dash import mcp_launch
from zirv_dash.dash.pane_kinds import NativePanes
from zirv_dash.harnesses.native_kind import NATIVE
from zirv_dash.panes import registry
from zirv_dash.panes.pane import Pane


class PaneRecords:
    """Mixed into `Dashboard` (which provides `error` and sets these attributes)."""

    repo: Path
    manage_state: bool
    signals: dict[str, TurnSignalServer]
    channels: dict[str, str]
    pane_channel: Callable[[Pane], str | None] | None
    native_panes: NativePanes | None

    def error(self, text: str) -> None:
        raise NotImplementedError

    def _mint_channel(self, pane: Pane) -> str | None:
        """The pane's private spawn-request channel, minted once and kept for the
        pane's life (a handover successor inherits it)."""
        if self.pane_channel is None:
            return None
        channel = self.pane_channel(pane)
        if channel:
            self.channels[pane.short] = channel
        return channel

    def _bind_signal(self, pane: Pane) -> str | None:
        if not self.manage_state:
            return None
        path = registry.socket_path(pane.short)
        try:
            self.signals[pane.short] = TurnSignalServer.bind(path)
        except (TurnSignalError, OSError) as exc:
            self.error(f"pane {pane.short}: turn-signal socket unavailable ({exc}); unreachable")
            return None
        return str(path)

    def register(self, pane: Pane, reachable: bool) -> None:
        if not self.manage_state:
            return
        if pane.kind == NATIVE:  # no child process: the session runs in ours
            kind = self.native_panes
            native = kind.record(pane, self.repo, self.channels.get(pane.short)) if kind else None
            if native is not None:
                self._write_record(pane, native)
            return
        if pane.pty is None:
            return
        record = registry.SessionRecord.new(
            pane.session_id,
            pane.agent,
            self.repo,
            "chat" if pane.role == "orchestrator" else "dash",
            pane.pty.pid,
            reachable=reachable,
            owner_pid=os.getpid(),
            role=pane.role,
        )
        if pane.model:
            record.extra["model"] = pane.model
        self._write_record(pane, record)

    def _write_record(self, pane: Pane, record: registry.SessionRecord) -> None:
        try:
            registry.register(record)
        except OSError as exc:
            self.error(f"registry: could not record pane {pane.short}: {exc}")

    def _release(self, pane: Pane) -> None:
        """Drop a pane's registry record and socket (its process is gone)."""
        server = self.signals.pop(pane.short, None)
        if server is not None:
            with contextlib.suppress(OSError):
                server.close()
        if self.manage_state:
            with contextlib.suppress(OSError, ValueError):
                registry.unregister(pane.short)
            with contextlib.suppress(OSError, ValueError):  # its MCP config, if it had one
                mcp_launch.config_path(pane.session_id).unlink(missing_ok=True)
