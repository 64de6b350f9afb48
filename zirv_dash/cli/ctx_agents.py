"""`zirv ctx status --agents [--json]`: every delegation of this repository, from
the same records the dashboard reads (handle, harness, state, owner, permit,
age, outcome), and the writer permits held now (plain `zirv ctx status`)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from zirv_dash import paths
from zirv_dash.delegation import outcomes, permits, records
from zirv_dash.delegation.records import Delegation


def _state(record: Delegation) -> str:
    """A run whose host process is gone is not known to run: `unknown`, never idle."""
    if not record.terminal and record.state != "failed" and not outcomes.pid_alive(record.host_pid):
        return "unknown"
    return record.state


def agent_rows(repo: Path, problems: list[str]) -> list[dict[str, Any]]:
    now = time.time()
    rows = []
    for record in records.list_all(repo, problems):
        outcome = record.outcome
        current = record.current
        rows.append(
            {
                "handle": record.handle,
                "harness": record.harness,
                "state": _state(record),
                "owner": record.owner,
                "permit": record.permit if permits.holds(record) else None,
                "age_s": records.age_s(record, now),
                "outcome": None
                if outcome is None
                else {
                    "kind": outcome.kind,
                    "attempt": outcome.attempt,
                    "exit_code": outcome.exit_code,
                    "identity": outcome.identity,
                },
                "pane": current.short if current is not None else None,
                "mode": record.mode,
                "workdir": record.workdir,
            }
        )
    return rows


def print_agents(as_json: bool, problems: list[str]) -> int:
    rows = agent_rows(paths.repo_root(), problems)
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("delegations: none")
        return 0
    print("delegations:")
    for row in rows:
        outcome = row["outcome"]
        said = "-" if outcome is None else f"{outcome['kind']}"
        if outcome is not None and outcome["exit_code"] is not None:
            said += f" (exit {outcome['exit_code']})"
        permit = f" permit {row['permit']}" if row["permit"] else ""
        print(
            f"  {row['handle']} {row['harness']} {row['state']} owner {row['owner']} "
            f"pane {row['pane'] or '-'} {row['age_s']}s outcome {said}{permit}"
        )
    return 0


def permit_lines(problems: list[str]) -> list[str]:
    """The writer permits held now, for plain `zirv ctx status`."""
    held = permits.live(paths.repo_root())
    if not held:
        return []
    lines = ["writer permits:"]
    for record in held:
        pane = record.current.short if record.current is not None else "-"
        lines.append(f"  {record.permit} held by {record.handle} ({record.harness} {pane})")
    return lines
