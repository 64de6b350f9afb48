"""Exactly-once outcomes: persisted first, notified second, consumed once.

A worker's turn end or exit is written into its delegation record (the outcome
and a delivery with identity `<handle>:<attempt>:<kind>`, not yet published)
*before* its report-back mail is stored; the delivery is marked published after.
A process killed between the two leaves an unpublished delivery, which the next
dashboard to start publishes (`redeliver`). Mail is therefore at-least-once —
a kill between storing the mail and marking it can repeat it — and the reader
makes it exactly-once: a consuming `zirv ctx inbox` drops a message whose
identity it already consumed (`consume`), and shows anything it cannot account
for.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from zirv_dash.delegation import records
from zirv_dash.delegation.records import Delegation, Delivery, Outcome, RecordProblem

DELIVERY_LINE = "delivery: {identity}"
_LINE_RE = re.compile(r"^delivery: (d-[0-9a-f]{12}:[0-9]{1,4}:[a-z_]{1,16})$", re.MULTILINE)
TAIL_CAP = 2048

Consumed = Literal["first", "repeat", "unknown"]


def with_identity(body: str, identity: str) -> str:
    """The report body with its delivery identity as the last line."""
    return body.rstrip("\n") + "\n\n" + DELIVERY_LINE.format(identity=identity) + "\n"


def identity_of(body: str) -> str | None:
    """The identity a report body carries (its last `delivery:` line), if any."""
    found = _LINE_RE.findall(body)
    return found[-1] if found else None


def cut_tail(text: str, cap: int = TAIL_CAP) -> tuple[str, bool]:
    data = text.encode("utf-8")
    if len(data) <= cap:
        return text, False
    return data[-cap:].decode("utf-8", "ignore"), True


def persist(
    repo: Path,
    handle: str,
    kind: str,
    *,
    exit_code: int | None,
    tail: str,
    result_path: str | None,
    to: str | None,
    short: str | None = None,
    unknown_tools: list[str] | None = None,
) -> tuple[Delegation, str | None]:
    """Write the outcome (and, when `to` is given, an unpublished delivery for it).

    `short` names the pane whose run this is: an earlier attempt's late end (a
    closed worker whose follow-up already runs) only closes that attempt.
    Returns the record and the identity to mail, or None when this exact
    identity was already recorded (a repeat: nothing new to tell)."""
    shown, cut = cut_tail(tail)
    new_identity: list[str] = []

    def change(record: Delegation) -> Delegation:
        current = record.current
        if short is not None and current is not None and current.short != short:
            return _earlier_attempt_ended(record, short, exit_code, kind)
        attempt = current.n if current is not None else 0
        ident = records.identity(handle, attempt, kind)
        outcome = Outcome(
            kind=kind,
            attempt=attempt,
            at=time.time(),
            exit_code=exit_code,
            result_path=result_path,
            tail=shown,
            tail_cut=cut,
            identity=ident,
            unknown_tools=list(unknown_tools or []),
        )
        state = "settled" if kind == "settled" else ("closed" if kind == "closed" else "ended")
        attempts = record.attempts
        if kind != "settled" and current is not None and current.ended_at is None:
            ended = records.replace(current, ended_at=time.time(), exit_code=exit_code)
            attempts = [*attempts[:-1], ended]
        deliveries = record.deliveries
        if to is not None and not any(d.identity == ident for d in deliveries):
            deliveries = [*deliveries, Delivery(identity=ident, kind=kind, to=to)]
            deliveries = deliveries[-records.MAX_DELIVERIES :]
            new_identity.append(ident)
        if record.terminal and kind == "settled" or record.state == "closed":
            state = record.state  # a late settle never revives an ended worker, and a
            # worker closed by its delegator stays closed when its pane then ends
        return records.replace(
            record, outcome=outcome, state=state, attempts=attempts, deliveries=deliveries
        )

    record = records.update(repo, handle, change)
    return record, (new_identity[0] if new_identity else None)


def _earlier_attempt_ended(
    record: Delegation, short: str, exit_code: int | None, kind: str
) -> Delegation:
    if kind == "settled":
        return record
    attempts = [
        records.replace(a, ended_at=time.time(), exit_code=exit_code)
        if a.short == short and a.ended_at is None
        else a
        for a in record.attempts
    ]
    return records.replace(record, attempts=attempts)


def mark_published(repo: Path, handle: str, ident: str) -> None:
    def change(record: Delegation) -> Delegation:
        deliveries = [
            records.replace(d, published_at=time.time())
            if d.identity == ident and d.published_at is None
            else d
            for d in record.deliveries
        ]
        return records.replace(record, deliveries=deliveries)

    records.update(repo, handle, change)


def publish(repo: Path, handle: str, ident: str, send: Callable[[], object]) -> None:
    """`send` the mail, then mark the delivery published (OSError/MailError pass up)."""
    send()
    mark_published(repo, handle, ident)


def pid_alive(pid: int | None) -> bool:
    if pid is None or pid <= 0:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def unpublished(repo: Path, problems: list[str] | None = None) -> list[tuple[Delegation, Delivery]]:
    """Deliveries persisted but never published by a process that is gone."""
    out: list[tuple[Delegation, Delivery]] = []
    for record in records.list_all(repo, problems):
        if pid_alive(record.host_pid) and record.host_pid != os.getpid():
            continue  # its host is alive and will publish it itself
        for delivery in record.deliveries:
            if delivery.published_at is None:
                out.append((record, delivery))
    return out


def redeliver_body(record: Delegation, delivery: Delivery) -> str:
    """The report of an unpublished delivery, rebuilt from what was persisted."""
    outcome = record.outcome
    if outcome is None or outcome.identity != delivery.identity:
        text = f"delegation {record.handle} ({record.harness}) {delivery.kind}"
        return with_identity(text + " (its details were superseded)", delivery.identity)
    code = f" with exit code {outcome.exit_code}" if outcome.exit_code is not None else ""
    short = record.attempts[outcome.attempt - 1].short if outcome.attempt else "?"
    head = f"pane {short} ({record.harness}, {record.workdir}) {outcome.kind}{code}"
    note = " (delivered after a restart)"
    tail = outcome.tail or "(no output)"
    if outcome.result_path:
        tail += f"\n\nfull report: {outcome.result_path}"
    return with_identity(f"{head}{note}\n\n{tail}", delivery.identity)


def consume(repo: Path, ident: str) -> Consumed:
    """The reader's side: `first` the first time an identity is consumed (and
    recorded so), `repeat` after that, `unknown` when no trusted record knows it."""
    match = records.IDENTITY_RE.match(ident)
    if match is None:
        return "unknown"
    handle = match.group(1)
    seen: list[Consumed] = []

    def change(record: Delegation) -> Delegation:
        deliveries = []
        verdict: Consumed = "unknown"
        for d in record.deliveries:
            if d.identity == ident:
                verdict = "repeat" if d.consumed_at is not None else "first"
                if d.consumed_at is None:
                    d = records.replace(d, consumed_at=time.time())
            deliveries.append(d)
        seen.append(verdict)
        return records.replace(record, deliveries=deliveries)

    try:
        records.update(repo, handle, change)
    except (RecordProblem, OSError):
        return "unknown"
    return seen[0] if seen else "unknown"
