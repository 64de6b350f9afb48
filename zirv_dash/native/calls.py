"""One tool call of a native turn: through the approval gate, then run.

A denied call is answered as an error and, unless the operator typed it as a
`!` line, the model is steered to follow the operator's guidance instead.
"""

from __future__ import annotations

from typing import Protocol

from zirv_dash.native import orchestration_tools
from zirv_dash.native.approvals import DENY_STEERING, Answer, ApprovalRequest, Policy
from zirv_dash.native.journal import Event, new_id
from zirv_dash.native.protocol import ToolCall
from zirv_dash.native.tools import ToolResult, Workdir, approval_note, execute, refusal


class CallHost(Protocol):
    """What `run_call` needs of the session running the turn."""

    @property
    def policy(self) -> Policy: ...

    @property
    def workdir(self) -> Workdir: ...

    def record(self, kind: str, **data: object) -> Event: ...

    async def ask(self, request: ApprovalRequest) -> tuple[Answer, str]: ...

    def set_state(self, state: str) -> None: ...


async def run_call(host: CallHost, call: ToolCall, operator: bool = False) -> None:
    """Ask for approval where the policy wants it, then execute and journal the
    result; `operator` is a `!` line of the operator's own."""
    refused = refusal(host.workdir, call.name)
    if refused is not None:
        # Not worth an approval: the answer could not make it run.
        host.record("tool_finish", id=call.id, ok=False, output=refused, display="error")
        return
    note = approval_note(host.workdir, call.name, call.arguments)
    if host.policy.needs_approval(call.name, call.arguments, note):
        request = host.policy.request(call.id, call.name, call.arguments, note)
        answer, guidance = await host.ask(request)
        host.record("approval", id=call.id, answer=answer, scope=request.scope, guidance=guidance)
        host.policy.record(request, answer)
        if answer == "deny":
            _denied(host, call, request, guidance, operator)
            return
    host.record("tool_start", id=call.id)
    host.set_state("executing")
    result: ToolResult
    if call.name in orchestration_tools.SPECS:  # the host's fleet; validated there
        fleet = getattr(host, "fleet", None)
        result = await orchestration_tools.execute(fleet, call.name, call.arguments)
    else:
        # The gate was passed with the note in view (asked, or granted for this exact scope).
        links_ok = bool(note)
        result = await execute(host.workdir, call.name, call.arguments, links_ok=links_ok)
    host.record(
        "tool_finish", id=call.id, ok=result.ok, output=result.output, display=result.display
    )


def _denied(
    host: CallHost, call: ToolCall, request: ApprovalRequest, guidance: str, operator: bool
) -> None:
    note = f" Operator: {guidance}" if guidance else ""
    host.record(
        "tool_finish",
        id=call.id,
        ok=False,
        display="error",
        output=f"denied by the operator{': ' + guidance if guidance else ''}",
    )
    if operator:
        return
    host.record(
        "input",
        id=new_id("steer"),
        steering=True,
        text=DENY_STEERING.format(scope=request.scope) + note,
    )
