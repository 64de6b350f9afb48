"""`zirv ctx handover [PREFIX] [--agent A] [--model M|cheap|standard|deep] [--dry-run] [--force]`.

Resolves the successor (harness, tier, model) for a live pane — by default this
repository's orchestrator — and asks the dashboard hosting it to swap, through
`<state>/sessions/<short>.handover-req`, waiting for `<short>.handover-ack`.
`--dry-run` only prints the resolution and works with no live session at all.

Exit status: 0 done (or dry run), 1 refused / failed / no answer, 2 usage or config error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zirv_dash import adapters, catalogue, handover, paths, procinfo
from zirv_dash.config import ConfigError, Settings, load_adapter_gate, load_settings

WAIT_SECS = 30.0
POLL_SECS = 0.1
WAIT_ENV = "ZIRV_HANDOVER_WAIT_SECS"  # not ZIRV_CTX_HANDOVER_*: model overrides
_RECORD_NAME = re.compile(r"^[A-Za-z0-9]+\.json$")

DELIVERY = {
    "resume": "resume the same conversation (no packet)",
    "system_prompt": "handoff packet through the harness's system-prompt channel",
    "first_prompt": "handoff packet as the first prompt (one argv element)",
}
SOURCES = {
    "override": "operator override",
    "ladder": "built-in ladder",
    "literal": "literal model id",
    "harness-default": "the harness's own default model",
}


@dataclass(frozen=True)
class SessionRecord:
    """The fields of `<state>/sessions/<short>.json` this command needs."""

    short: str
    session: str
    agent: str
    model: str | None
    repo: str
    repo_slug: str
    role: str | None
    verb: str
    pid: int
    start_time: float | None
    started_at: float
    owner_pid: int | None


def _get(data: dict[str, Any], key: str, kind: type[Any], default: Any) -> Any:
    value = data.get(key, default)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value if isinstance(value, kind) and not isinstance(value, bool) else default


def read_record(path: Path) -> SessionRecord | None:
    """A session record, or None for anything unreadable or malformed (never raises)."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(handover.MAX_STATE_FILE_BYTES + 1)
        if len(raw) > handover.MAX_STATE_FILE_BYTES:
            return None
        data = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    session = _get(data, "session", str, "")
    short = _get(data, "short", str, "") or paths.short_id(session)
    agent = _get(data, "agent", str, "")
    if not short or not agent or short != path.stem:
        return None
    model = _get(data, "model", str, None) or _get(data, "launch_model", str, None)
    owner = _get(data, "owner_pid", int, None)
    return SessionRecord(
        short=short,
        session=session,
        agent=agent,
        model=model,
        repo=_get(data, "repo", str, ""),
        repo_slug=_get(data, "repo_slug", str, ""),
        role=_get(data, "role", str, None),
        verb=_get(data, "verb", str, ""),
        pid=_get(data, "pid", int, 0),
        start_time=_get(data, "start_time", float, None),
        started_at=_get(data, "started_at", float, 0.0),
        owner_pid=owner,
    )


def _alive(record: SessionRecord) -> bool:
    if record.pid > 0:
        return procinfo.is_same_process(record.pid, record.start_time)
    return record.owner_pid is not None and procinfo.pid_exists(record.owner_pid)


def live_records() -> list[SessionRecord]:
    directory = paths.state_dir() / "sessions"
    try:
        entries = sorted(directory.iterdir())
    except OSError:
        return []
    found = []
    for path in entries:
        if not _RECORD_NAME.match(path.name):
            continue
        record = read_record(path)
        if record is not None and _alive(record):
            found.append(record)
    return found


def orchestrator_for(records: list[SessionRecord], repo: Path) -> SessionRecord | None:
    """This repository's orchestrator pane (newest first), if one is live."""
    root = str(repo.resolve())
    slug = paths.repo_slug(repo)

    def same_repo(r: SessionRecord) -> bool:
        if r.repo:
            try:
                return str(Path(r.repo).resolve()) == root
            except OSError:
                return r.repo == root
        return r.repo_slug == slug

    def is_orchestrator(r: SessionRecord) -> bool:
        return r.role == "orchestrator" or (r.role is None and r.verb == "chat")

    mine = [r for r in records if same_repo(r) and is_orchestrator(r)]
    return max(mine, key=lambda r: r.started_at) if mine else None


class UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zirv ctx handover",
        description="Swap a live pane's harness or model in place (default pane: this "
        "repository's orchestrator).",
    )
    parser.add_argument("prefix", nargs="?", help="session short id or prefix of the pane")
    parser.add_argument("--agent", help="target harness (default: the pane's own)")
    parser.add_argument(
        "--model", help="cheap | standard | deep, or a literal model id (default: same tier)"
    )
    parser.add_argument("--dry-run", action="store_true", help="print the swap; change nothing")
    parser.add_argument(
        "--force", action="store_true", help="swap now even if the pane is mid-turn"
    )
    return parser


def _select_target(prefix: str | None, records: list[SessionRecord]) -> SessionRecord | None:
    if prefix is None:
        return orchestrator_for(records, paths.repo_root())
    wanted = prefix.lower()
    hits = [
        r
        for r in records
        if r.short.lower().startswith(wanted) or r.session.lower().startswith(wanted)
    ]
    if len(hits) > 1:
        names = ", ".join(f"{r.short} ({r.agent})" for r in hits)
        raise UsageError(f"session prefix {prefix!r} is ambiguous: {names}")
    return hits[0] if hits else None


def _default_agent(settings: Settings) -> str:
    try:
        gate = load_adapter_gate(names=adapters.names())
        enabled = {n for n in adapters.names() if gate.enabled(n)}
    except ConfigError:
        enabled = None
    return adapters.resolve_default(settings.agent, enabled)[0]


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return _run(args)
    except UsageError as exc:
        print(f"zirv ctx handover: {exc}", file=sys.stderr)
        return 2
    except ConfigError as exc:
        print(f"zirv ctx handover: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    if not args.agent and not args.model:
        raise UsageError("nothing to swap to: pass --agent and/or --model (see --help)")
    settings = load_settings()
    target = _select_target(args.prefix, live_records())
    agent = args.agent or (target.agent if target else None) or _default_agent(settings)
    spec = args.model
    if not spec:
        keep = catalogue.tier_of(target.model) if target and target.model else None
        spec = keep or "standard"
    try:
        res = catalogue.resolve_model(agent, spec, settings)
    except catalogue.ResolveError as exc:
        print(f"zirv ctx handover: {exc}", file=sys.stderr)
        return 1
    refusal = None
    try:
        handover.check_harness(agent)
    except handover.HandoverRefused as exc:
        refusal = str(exc)
    if args.dry_run:
        _print_dry_run(args, res, target, refusal)
        return 0
    if target is None:
        where = f"matching {args.prefix!r}" if args.prefix else "(no orchestrator in this repo)"
        print(f"zirv ctx handover: no live session {where}", file=sys.stderr)
        return 1
    if refusal:
        print(f"handover refused: {refusal}", file=sys.stderr)
        return 1
    return _request_and_wait(target, res, force=args.force)


def _describe_target(target: SessionRecord | None, prefix: str | None) -> str:
    if target is None:
        return "(no live session)" if not prefix else f"(no live session matching {prefix!r})"
    model = target.model or catalogue.NO_MODEL
    role = target.role or target.verb or "session"
    return f"{target.short} {target.agent}/{model} ({role}, pid {target.pid})"


def _print_dry_run(
    args: argparse.Namespace,
    res: catalogue.Resolution,
    target: SessionRecord | None,
    refusal: str | None,
) -> None:
    source = SOURCES.get(res.source, res.source)
    if res.source == "override" and res.tier:
        source += f" handover.{res.agent}.{res.tier}"
    if res.agent == "shell":
        delivery = "handoff packet in a private file (never on a shell's argv)"
    elif target is not None:
        delivery = DELIVERY[handover.swap_mode(target.agent, res.agent, target.session)]
    else:
        delivery = DELIVERY[handover.swap_mode("", res.agent, None)]
        adapter = adapters.get(res.agent)
        if adapter is not None and adapter.resume_flag:
            delivery += f"; a {res.agent} pane resumes its own conversation instead"
    lines = [
        "handover (dry run; nothing changed)",
        f"  harness:  {res.agent}",
        f"  tier:     {res.tier or catalogue.NO_MODEL}",
        f"  model:    {res.display_model} ({source})",
        f"  target:   {_describe_target(target, args.prefix)}",
        f"  delivery: {delivery}",
        f"  status:   {'ready' if refusal is None else 'would be refused: ' + refusal}",
    ]
    if args.force:
        lines.append("  force:    swap even if the pane is mid-turn")
    print("\n".join(lines))


def _wait_secs() -> float:
    try:
        return max(0.0, float(os.environ.get(WAIT_ENV, WAIT_SECS)))
    except ValueError:
        return WAIT_SECS


def _request_and_wait(target: SessionRecord, res: catalogue.Resolution, force: bool) -> int:
    short = target.short
    handover.clear_ack(short)
    request = handover.HandoverRequest(
        target_agent=res.agent,
        target_model=res.model,
        force=force,
        requested_at=int(time.time()),
    )
    handover.write_request(short, request)
    wanted = f"{res.agent}/{res.display_model}"
    print(f"handover: asked pane {short} ({target.agent}) to switch to {wanted}; waiting…")
    deadline = time.monotonic() + _wait_secs()
    while True:
        try:
            ack = handover.claim_ack(short)
        except handover.HandoverFileError as exc:
            print(f"handover: unreadable answer: {exc}", file=sys.stderr)
            return 1
        if ack is not None:
            return _report(short, ack)
        if time.monotonic() >= deadline:
            break
        time.sleep(POLL_SECS)
    secs = f"{_wait_secs():g}s"
    if handover.withdraw_request(short):
        print(
            f"handover: no dashboard answered for pane {short} within {secs}; "
            "request withdrawn (is the dashboard hosting it running?)",
            file=sys.stderr,
        )
    else:
        print(
            f"handover: pane {short}'s dashboard took the request but did not answer within "
            f"{secs}; it may still switch",
            file=sys.stderr,
        )
    return 1


def _report(short: str, ack: handover.HandoverAck) -> int:
    old = f"{ack.from_agent or '?'}/{ack.from_model or catalogue.NO_MODEL}"
    new = f"{ack.to_agent or '?'}/{ack.to_model or catalogue.NO_MODEL}"
    if not ack.ok:
        print(f"handover refused: {ack.reason or 'no reason given'}", file=sys.stderr)
        return 1
    if ack.stored:
        print(f"handover accepted: pane {short} switches {old} → {new} at its next idle boundary")
    else:
        print(f"handover done: pane {short} {old} → {new}")
    if ack.reason:
        print(f"  {ack.reason}")
    return 0
