"""The MCP bridge's read-only delegation tools: `delegation_list` (this
repository's delegations, from the same records `zirv ctx status --agents`
reads) and `delegation_result` (one delegation's bounded manifest)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from zirv_dash.cli.ctx_agents import agent_rows
from zirv_dash.delegation import records
from zirv_dash.delegation.records import RecordProblem
from zirv_dash.delegation.service import manifest

MAX_ROWS = 64


class DelegationError(Exception):
    """A refusal, reported to the MCP host as a tool error."""


def delegation_list(repo: Path) -> dict[str, Any]:
    problems: list[str] = []
    rows = agent_rows(repo, problems)
    return {
        "captured_at": int(time.time()),
        "repository": str(repo),
        "data": {"delegations": rows[-MAX_ROWS:], "truncated": len(rows) > MAX_ROWS,
                 "problems": problems},
    }  # fmt: skip


def delegation_result(repo: Path, handle: str) -> dict[str, Any]:
    if not isinstance(handle, str) or not records.HANDLE_RE.match(handle):
        raise DelegationError(f"{str(handle)[:40]!r} is not a delegation handle (d-<12 hex>)")
    try:
        record = records.read(repo, handle)
    except RecordProblem as exc:
        raise DelegationError(str(exc)) from exc
    return {"captured_at": int(time.time()), "repository": str(repo), "data": manifest(record)}
