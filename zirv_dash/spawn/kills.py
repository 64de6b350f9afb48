"""Kill requests: the spawn channel's trust boundary applied to stopping a pane.

A channel proves identity by location only, as for spawns (`policy`): a pane
may stop itself and the panes it spawned, and the shared channel none."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from zirv_dash.spawn.protocol import show


@dataclass
class KillDecision:
    ok: bool
    reason: str | None = None
    send_ack: bool = True
    """False on the shared channel: upstream only error-logs such a refusal."""


def authorize_kill(
    target: str,
    channel_owner: str | None,
    parents: Mapping[str, str | None],
) -> KillDecision:
    """May the pane owning this channel stop `target`?

    Only on a pane's own channel, and only its own pane or one it spawned:
    `parents` maps each live pane's short to its requester's short, and the
    chain is walked up from `target` (cycle-safe).
    """
    if channel_owner is None:
        return KillDecision(
            False, f"kill {show(target, 40)} refused: the shared channel cannot kill", False
        )
    if target not in parents:
        return KillDecision(False, f"kill {show(target, 40)} refused: no such live pane")
    seen: set[str] = set()
    node: str | None = target
    while node is not None and node not in seen:
        if node == channel_owner:
            return KillDecision(True)
        seen.add(node)
        node = parents.get(node)
    return KillDecision(
        False,
        f"kill {show(target, 40)} refused: pane {channel_owner} may only stop itself "
        "or panes it spawned",
    )
