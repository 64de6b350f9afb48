"""The pane kind the dashboard state opens without owning it: the native pane.

A native pane's session (`zirv_dash.runtime.native_pane`) belongs to the engine's
floor, above this package, so the dashboard never imports it: the engine
installs a `NativePanes` in `Dashboard.native_panes`. The dashboard keeps what
every pane shares (limits, cwd, worktree, channel, registry record, focus).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from zirv_dash.harnesses.native_kind import NATIVE, NATIVE_ADAPTER
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.registry import SessionRecord
from zirv_dash.panes.spec import PaneSpec


class NativePanes(Protocol):
    """Opens and records native panes (installed by the engine)."""

    def new_pane(self, spec: PaneSpec, columns: int, rows: int) -> Pane:
        """The pane, not started (its session opens on `Pane.start`)."""
        ...

    def started(self, pane: Pane, prompt: str | None, rewrite: Callable[[], None] | None) -> None:
        """It started: `rewrite` (re)writes its registry record as its state changes
        (None: no record); a launch prompt is submitted as its first input."""
        ...

    def record(self, pane: Pane, repo: Path, channel: str | None) -> SessionRecord | None:
        """Its registry record (None if it is not a native pane with a session)."""
        ...


def native_spec(
    cwd: str,
    *,
    role: str,
    session_id: str,
    prompt: str | None,
    headless: bool,
    requested_by: str | None,
) -> PaneSpec:
    """A native pane's spec: no command line, its conversation is in-process."""
    return PaneSpec(
        agent=NATIVE,
        adapter=NATIVE_ADAPTER,
        argv=[],
        cwd=cwd,
        role=role,
        prompt=prompt,
        session_id=session_id,
        headless=headless,
        requested_by=requested_by,
    )
