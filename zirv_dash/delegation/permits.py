"""Writer permits: one writing delegation per checkout (worktree) at a time.

A permit is not a file of its own: it is the `permit` field of a delegation
record, so the record that says who runs is the one that says who writes, and
nothing can be left holding a tree its record no longer backs. A permit is
*live* while its record is not terminal and the process carrying the run
(`host_pid`) is alive; a run whose host died releases its tree by itself.
Acquiring checks and sets under the repository's record lock, so two
delegations asking at once cannot both win. Read-only delegations take none.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from zirv_dash.delegation import records
from zirv_dash.delegation.outcomes import pid_alive
from zirv_dash.delegation.records import Delegation

CLI_HINT = "pass --worktree for a tree of its own, or --mode read-only"


@dataclass(frozen=True)
class Refusal:
    tree: str
    holder: Delegation

    def reason(self, hint: str = CLI_HINT) -> str:
        h = self.holder
        pane = f" as {h.current.short}" if h.current is not None else ""
        return (
            f"{self.tree} already has a writer: delegation {h.handle} ({h.harness}{pane}, "
            f"owner {h.owner}); {hint}"
        )


def tree_key(tree: str | Path) -> str:
    return str(Path(tree).resolve())


def holds(record: Delegation) -> bool:
    return record.permit is not None and not record.terminal and pid_alive(record.host_pid)


def holder(repo: Path, tree: str | Path) -> Delegation | None:
    key = tree_key(tree)
    for record in records.list_all(repo):
        if record.permit == key and holds(record):
            return record
    return None


def acquire(repo: Path, handle: str, tree: str | Path) -> Refusal | None:
    """Give `handle` the writer permit of `tree`; the refusal naming the holder
    when another live delegation has it. Idempotent for the holder itself."""
    key = tree_key(tree)
    with records.locked(repo):
        for record in records.list_all(repo):
            if record.handle != handle and record.permit == key and holds(record):
                return Refusal(key, record)
        mine = records.read(repo, handle)
        records.write(repo, records.replace(mine, permit=key))
    return None


def release(repo: Path, handle: str) -> None:
    """Give the permit back (the record and its receipts stay)."""
    try:
        records.update(repo, handle, lambda r: records.replace(r, permit=None))
    except (records.RecordProblem, OSError):
        pass


def live(repo: Path) -> list[Delegation]:
    """Every delegation that holds a permit now."""
    return [r for r in records.list_all(repo) if holds(r)]
