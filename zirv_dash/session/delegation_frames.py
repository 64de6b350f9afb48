"""The wire frames of `delegation.list` / `delegation.get` (protocol v1)."""

from __future__ import annotations

from zirv_dash.session.protocol import Frame


class DelegationFacts(Frame, frozen=True):
    handle: str
    harness: str
    state: str
    owner: str
    age_s: int
    permit: str | None = None
    pane: str | None = None
    outcome: str | None = None
    exit_code: int | None = None


class DelegationListResult(Frame, frozen=True):
    delegations: list[DelegationFacts] = []
    problems: list[str] = []
    """Records that are torn or foreign: reported, never trusted."""


class DelegationRef(Frame, frozen=True):
    handle: str


class DelegationGetResult(Frame, frozen=True):
    delegation: DelegationFacts
    deliveries: list[str] = []
    """Delivery identities, `<handle>:<attempt>:<kind>`."""
    report_path: str | None = None
    last_lines: list[str] = []
    last_lines_cut: bool = False
