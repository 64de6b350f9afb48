"""Swapping a live pane's harness or model in place: the dashboard's pipeline.

`zirv_dash.handover` has the pieces (packet, plan, request/ack files); this module
runs them against a `Pane`, in steps the owner schedules so nothing long blocks
its event loop (inventory §9.2):

1. `capture(pane)` — on the owner's thread: copy what the packet needs (task,
   cwd, screen and the newest scrollback lines). Cheap.
2. `prepare(snapshot, …)` — may block (git, transcript files): run it in a worker
   thread. Builds the packet and `plan_swap`s the successor; raises
   `HandoverRefused` with nothing started.
3. `start_successor(plan, …)` — on the owner's thread: a NEW PtySession and a NEW
   TerminalModel at the pane's size. The old child is not touched yet, so a
   failure here (`SwapFailed`) leaves the pane exactly as it was.
4. `Pane.install_successor` (via `Dashboard.install_successor`) — swap the PTY,
   terminal model, harness and model in the pane; short id, session id, position
   and registry address stay.
5. `retire(old_pty, quit_sequence)` — may block up to `QUIT_GRACE_SECS`: run it
   in a worker thread. The old adapter's quit sequence, a grace wait (draining its
   output so it can exit), then the kill ladder.

`SwapBook` keeps the per-dashboard bookkeeping: swaps deferred to the pane's next
idle boundary, swaps in flight, and packet files to delete once their successor
is gone.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from zirv_dash import spawn
from zirv_dash.config.layers import AdapterGate
from zirv_dash.handover import packet as handover_packet
from zirv_dash.handover import plan as handover_plan
from zirv_dash.handover import transcript as handover_transcript
from zirv_dash.handover.files import HandoverAck, HandoverError, HandoverRefused
from zirv_dash.handover.plan import SwapPlan
from zirv_dash.harnesses import adapters, catalogue
from zirv_dash.panes.ladder import DEFERRED_ENTER_DELAY
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.ptysession import PtySession, SpawnError
from zirv_dash.terminal import TerminalModel

SCROLLBACK_LINES = 200
"""How many of the newest scrollback lines go into the packet (with the screen)."""
TRANSCRIPT_ITEMS = 20
TRANSCRIPT_AGENTS = ("claude", "codex")
QUIT_GRACE = handover_plan.QUIT_GRACE_SECS
"""How long the old child gets to act on its quit sequence before it is killed."""
PENDING_NOTE = "⤓ switching when idle"
RUNNING_NOTE = "⇄ switching…"


class SwapFailed(HandoverError):
    """A step after planning failed; the original pane keeps running."""


@dataclass(frozen=True)
class Snapshot:
    """What the packet needs from a pane, copied on the owner's thread."""

    short: str
    session_id: str
    resume_id: str | None
    agent: str
    model: str | None
    task: str | None
    cwd: str
    screen_lines: list[str]
    scrollback_lines: list[str]


def resume_id(pane: Pane) -> str | None:
    """The conversation id the pane's harness is known to use, or None.

    Only when the pane was launched with our session id pinned (claude
    `--session-id <id>`) or resumed by it do we know which conversation to resume;
    otherwise a same-harness swap gets the packet instead of a guessed id.
    """
    adapter = pane.adapter
    argv = pane.spec.argv
    if not adapter.resume_flag:
        return None
    for flag in (adapter.session_pin_flag, adapter.resume_flag):
        if not flag:
            continue
        for i, arg in enumerate(argv[:-1]):
            if arg == flag and argv[i + 1] == pane.session_id:
                return pane.session_id
    return None


def capture(pane: Pane, scrollback_lines: int = SCROLLBACK_LINES) -> Snapshot:
    model = pane.model_view
    size = model.history_size
    first = max(0, size - max(0, scrollback_lines))
    history = [model.history_text(i) for i in range(first, size)]
    return Snapshot(
        short=pane.short,
        session_id=pane.session_id,
        resume_id=resume_id(pane),
        agent=pane.agent,
        model=pane.model,
        task=pane.first_prompt,
        cwd=pane.cwd,
        screen_lines=list(model.lines()),
        scrollback_lines=history,
    )


def is_current(pane: Pane, agent: str, model: str | None) -> bool:
    """The pane already runs this harness and model (nothing to swap)."""
    if pane.agent != agent:
        return False
    if not model or model == catalogue.NO_MODEL:
        return not pane.model
    return catalogue.same_model(pane.model, model)


def describe(agent: str, model: str | None) -> str:
    return f"{agent}/{model or catalogue.NO_MODEL}"


def precheck(
    pane: Pane, agent: str, model: str | None, gate: AdapterGate, *, fresh: bool = False
) -> None:
    """Refuse early (HandoverRefused) what `plan_swap` would refuse later, so a
    deferred swap is refused when asked for, not at some later idle boundary."""
    if pane.pty is None or not pane.alive:
        raise HandoverRefused(f"pane {pane.short} has no running child to hand over")
    if adapters.get(pane.agent) is None:
        raise HandoverRefused(f"could not resolve the outgoing agent {pane.agent!r}")
    if is_current(pane, agent, model) and not fresh:
        raise HandoverRefused(f"pane {pane.short} already runs {describe(agent, model)}")
    target = handover_plan.check_harness(agent, gate)
    if not model or model == catalogue.NO_MODEL:
        return
    if not target.model_flag:
        raise HandoverRefused(f"{agent} takes no model choice; pick its `standard` row (model –)")
    refusal = spawn.model_refusal(model)
    if refusal is not None:
        raise HandoverRefused(refusal)


def prepare(
    snapshot: Snapshot,
    to_agent: str,
    to_model: str | None,
    gate: AdapterGate | Callable[[str], bool],
    packet_dir: Path | None = None,
    transcript_home: Path | None = None,
    *,
    fresh: bool = False,
) -> SwapPlan:
    """Packet + plan. Blocks on git and transcript files: call it off the UI loop.
    `fresh`: never resume the old conversation (the packet carries the thread)."""
    git = handover_packet.git_status_summary(snapshot.cwd)
    tail: list[str] = []
    if snapshot.agent in TRANSCRIPT_AGENTS:
        tail = handover_transcript.transcript_tail(
            snapshot.agent, snapshot.session_id, snapshot.cwd, TRANSCRIPT_ITEMS, transcript_home
        )
    packet = handover_packet.build_packet(
        snapshot.task,
        snapshot.cwd,
        snapshot.screen_lines,
        snapshot.scrollback_lines,
        tail,
        git,
        from_agent=snapshot.agent,
        from_model=snapshot.model,
    )
    model = None if to_model == catalogue.NO_MODEL else to_model
    return handover_plan.plan_swap(
        snapshot.agent,
        snapshot.model,
        None if fresh else snapshot.resume_id,
        to_agent,
        model,
        packet,
        packet_dir or handover_plan.default_packet_dir(),
        gate=gate,
    )


@dataclass
class Successor:
    pty: PtySession
    model_view: TerminalModel
    plan: SwapPlan


def start_successor(
    plan: SwapPlan,
    cwd: str,
    env: dict[str, str],
    columns: int,
    rows: int,
    scrollback_bytes: int,
) -> Successor:
    """Start the successor on a new PTY with a new terminal model (SwapFailed if it
    cannot start). A shell target's note about the packet file is shown on its
    screen by zirv, never typed into the shell."""
    model_view = TerminalModel(columns, rows, scrollback_bytes=scrollback_bytes)
    if plan.first_line:
        model_view.feed(f"\x1b[2m{plan.first_line}\x1b[0m\r\n".encode())
    try:
        pty = PtySession(plan.argv, cwd=cwd, env=env, columns=columns, rows=rows)
    except SpawnError as exc:
        raise SwapFailed(f"the successor {plan.agent} could not start: {exc}") from exc
    return Successor(pty, model_view, plan)


def retire(
    pty: PtySession,
    quit_sequence: bytes,
    grace: float | None = None,
    defer_submit: bool = False,
) -> int | None:
    """Quit the old child: its quit sequence, up to `grace` (default QUIT_GRACE)
    seconds (its output is drained meanwhile so it can exit), then SIGTERM/SIGKILL.
    `defer_submit`: send the final Enter as a separate write (codex treats a line
    and its Enter in one read as a paste). Blocks: run it in a worker thread.
    Returns the exit code."""
    if pty.poll() is None and quit_sequence:
        if defer_submit and quit_sequence.endswith(b"\r") and len(quit_sequence) > 1:
            pty.write(quit_sequence[:-1])
            time.sleep(DEFERRED_ENTER_DELAY)
            quit_sequence = b"\r"
        pty.write(quit_sequence)
        deadline = time.monotonic() + (QUIT_GRACE if grace is None else grace)
        while time.monotonic() < deadline:
            pty.read()
            pty.flush()
            if pty.poll() is not None:
                break
            time.sleep(0.05)
    return pty.force_stop()


PACKET_MAX_AGE_SECS = 7 * 86400


def sweep_old_packets(
    packet_dir: Path | None = None, max_age: float = PACKET_MAX_AGE_SECS, now: float | None = None
) -> int:
    """Delete packet files older than `max_age` (left by dashboards that ended
    without cleaning up); other dashboards' recent packets are kept. Returns the
    number removed; never raises."""
    now = time.time() if now is None else now
    removed = 0
    try:
        directory = packet_dir or handover_plan.default_packet_dir()
        entries = list(directory.glob("handover-*.md"))
    except OSError:
        return 0
    for path in entries:
        with contextlib.suppress(OSError):
            if now - path.stat().st_mtime > max_age:
                path.unlink()
                removed += 1
    return removed


def discard_packet(plan: SwapPlan | None) -> None:
    if plan is not None and plan.packet_file is not None:
        with contextlib.suppress(OSError):
            plan.packet_file.unlink()


# --- bookkeeping ----------------------------------------------------------------------


@dataclass
class SwapRequest:
    short: str
    agent: str
    model: str | None
    force: bool = False
    from_cli: bool = False
    """Answer with `<short>.handover-ack` (not yet answered)."""
    requested_at: float = field(default_factory=time.time)
    from_agent: str | None = None
    from_model: str | None = None
    fresh: bool = False
    """A new conversation on the same harness and model, carried by the handoff
    packet (a rot restart): never a resume of the old one."""

    def ack(
        self, ok: bool, reason: str = "", stored: bool = False, failed: bool = False
    ) -> HandoverAck:
        return HandoverAck(
            ok=ok,
            reason=reason,
            from_agent=self.from_agent,
            from_model=self.from_model,
            to_agent=self.agent,
            to_model=None if self.model == catalogue.NO_MODEL else self.model,
            stored=stored,
            failed=failed,
        )


class SwapBook:
    """Deferred and running swaps, and packet files, per pane short id."""

    def __init__(self) -> None:
        self.pending: dict[str, SwapRequest] = {}
        self.running: dict[str, SwapRequest] = {}
        self.packets: dict[str, list[Path]] = {}

    def note(self, short: str) -> str:
        """What the pane header says about a swap, or ""."""
        if short in self.running:
            return RUNNING_NOTE
        if short in self.pending:
            return PENDING_NOTE
        return ""

    def busy(self, short: str) -> bool:
        return short in self.running

    def defer(self, request: SwapRequest) -> SwapRequest | None:
        """Queue a swap for the pane's next idle boundary; returns the one it replaced."""
        old = self.pending.pop(request.short, None)
        self.pending[request.short] = request
        return old

    def due(self, panes: list[Pane], now: float | None = None) -> list[SwapRequest]:
        """Deferred swaps whose pane is idle now (removed from pending)."""
        out: list[SwapRequest] = []
        by_short = {p.short: p for p in panes}
        for short in list(self.pending):
            pane = by_short.get(short)
            if short in self.running:
                continue
            if pane is None or not pane.alive or pane.is_idle(now):
                out.append(self.pending.pop(short))
        return out

    def keep_packet(self, short: str, plan: SwapPlan) -> None:
        if plan.packet_file is not None:
            self.packets.setdefault(short, []).append(plan.packet_file)

    def sweep_packets(self, live_shorts: set[str]) -> None:
        """Delete packet files of panes that ended; a live pane keeps only its
        newest (its successor may still read it, e.g. a resumed system prompt)."""
        for short, files in list(self.packets.items()):
            stale = files if short not in live_shorts else files[:-1]
            for path in stale:
                with contextlib.suppress(OSError):
                    path.unlink()
            if short not in live_shorts:
                del self.packets[short]
            else:
                self.packets[short] = files[-1:]
