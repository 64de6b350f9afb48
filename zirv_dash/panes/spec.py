"""What a pane is asked to run: harness, command, directory, role and prompt."""

from __future__ import annotations

from dataclasses import dataclass, field

from zirv_dash import paths
from zirv_dash.harnesses.adapters import Adapter


@dataclass
class PaneSpec:
    agent: str
    adapter: Adapter
    argv: list[str]
    cwd: str
    role: str = "worker"
    model: str | None = None
    prompt: str | None = None
    session_id: str = field(default_factory=paths.new_session_id)
    headless: bool = False
    requested_by: str | None = None
