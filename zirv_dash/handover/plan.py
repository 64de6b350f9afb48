"""`plan_swap`: the successor's argv and env for a handover.

Same harness that can resume → resume the conversation (no packet). Otherwise the
packet goes through the target adapter's system-prompt channel, else as the first
prompt — always as one argv element, never through a shell; a `shell` target never
gets the packet on argv at all.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from zirv_dash import paths
from zirv_dash.config.layers import AdapterGate, ConfigError, load_adapter_gate
from zirv_dash.handover.files import HandoverRefused
from zirv_dash.handover.packet import clean
from zirv_dash.harnesses import adapters
from zirv_dash.harnesses.adapters import Adapter, SystemPromptChannel

QUIT_GRACE_SECS = 5.0
SwapMode = Literal["resume", "system_prompt", "first_prompt"]

KICKOFF_PROMPT = (
    "You are taking over a task from another coding-agent session. Your handover notes "
    "are in your system instructions. Say in two lines where the task stands, then "
    "continue it."
)
"""First prompt for a successor that got the packet through its system-prompt channel."""

PACKET_ENV = "ZIRV_HANDOVER_PACKET"
"""Successor env: the packet file path (ZIRV_CTX_HANDOVER_* names are model overrides)."""


@dataclass(frozen=True)
class SwapPlan:
    agent: str
    model: str | None
    """Model passed with the adapter's model flag (None: the harness's own default)."""
    mode: SwapMode
    argv: list[str]
    env_extra: dict[str, str] = field(default_factory=dict)
    """Merge into the successor's env (session_env.child_env(extra=...))."""
    packet_file: Path | None = None
    """Private file holding the packet; delete it once the successor has exited."""
    first_line: str | None = None
    """For a shell target: a comment line to show (or type) pointing at the packet."""
    old_quit_sequence: bytes = b""
    """Type this into the old PTY, wait QUIT_GRACE_SECS, then kill."""


def check_harness(agent: str, gate: AdapterGate | Callable[[str], bool] | None = None) -> Adapter:
    """The target adapter, or HandoverRefused naming why it cannot be used.

    `gate` None loads `.zirv/.settings.toml` gates for the current repository.
    """
    adapter = adapters.get(agent)
    if adapter is None:
        raise HandoverRefused(
            f"unknown harness {agent!r}; known harnesses: {', '.join(adapters.names())}"
        )
    if gate is None:
        try:
            gate = load_adapter_gate(names=adapters.names())
        except ConfigError as exc:
            raise HandoverRefused(f"cannot read the adapter gate: {exc}") from exc
    if isinstance(gate, AdapterGate):
        reason = gate.refusal(agent)
        if reason:
            raise HandoverRefused(f"harness {agent} is disabled ({reason})")
    elif not gate(agent):
        var = f"ZIRV_AGENT_{agent.upper().replace('-', '_')}_ENABLED"
        raise HandoverRefused(
            f"harness {agent} is disabled (.zirv/.settings.toml [agents.{agent}] or {var})"
        )
    if not adapter.installed():
        raise HandoverRefused(
            f"harness {agent} is not installed (`{adapter.binary}` not found on PATH)"
        )
    return adapter


def swap_mode(from_agent: str, to_agent: str, session_id: str | None) -> SwapMode:
    """How the successor gets the thread (see module docstring)."""
    target = adapters.get(to_agent)
    if target is None:
        raise HandoverRefused(f"unknown harness {to_agent!r}")
    if from_agent == to_agent and target.resume_flag and session_id:
        return "resume"
    if target.system_prompt is not SystemPromptChannel.NONE and to_agent != "shell":
        return "system_prompt"
    return "first_prompt"


def _normal_model(model: str | None) -> str | None:
    if model is None:
        return None
    model = model.strip()
    return None if model in ("", "–", "-") else model


def plan_swap(
    from_agent: str,
    from_model: str | None,
    session_id: str | None,
    to_agent: str,
    to_model: str | None,
    packet: str,
    packet_dir: Path,
    *,
    gate: AdapterGate | Callable[[str], bool] | None = None,
    extra: Sequence[str] = (),
    kickoff: str = KICKOFF_PROMPT,
) -> SwapPlan:
    """The successor's launch. Writes the packet file when one is needed; raises
    HandoverRefused (nothing written) when the swap may not happen.

    `session_id` is the harness conversation id to resume (for claude the pane's
    session uuid, which zirv pins with --session-id). `from_model` is informational.
    """
    if kickoff and kickoff.lstrip().startswith("-"):
        # The kickoff is the successor's first argv prompt: never an option.
        raise HandoverRefused("the kickoff prompt must not begin with '-' (argv injection guard)")
    old = adapters.get(from_agent)
    if old is None:
        raise HandoverRefused(f"could not resolve the outgoing agent {from_agent!r}")
    target = check_harness(to_agent, gate)
    model = _checked_model(target, to_agent, to_model)
    mode = swap_mode(from_agent, to_agent, session_id)
    quit_seq = old.quit_sequence

    if mode == "resume" and session_id:
        argv = [
            *target.base_argv(),
            *target.resume_args(session_id),
            *target.model_args(model),
            *target.interactive_args,
            *extra,
        ]
        return SwapPlan(to_agent, model, mode, argv, old_quit_sequence=quit_seq)

    packet = clean(packet)
    if to_agent == "shell":
        return _shell_plan(target, from_agent, packet, packet_dir, extra, quit_seq)
    if mode == "system_prompt":
        return _system_prompt_plan(target, model, packet, packet_dir, extra, kickoff, quit_seq)
    if packet.lstrip().startswith("-"):
        # The packet becomes one argv element; a leading heading keeps it data.
        packet = "# Handover notes (zirv)\n\n" + packet
    argv = target.interactive_argv(packet, model, extra=list(extra))
    return SwapPlan(to_agent, model, "first_prompt", argv, old_quit_sequence=quit_seq)


def _checked_model(target: Adapter, to_agent: str, to_model: str | None) -> str | None:
    """The model to pass the successor, or HandoverRefused for one it cannot take."""
    model = _normal_model(to_model)
    if model is not None:
        if not target.model_flag:
            raise HandoverRefused(
                f"{to_agent} takes no model choice; pick its `standard` row (model –)"
            )
        if model.startswith("-") or any(ch.isspace() or ord(ch) < 32 for ch in model):
            raise HandoverRefused(f"{model!r} is not a model id")
    return model


def _shell_plan(
    target: Adapter,
    from_agent: str,
    packet: str,
    packet_dir: Path,
    extra: Sequence[str],
    quit_seq: bytes,
) -> SwapPlan:
    """A shell would execute whatever it is given: the packet stays in a file."""
    packet_file = _write_packet(packet_dir, packet)
    note = clean(f"# zirv handover: notes from {from_agent} saved to {packet_file}")
    return SwapPlan(
        target.name,
        None,
        "first_prompt",
        [*target.base_argv(), *extra],
        {PACKET_ENV: str(packet_file)},
        packet_file,
        note.replace("\n", " "),
        quit_seq,
    )


def _system_prompt_plan(
    target: Adapter,
    model: str | None,
    packet: str,
    packet_dir: Path,
    extra: Sequence[str],
    kickoff: str,
    quit_seq: bytes,
) -> SwapPlan:
    """The packet through the target's system-prompt channel (a file for a
    file flag), the kickoff as its first prompt."""
    sp_file: Path | None = None
    if target.system_prompt is SystemPromptChannel.FILE_FLAG:
        sp_file = _write_packet(packet_dir, packet)
    sp_args = target.system_prompt_args(packet, str(sp_file) if sp_file else None)
    if sp_args is None:  # pragma: no cover - swap_mode guarantees a channel
        raise HandoverRefused(f"{target.name} has no system-prompt channel")
    argv = target.interactive_argv(kickoff or None, model, extra=[*sp_args, *extra])
    env = {PACKET_ENV: str(sp_file)} if sp_file else {}
    return SwapPlan(target.name, model, "system_prompt", argv, env, sp_file, None, quit_seq)


def default_packet_dir() -> Path:
    """`<state>/handover/`: where the dashboard keeps packet files (0700)."""
    return paths.ensure_private_dir(paths.state_dir() / "handover")


def _write_packet(packet_dir: Path, packet: str) -> Path:
    paths.ensure_private_dir(packet_dir)
    path = packet_dir / f"handover-{int(time.time())}-{uuid.uuid4().hex[:8]}.md"
    paths.atomic_write(path, packet)
    return path
