"""What a view draws of a native session at one moment (`NativeSession.snapshot`)."""

from __future__ import annotations

from dataclasses import dataclass

from zirv_dash.native.approvals import ApprovalRequest
from zirv_dash.native.routes import Route
from zirv_dash.native.transcript import Transcript


@dataclass(frozen=True)
class Snapshot:
    transcript: Transcript
    streaming: str
    state: str  # idle generating executing blocked cancelled failed completed
    pending: ApprovalRequest | None
    queued: tuple[str, ...]
    turn_started: float | None
    turn_tokens: int
    route: Route
    context_left: int | None
    running: bool


def context_left(transcript: Transcript, route: Route) -> int | None:
    """Percent of the route's context window still free (None: not known yet)."""
    if route.context_window and (transcript.input_tokens or transcript.output_tokens):
        used = transcript.input_tokens + transcript.output_tokens
        return max(0, 100 - used * 100 // route.context_window)
    return None
