"""Carrying out a claim: validate it, turn an accepted request into a pane's argv
and env, launch it, ack it and release the claim. Nothing here raises."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from zirv_dash.harnesses.adapters import Adapter
from zirv_dash.spawn.claims import Claimed, answer
from zirv_dash.spawn.kills import authorize_kill
from zirv_dash.spawn.policy import Decision, ValidationContext, validate
from zirv_dash.spawn.protocol import SpawnAck, SpawnRequest, show

RESTART_ENV_HEADLESS = "ZIRV_CTX_HEADLESS"
RESTART_ENV_INTERACTIVE = "ZIRV_CTX_LAUNCH_MODE"


@dataclass
class Fulfilment:
    """What happened to one claim: the ack sent (None if none was due), the
    decision for spawn requests, the new pane's short, and error-log lines."""

    ack: SpawnAck | None
    decision: Decision | None = None
    short: str | None = None
    errors: list[str] = field(default_factory=list)


def fulfil(
    claimed: Claimed,
    ctx: ValidationContext,
    launch: Callable[[Decision], str],
    stop: Callable[[str], None],
    parents: Mapping[str, str | None],
) -> Fulfilment:
    """Validate and carry out one claim, ack it and release it. Never raises.

    `launch(decision)` spawns the pane and returns its short id (an exception is
    a channel-level refusal: the requester may go elsewhere). `stop(short)`
    kills a pane for an authorised kill request. `parents` maps live pane shorts
    to the short that requested them (for kill ancestry).
    """
    if claimed.error is not None:
        ack = SpawnAck.refused(claimed.error)
        errors = [f"spawn request refused: {claimed.error}"]
        if not claimed.ackable:
            claimed.release()
            return Fulfilment(None, errors=errors)
        return _answered(claimed, ack, Fulfilment(ack, errors=errors))
    if claimed.kill is not None:
        verdict = authorize_kill(claimed.kill, ctx.channel_owner_short, parents)
        if not verdict.ok:
            errors = [verdict.reason or "kill refused"]
            if not verdict.send_ack:
                claimed.release()
                return Fulfilment(None, errors=errors)
            ack = SpawnAck.refused(verdict.reason or "kill refused")
            return _answered(claimed, ack, Fulfilment(ack, errors=errors))
        try:
            stop(claimed.kill)
        except Exception as exc:  # noqa: BLE001 - a failing stop must not kill the sweep
            ack = SpawnAck.refused(f"kill {claimed.kill} failed: {exc}", retryable=True)
            return _answered(claimed, ack, Fulfilment(ack, errors=[ack.reason or ""]))
        ack = SpawnAck(ok=True, short=claimed.kill)
        return _answered(claimed, ack, Fulfilment(ack, short=claimed.kill))
    if claimed.request is None:  # pragma: no cover - claim_requests never builds this
        claimed.release()
        return Fulfilment(None, errors=["spawn request with nothing in it"])
    decision = validate(claimed.request, ctx)
    if not decision.ok:
        return refuse(claimed, decision)
    return complete(claimed, decision, launch)


def refuse(claimed: Claimed, decision: Decision) -> Fulfilment:
    """Ack a refused decision and release its claim (file work only: safe off
    the dashboard's event loop)."""
    ack = decision.ack()
    out = Fulfilment(ack, decision, errors=[f"spawn refused: {decision.reason}"])
    return _answered(claimed, ack, out)


def complete(claimed: Claimed, decision: Decision, launch: Callable[[Decision], str]) -> Fulfilment:
    """Launch an accepted decision, ack it and release the claim. Never raises."""
    try:
        short = launch(decision)
    except Exception as exc:  # noqa: BLE001 - reported to the requester as retryable
        ack = SpawnAck.refused(f"pane spawn failed: {show(str(exc))}", retryable=True)
        return _answered(claimed, ack, Fulfilment(ack, decision, errors=[ack.reason or ""]))
    ack = decision.ack(short)
    return _answered(claimed, ack, Fulfilment(ack, decision, short, list(decision.notes)))


def _answered(claimed: Claimed, ack: SpawnAck, out: Fulfilment) -> Fulfilment:
    problem = answer(claimed, ack)
    if problem:
        out.errors.append(problem)
    return out


# --- launch -----------------------------------------------------------------------------


def build_launch(
    req: SpawnRequest, adapter: Adapter, headless: bool
) -> tuple[list[str], dict[str, str]]:
    """argv (the prompt is one element) and env additions for an accepted request.

    Pass `headless` to `session_env.child_env` too; the mode variable here
    matches it.
    """
    extra = list(req.flags)
    argv = adapter.interactive_argv(req.prompt, model=req.model, extra=extra, headless=headless)
    env: dict[str, str] = {}
    if headless:
        env[RESTART_ENV_HEADLESS] = "1"
    else:
        env[RESTART_ENV_INTERACTIVE] = "interactive"
    if req.result_schema:
        env["ZIRV_CTX_RESULT_SCHEMA"] = req.result_schema
    if req.workdir:
        env["ZIRV_CTX_RESULT_WORKDIR"] = req.workdir
    if req.work_group_id:
        env["ZIRV_CTX_WORK_GROUP"] = req.work_group_id
    return argv, env
