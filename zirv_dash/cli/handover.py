"""`zirv ctx handover [PREFIX] [--agent A] [--model M|cheap|standard|deep] [--dry-run] [--force]`.

Resolves the successor (harness, tier, model) for a live pane — by default this
repository's orchestrator — and asks the dashboard hosting it to swap, through
`<state>/sessions/<short>.handover-req`, waiting for `<short>.handover-ack`.
`--dry-run` prints the resolution and what the real run would do, changes
nothing, and exits as the real run would (1 for no live session or a refusal).
A successor harness that is clearly not logged in (`harnesses.credentials`) is
warned about before anything starts, and the run stops there unless `--force`.

Exit status: 0 done (or a dry run that would go ahead), 1 refused / failed / no
answer (or a dry run that would be), 2 usage or config error.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from zirv_dash import paths
from zirv_dash.config.layers import ConfigError, load_adapter_gate, load_settings
from zirv_dash.handover import files as handover_files
from zirv_dash.handover import plan as handover_plan
from zirv_dash.harnesses import adapters, catalogue, credentials
from zirv_dash.panes import registry
from zirv_dash.panes.registry import SessionRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    # `config.Settings` imports pydantic, which plainly valid settings never need.
    from zirv_dash.config.layers import Settings

WAIT_SECS = 60.0
"""Long enough for the successor's trial (`runtime.successor_trial.LIMIT`): the
answer comes once it has proved itself or failed."""
POLL_SECS = 0.1
WAIT_ENV = "ZIRV_HANDOVER_WAIT_SECS"  # not ZIRV_CTX_HANDOVER_*: model overrides

SOURCES = {
    "override": "operator override",
    "ladder": "built-in ladder",
    "literal": "literal model id",
    "harness-default": "the harness's own default model",
}


def record_model(record: SessionRecord) -> str | None:
    """The pane's model, when its record carries one (`model`; upstream has none)."""
    for key in ("model", "launch_model"):
        value = record.extra.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def live_records() -> list[SessionRecord]:
    """Live registry records. Read only: a dry run must not sweep stale ones, and
    unreadable files are skipped silently (`zirv ctx status` reports them)."""
    problems: list[str] = []
    return [
        r for r in registry.list_sessions(sweep=False, problems=problems) if registry.is_alive(r)
    ]


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
    import argparse  # only when parsing: a plain request needs none of it

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
        "--force",
        action="store_true",
        help="swap now even if the pane is mid-turn, or its harness looks not logged in",
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
        keep = catalogue.tier_of(record_model(target)) if target else None
        spec = keep or "standard"
    try:
        res = catalogue.resolve_model(agent, spec, settings)
    except catalogue.ResolveError as exc:
        print(f"zirv ctx handover: {exc}", file=sys.stderr)
        return 1
    refusal = None
    try:
        handover_plan.check_harness(agent)
    except handover_files.HandoverRefused as exc:
        refusal = str(exc)
    login = _login_missing(agent, target)
    if login and not refusal and not args.force:
        refusal = f"{login} (--force hands over anyway)"
    if args.dry_run:
        blockers = _blockers(args.prefix, target, refusal)
        _print_dry_run(args, res, target, _dry_status(blockers, target, res))
        return 1 if blockers else 0
    if target is None:
        print(f"zirv ctx handover: {_no_session(args.prefix)}", file=sys.stderr)
        return 1
    if refusal:
        print(f"handover refused: {refusal}", file=sys.stderr)
        return 1
    if login:
        print(f"handover: warning: {login}; going ahead (--force)", file=sys.stderr)
    if _nothing_to_do(target, res):
        print(f"handover: pane {target.short} already runs {res.agent}/{res.model}; nothing to do")
        return 0
    return _request_and_wait(target, res, force=args.force)


def _login_missing(agent: str, target: SessionRecord | None) -> str:
    """ "<agent> is not logged in: <what is missing>", or "" (logged in, cannot
    tell, or the pane runs that harness already). The environment is this
    command's: run from a pane, it is the one the pane's successor gets."""
    if target is not None and target.agent == agent:
        return ""
    adapter = adapters.get(agent)
    env = dict(os.environ, **(adapter.extra_env if adapter else {}))
    missing = credentials.missing(agent, env)
    return f"{agent} is not logged in: {missing}" if missing else ""


def _no_session(prefix: str | None) -> str:
    where = f"matching {prefix!r}" if prefix else "(no orchestrator in this repo)"
    return f"no live session {where}"


def _nothing_to_do(target: SessionRecord, res: catalogue.Resolution) -> bool:
    return target.agent == res.agent and catalogue.same_model(record_model(target), res.model)


def _blockers(prefix: str | None, target: SessionRecord | None, refusal: str | None) -> list[str]:
    """What would make the real run exit 1, in the order it checks them."""
    found = []
    if target is None:
        found.append(f"would fail: {_no_session(prefix)}")
    if refusal:
        found.append(f"would be refused: {refusal}")
    return found


def _dry_status(
    blockers: list[str], target: SessionRecord | None, res: catalogue.Resolution
) -> str:
    if blockers:
        return "; ".join(blockers)
    if target is not None and _nothing_to_do(target, res):
        return f"nothing to do: pane {target.short} already runs {res.agent}/{res.display_model}"
    return "ready: the real run would ask the pane's dashboard to swap"


def _describe_target(target: SessionRecord | None, prefix: str | None) -> str:
    if target is None:
        return "(no live session)" if not prefix else f"(no live session matching {prefix!r})"
    model = record_model(target) or catalogue.NO_MODEL
    role = target.role or target.verb or "session"
    return f"{target.short} {target.agent}/{model} ({role}, pid {target.pid})"


def _print_dry_run(
    args: argparse.Namespace,
    res: catalogue.Resolution,
    target: SessionRecord | None,
    status: str,
) -> None:
    # Imported here: the runtime package loads the engine, which only a dry run
    # (printing the delivery words) needs, never a plain request.
    from zirv_dash.runtime.handover_delivery import DELIVERY

    source = SOURCES.get(res.source, res.source)
    if res.source == "override" and res.tier:
        source += f" handover.{res.agent}.{res.tier}"
    if res.agent == "shell":
        delivery = "handoff packet in a private file (never on a shell's argv)"
    elif target is not None:
        delivery = DELIVERY[handover_plan.swap_mode(target.agent, res.agent, target.session)]
    else:
        delivery = DELIVERY[handover_plan.swap_mode("", res.agent, None)]
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
        f"  status:   {status}",
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
    handover_files.clear_ack(short)
    request = handover_files.HandoverRequest(
        target_agent=res.agent,
        target_model=res.model,
        force=force,
        requested_at=int(time.time()),
    )
    handover_files.write_request(short, request)
    wanted = f"{res.agent}/{res.display_model}"
    print(f"handover: asked pane {short} ({target.agent}) to switch to {wanted}; waiting…")
    deadline = time.monotonic() + _wait_secs()
    while True:
        try:
            ack = handover_files.claim_ack(short)
        except handover_files.HandoverFileError as exc:
            print(f"handover: unreadable answer: {exc}", file=sys.stderr)
            return 1
        if ack is not None:
            return _report(short, ack)
        if time.monotonic() >= deadline:
            break
        time.sleep(POLL_SECS)
    secs = f"{_wait_secs():g}s"
    if handover_files.withdraw_request(short):
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


def _report(short: str, ack: handover_files.HandoverAck) -> int:
    old = f"{ack.from_agent or '?'}/{ack.from_model or catalogue.NO_MODEL}"
    new = f"{ack.to_agent or '?'}/{ack.to_model or catalogue.NO_MODEL}"
    if not ack.ok:
        verb = "failed" if ack.failed else "refused"
        print(f"handover {verb}: {ack.reason or 'no reason given'}", file=sys.stderr)
        return 1
    if ack.stored:
        print(f"handover accepted: pane {short} switches {old} → {new} at its next idle boundary")
    else:
        print(f"handover done: pane {short} {old} → {new}")
    if ack.reason:
        print(f"  {ack.reason}")
    return 0
