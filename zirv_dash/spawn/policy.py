"""What a spawn request may ask for: the trust boundary, the limits, the gate.

`validate` runs upstream's §5.5 order (cheapest and most hostile checks first);
the order decides which reason, and whether `retryable`, a request wrong in
several ways gets. A channel proves identity by location only: nothing a
request says of itself widens what its channel grants (`kills` holds the
same boundary for kill requests).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

import msgspec

from zirv_dash import paths
from zirv_dash.harnesses.adapters import ADAPTERS, Adapter
from zirv_dash.harnesses.native_kind import NATIVE, NATIVE_ADAPTER
from zirv_dash.spawn.protocol import Role, SpawnAck, SpawnRequest, show
from zirv_dash.textcheck import text_problem

MAX_TIMEOUT_SECS = 30 * 24 * 3600
MODEL_MAX_CHARS = 128
GIT_CACHE_MAX = 256
MODEL_RE = re.compile(r"\A[A-Za-z0-9._:/@-]+\Z")
ARGV_GUARD = "prompt must not begin with '-' (argv injection guard)"


class Gate(Protocol):
    def refusal(self, agent: str) -> str | None: ...


@dataclass
class ValidationContext:
    """What the dashboard knows when it validates one request.

    `channel_owner_*` describe the pane whose private channel the request came
    in on; all None means the shared channel (which proves no identity).
    """

    repo: Path
    workdir_roots: Sequence[str | Path] = ()
    live_panes: int = 0
    max_panes: int = 9
    gate: Gate | None = None
    channel_owner_role: Role | None = None
    channel_owner_short: str | None = None
    channel_owner_session: str | None = None
    live_shorts: Collection[str] = ()
    file_drop: bool = True
    adapters: Mapping[str, Adapter] = field(default_factory=lambda: ADAPTERS)
    repo_common_dir: Path | None = None
    """Filled in on first use (one `git rev-parse`)."""
    git_dirs: dict[str, Path | None] = field(default_factory=dict)
    """`git rev-parse` answers by path. Share one dict between the contexts of a
    sweep so a flood naming one cwd costs one subprocess, not one per request."""
    steer: Callable[[SpawnRequest], tuple[SpawnRequest, str | None]] | None = None
    """Cross-harness fallback for a new pane: the request moved to another harness
    and why (None: it stays), checked like any request afterwards."""
    permit: Callable[[SpawnRequest, Path], str | None] | None = None
    """The writer-permit check: why a writing request may not run in this tree."""
    _repo_resolved: Path | None = None
    _roots: list[Path] | None = None

    def git_dir_of(self, path: Path) -> Path | None:
        key = str(path)
        if key not in self.git_dirs:
            if len(self.git_dirs) >= GIT_CACHE_MAX:
                self.git_dirs.clear()  # hostile requests naming many paths stay bounded
            self.git_dirs[key] = paths.git_common_dir(path)
        return self.git_dirs[key]

    def common_dir(self) -> Path | None:
        if self.repo_common_dir is None:
            self.repo_common_dir = self.git_dir_of(self.repo_resolved())
        return self.repo_common_dir

    def repo_resolved(self) -> Path:
        if self._repo_resolved is None:
            self._repo_resolved = self.repo.resolve()
        return self._repo_resolved

    def roots(self) -> list[Path]:
        if self._roots is None:
            self._roots = self._compute_roots()
        return self._roots

    def _compute_roots(self) -> list[Path]:
        repo = self.repo_resolved()
        out = [repo]
        # The parent holds sibling checkouts; never when it is the filesystem
        # root, which would make every directory a root (upstream §5.5 step 4).
        if repo.parent != repo.parent.parent:
            out.append(repo.parent)
        for extra in self.workdir_roots:
            text = str(extra).strip()
            if text:
                out.append(Path(text).expanduser().resolve())
        return out


@dataclass
class Decision:
    """The outcome of `validate`. On success `request` is the sanitised request."""

    ok: bool
    reason: str | None = None
    retryable: bool = False
    request: SpawnRequest | None = None
    adapter: Adapter | None = None
    role: Literal["worker", "sub-orchestrator"] = "worker"
    parent: str | None = None
    """The verified parent: the channel owner, never `request.parent_session`."""
    cwd: Path | None = None
    workdir: Path | None = None
    headless: bool = True
    notes: list[str] = field(default_factory=list)
    """Advisories for the error log (e.g. unenforced --max-tool-calls)."""
    warnings: list[dict[str, str]] = field(default_factory=list)
    """What the requester's receipt should say (`capability_warnings`)."""
    handle: str | None = None
    """The delegation handle the launched pane runs under (set at launch)."""

    @property
    def run_dir(self) -> Path | None:
        return self.workdir or self.cwd

    def ack(self, short: str | None = None) -> SpawnAck:
        if self.ok:
            return SpawnAck.spawned(short or "", self.warnings, self.handle)
        return SpawnAck.refused(self.reason or "refused", self.retryable)


def _policy(reason: str) -> Decision:
    return Decision(False, reason=reason, retryable=False)


def _channel(reason: str) -> Decision:
    return Decision(False, reason=reason, retryable=True)


def sanitize_file_drop(req: SpawnRequest) -> SpawnRequest:
    """`req` without its widening fields (a file drop never gets them)."""
    timeout = req.timeout_secs
    return msgspec.structs.replace(
        req,
        force=False,
        flags=[],
        interactive=False,
        timeout_secs=min(timeout, MAX_TIMEOUT_SECS) if timeout is not None else None,
    )


def prompt_refusal(prompt: str) -> str | None:
    """Why `prompt` may not be launched, or None. The prompt is one argv element
    on every path (inline, stdin, file drop, handover, the spawn dialog), and a
    harness would read one that begins with '-' as an option, so none does."""
    if prompt.lstrip().startswith("-"):
        return ARGV_GUARD
    problem = text_problem(prompt)
    if problem is not None:
        return f"prompt {problem}"
    if not prompt.strip():
        return "prompt is empty"
    return None


def model_refusal(model: str) -> str | None:
    if model.lstrip().startswith("-"):
        return f"model {show(model, 40)} refused: it looks like a flag"
    if len(model) > MODEL_MAX_CHARS:
        return f"model refused: longer than {MODEL_MAX_CHARS} characters"
    if not MODEL_RE.match(model):
        return f"model {show(model, 40)} refused: only letters, digits and ._:/@- are allowed"
    return None


def is_within(path: Path, root: Path) -> bool:
    """Component-wise containment (`/a/bc` is not inside `/a/b`)."""
    return path.parts[: len(root.parts)] == root.parts


def _resolve(text: str, base: Path) -> Path | None:
    try:
        p = Path(text).expanduser()
        return (p if p.is_absolute() else base / p).resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def validate(req: SpawnRequest, ctx: ValidationContext) -> Decision:
    """Upstream §5.5 order, minus budgets, permits, work groups and envelopes.

    The order decides which reason (and whether `retryable`) a request wrong in
    several ways gets, so it stays upstream's; the cost is kept low instead: a
    request naming the dashboard's own repo reaches the pane cap on string and
    `stat` checks alone, and `git` runs only for another cwd or a workdir, once
    per path per sweep (`ValidationContext.git_dirs`).

    On success `Decision.request` is `req` normalised (file-drop sanitising,
    absolute `cwd`/`workdir`, a display-safe `name`); `req` itself is a frozen
    record and stays as it was.
    """
    if ctx.file_drop:
        req = sanitize_file_drop(req)
    why_prompt = prompt_refusal(req.prompt)  # 2. argv guard
    if why_prompt:
        return _policy(why_prompt)
    cwd, workdir, refused = _place_check(req, ctx)  # 3. repo cwd, 4. workdir roots
    if refused is not None:
        return refused
    if ctx.live_panes >= ctx.max_panes:  # 6. pane cap
        return _policy(
            f"pane limit reached ({ctx.live_panes} live panes, dash.max_panes = {ctx.max_panes})"
        )
    refused = _identity_refusal(req, ctx)  # 7. parent claim, requester, 8. depth cap
    if refused is not None:
        return refused
    role: Literal["worker", "sub-orchestrator"] = (
        "sub-orchestrator" if req.role == "sub-orchestrator" else "worker"
    )
    steered = None
    if ctx.steer is not None:  # fallback: off an exhausted harness, before its gate check
        req, steered = ctx.steer(req)
    adapter, refused = _adapter_check(req, ctx)  # 9. adapter gate, model
    if refused is not None:
        return refused
    tree = workdir or cwd or ctx.repo
    if ctx.permit is not None and (why_permit := ctx.permit(req, tree)):  # 10. writer permit
        return _policy(why_permit)
    return _accepted(req, ctx, adapter, role, cwd, workdir, steered)


def _accepted(
    req: SpawnRequest,
    ctx: ValidationContext,
    adapter: Adapter | None,
    role: Literal["worker", "sub-orchestrator"],
    cwd: Path | None,
    workdir: Path | None,
    steered: str | None,
) -> Decision:
    """The accepted request, normalised, with its advisories."""
    req = msgspec.structs.replace(
        req,
        cwd=str(cwd) if cwd is not None else req.cwd,
        name=(show(req.name.strip(), 64) or None) if req.name is not None else None,
        workdir=str(workdir) if workdir is not None else req.workdir,
    )
    notes: list[str] = []
    if req.max_tool_calls is not None:
        notes.append("cannot enforce --max-tool-calls in a dashboard pane")
    warnings = []
    if steered:
        warnings.append({"capability": "fallback", "detail": steered})
    private = ctx.channel_owner_role is not None
    return Decision(
        True,
        request=req,
        adapter=adapter,
        role=role,
        parent=ctx.channel_owner_short if private else None,
        cwd=cwd,
        workdir=workdir,
        headless=not req.interactive,
        notes=notes,
        warnings=warnings,
    )


def _identity_refusal(req: SpawnRequest, ctx: ValidationContext) -> Decision | None:
    """What the channel proves decides the parent and the role; a request's own
    words (`parent_session`, `requested_by`, `role`) can only narrow it."""
    private = ctx.channel_owner_role is not None
    claim = req.parent_session
    if claim:
        claimed_short = paths.short_id(claim)
        if private:
            if claim not in (ctx.channel_owner_short, ctx.channel_owner_session) and (
                claimed_short != ctx.channel_owner_short
            ):
                return _policy(
                    f"parent claim {show(claim, 40)} does not match the requesting pane "
                    f"({ctx.channel_owner_short})"
                )
        elif claim in ctx.live_shorts or claimed_short in ctx.live_shorts:
            return _channel(
                f"the shared channel cannot prove the parent claim {show(claim, 40)} "
                "(a live pane); request from the pane's own channel"
            )
    if private:
        # A pane's channel grants only what that pane may: a request in it that
        # names another live pane as its requester was written by someone else
        # (say a worker into its orchestrator's channel to get a sub-orchestrator).
        by = req.requested_by
        by_short = paths.short_id(by)
        foreign = by in ctx.live_shorts or by_short in ctx.live_shorts
        mine = by in (ctx.channel_owner_short, ctx.channel_owner_session) or (
            by_short == ctx.channel_owner_short
        )
        if foreign and not mine:
            return _policy(
                f"request names pane {show(by, 40)} as its requester but came in on pane "
                f"{ctx.channel_owner_short}'s channel; a pane may only use its own channel"
            )
    if req.role == "orchestrator":
        return _policy("a spawned pane is never a full orchestrator seat")
    if ctx.channel_owner_role == "worker":
        return _policy("a worker may not delegate onward (delegation depth cap: 2)")
    if ctx.channel_owner_role == "sub-orchestrator" and req.role == "sub-orchestrator":
        return _policy("a sub-orchestrator may not spawn another (delegation depth cap: 2)")
    if not private and req.role == "sub-orchestrator":
        return _policy("the shared channel cannot claim the sub-orchestrator role")
    return None


def _adapter_check(
    req: SpawnRequest, ctx: ValidationContext
) -> tuple[Adapter | None, Decision | None]:
    if req.agent == NATIVE:
        # zirv's own session: its route (~/.zirv/native.toml) names the model,
        # and it has no command line for flags or a system-prompt argument.
        wrapped = [
            name
            for name, given in (
                ("model", req.model is not None),
                ("flags", bool(req.flags)),
                ("system_prompt", req.system_prompt is not None),
                # The intake's deadline stops a child; a native session has none yet.
                ("timeout_secs", req.timeout_secs is not None),
            )
            if given
        ]
        if wrapped:
            return None, _policy(
                f"{', '.join(wrapped)}: not for a native pane (its route names the model)"
            )
        return NATIVE_ADAPTER, None
    adapter = ctx.adapters.get(req.agent)
    if adapter is None:
        return None, _policy(
            f"unknown adapter '{show(req.agent, 40)}'; known: {', '.join(sorted(ctx.adapters))}"
        )
    gate_reason = ctx.gate.refusal(req.agent) if ctx.gate is not None else None
    if gate_reason:
        return None, _policy(f"adapter {req.agent} is {gate_reason}")
    if req.model is not None:
        why = model_refusal(req.model)
        if why:
            return None, _policy(why)
    return adapter, None


def _place_check(
    req: SpawnRequest, ctx: ValidationContext
) -> tuple[Path | None, Path | None, Decision | None]:
    """The request's cwd must be this repo (or a linked worktree of it) and its
    workdir inside the workdir roots: the only checks that touch the file system
    and `git`, so they run last."""
    repo = ctx.repo_resolved()
    cwd = _resolve(req.cwd, repo)
    wrong_repo = (
        f"this dashboard only spawns panes in its own repo ({repo}); "
        f"the request named {show(req.cwd)}"
    )
    if cwd is None or not cwd.is_dir():
        return None, None, _channel(wrong_repo)
    if cwd != repo:
        common = ctx.common_dir()
        if common is None or ctx.git_dir_of(cwd) != common:
            return None, None, _channel(wrong_repo)
    if req.workdir is None:
        return cwd, None, None
    workdir = _resolve(req.workdir, cwd)
    roots = ctx.roots()
    shown = show(str(workdir) if workdir is not None else req.workdir)
    if workdir is None or not any(is_within(workdir, r) for r in roots):
        return (
            None,
            None,
            _policy(
                f"workdir {shown} is outside the dashboard's workdir roots "
                f"({', '.join(str(r) for r in roots)}); run `zirv ctx config add "
                f"dash.workdir_roots '{shown}'` (asks the operator for approval)"
            ),
        )
    if not workdir.is_dir():
        return None, None, _policy(f"workdir {shown} does not exist or is not a directory")
    if ctx.git_dir_of(workdir) is None:
        return None, None, _policy(f"workdir {shown} is not inside a git repository")
    return cwd, workdir, None
