"""The approval policy: which tool calls wait for the operator, and what a grant covers.

Every mutating or unknown call needs an answer. `1` runs it once; `2` runs it and
stops asking for this *exact* tool+scope for the rest of this session (held in
memory only, never widened to a directory); `3` refuses it with the operator's
guidance. A headless (delegated) session is offered the same choices: it waits,
blocked, until the operator answers in its pane — nothing runs without a yes, and
no number ever means no except the one that says so.

What the dialog shows (tool, scope, preview, note) has passed `visible`: the
arguments are the model's, and a command line or a file name may carry escape
sequences. The grant is keyed by the scope as it was (`key`), so two calls that
only look alike never share one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from zirv_dash.native import orchestration_tools
from zirv_dash.native.tools import TOOLS
from zirv_dash.visible import visible

Answer = Literal["once", "session", "deny"]
SCOPE_CHARS = 200
DENY_STEERING = (
    "The operator denied {scope}. Do not retry it; choose a different approach "
    "and say what you changed."
)


@dataclass(frozen=True)
class ApprovalRequest:
    call_id: str
    tool: str
    scope: str
    preview: tuple[str, ...]
    headless: bool = False
    """The session was delegated (launched headless); shown as the actor."""
    exact: bool = True  # "don't ask again" is offered only for a scope stated exactly
    key: str = ""  # the scope as the call stated it: what a session grant covers
    note: str = ""  # a warning the dialog shows above the choices (unsandboxed, hard links)

    def options(self) -> tuple[tuple[Answer, str], ...]:
        deny: tuple[Answer, str] = (
            "deny",
            "No, and tell the agent what to do differently (esc)",
        )
        if not self.exact:
            return (("once", "Yes"), deny)
        return (
            ("once", "Yes"),
            (
                "session",
                f"Yes, and don't ask again for this exact {self.tool} scope in this session",
            ),
            deny,
        )


def scope_of(name: str, args: Mapping[str, Any]) -> str:
    """The exact thing a grant covers: the path for file tools, the command line
    for commands, the whole argument object for anything else."""
    if name in ("write_file", "edit_file") and isinstance(args.get("path"), str):
        return f"{name} {args['path']}"
    if name == "run_command" and isinstance(args.get("command"), str):
        return f"run_command {args['command']}"
    return f"{name} {json.dumps(dict(args), sort_keys=True)[:SCOPE_CHARS]}"


def scope_is_exact(name: str, args: Mapping[str, Any]) -> bool:
    if name in ("write_file", "edit_file"):
        return isinstance(args.get("path"), str)
    if name == "run_command":
        return isinstance(args.get("command"), str)
    return len(json.dumps(dict(args), sort_keys=True)) <= SCOPE_CHARS


def preview_of(name: str, args: Mapping[str, Any]) -> tuple[str, ...]:
    if name in orchestration_tools.MUTATING:
        return orchestration_tools.preview(name, args)
    if name == "run_command":
        return (f"$ {args.get('command', '')}",)
    if name == "write_file":
        content = str(args.get("content", ""))
        lines = content.splitlines()
        head = [f"  {line[:100]}" for line in lines[:6]]
        more = [f"  … {len(lines) - 6} more line(s)"] if len(lines) > 6 else []
        return (f"write {args.get('path')} ({len(lines)} line(s))", *head, *more)
    if name == "edit_file":
        old = str(args.get("old_text", "")).splitlines()[:3]
        new = str(args.get("new_text", "")).splitlines()[:3]
        return (
            f"edit {args.get('path')}",
            *(f"- {x[:100]}" for x in old),
            *(f"+ {x[:100]}" for x in new),
        )
    return (json.dumps(dict(args), sort_keys=True)[:200],)


@dataclass
class Policy:
    headless: bool = False
    granted: set[str] = field(default_factory=set)

    def needs_approval(self, name: str, args: Mapping[str, Any], note: str = "") -> bool:
        """A mutating or unknown call not granted yet; any call with a `note`
        (a read through a hard link) unless that exact scope was granted."""
        tool = TOOLS.get(name)
        if tool is not None and not tool.mutating and not note:
            return False
        if name in orchestration_tools.SPECS and name not in orchestration_tools.MUTATING:
            return False
        return scope_of(name, args) not in self.granted

    def request(
        self, call_id: str, name: str, args: Mapping[str, Any], note: str = ""
    ) -> ApprovalRequest:
        scope = scope_of(name, args)
        return ApprovalRequest(
            call_id,
            visible(name),
            visible(scope),
            tuple(visible(line) for line in preview_of(name, args)),
            self.headless,
            scope_is_exact(name, args),
            scope,
            visible(note),
        )

    def record(self, request: ApprovalRequest, answer: Answer) -> None:
        if answer == "session" and request.exact:
            self.granted.add(request.key or request.scope)
