"""Handover successors on trial, judged on the loop (`runtime.successor_trial` says
what proves or fails one): a proven successor's original is retired off the loop,
a failed one's original is put back into its pane."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from zirv_dash.attention.patterns import NEEDS_LOGIN
from zirv_dash.attention.states import PaneState
from zirv_dash.handover import swap
from zirv_dash.handover.files import HandoverAck
from zirv_dash.handover.swap import SwapBook
from zirv_dash.harnesses import adapters, credentials
from zirv_dash.runtime import events as ev
from zirv_dash.runtime import successor_trial as trial
from zirv_dash.runtime.handover_delivery import DELIVERY
from zirv_dash.runtime.host import SwapHost

TRIAL_TIMER = "handover trials"
TRIAL_STEP = 0.25
"""How often a successor on trial is looked at (its exit and turn signal also
judge it at once)."""
LAST_READS = 16


class SwapTrials:
    def __init__(
        self, engine: SwapHost, book: SwapBook, answer: Callable[[str, HandoverAck], None]
    ) -> None:
        self._engine = engine
        self._book = book
        self._answer = answer
        self.trials: dict[str, trial.Trial] = {}
        """Successors installed but not proven yet, by pane short id."""
        self.not_logged_in: set[str] = set()
        """Harnesses whose successor stopped at its login screen (a later
        handover to one warns before it starts)."""

    def begin(self, on_trial: trial.Trial) -> None:
        self.trials[on_trial.pane.short] = on_trial
        self._judge_later()

    def _judge_later(self) -> None:
        if self.trials:
            self._engine.call_later(TRIAL_TIMER, TRIAL_STEP, self.judge)

    def judge(self) -> None:
        """Decide every trial that can be decided now (a timer, state changes, reaps)."""
        if self._engine.quitting:
            return
        for short, on_trial in list(self.trials.items()):
            if not on_trial.current():
                del self.trials[short]  # replaced meanwhile (cannot happen while busy)
                continue
            verdict = trial.verdict(on_trial)
            if verdict == "proven":
                self._proven(on_trial)
            elif verdict is not None:
                self._roll_back(on_trial, verdict)
        self._judge_later()

    def _proven(self, on_trial: trial.Trial) -> None:
        engine = self._engine
        dash = engine.dash
        pane, request, plan = on_trial.pane, on_trial.request, on_trial.plan
        del self.trials[pane.short]
        self.not_logged_in.discard(plan.agent)  # logged in since
        self._book.running.pop(pane.short, None)
        self._book.keep_packet(pane.short, plan)
        old = swap.describe(request.from_agent or "?", request.from_model)
        new = swap.describe(plan.agent, plan.model)
        dash.notify(f"handover: pane {pane.short} {old} → {new}")
        if request.from_cli:
            delivery = DELIVERY.get(plan.mode, plan.mode)
            if plan.packet_file is not None and plan.agent == "shell":
                delivery = f"handoff packet in {plan.packet_file} (never on a shell's argv)"
            self._answer(pane.short, request.ack(True, delivery))
            request.from_cli = False
        engine.changed()
        original = on_trial.original
        if original is not None:
            outgoing = adapters.get(on_trial.outgoing)
            defer = bool(outgoing and outgoing.defer_submit)
            quit_sequence = plan.old_quit_sequence if on_trial.typed_quit_ok else b""
            engine.run_task(
                asyncio.to_thread(swap.retire, original, quit_sequence, None, defer),
                f"retire {pane.short}",
            )

    def _roll_back(self, on_trial: trial.Trial, why: str) -> None:
        """The successor failed: the original goes back into the pane as it was."""
        engine = self._engine
        dash = engine.dash
        pane, request, successor = on_trial.pane, on_trial.request, on_trial.successor
        del self.trials[pane.short]
        for _ in range(LAST_READS):  # its last words, for the notice (bounded: it may flood)
            if successor.eof or not pane.read_available():
                break
        while pane.inbox:
            pane.pump(1 << 20)
        lines = trial.last_lines(pane)
        if why.endswith(trial.LOGIN_WORDS):
            self.not_logged_in.add(on_trial.plan.agent)
        engine.unwatch(pane)
        pane.restore(on_trial.kept)
        engine.watch(pane)
        dash.register(pane, reachable=pane.short in dash.signals)
        self._book.running.pop(pane.short, None)
        swap.discard_packet(on_trial.plan)
        engine.run_task(asyncio.to_thread(successor.force_stop), f"stop successor {pane.short}")
        old = swap.describe(request.from_agent or "?", request.from_model)
        tail = " | ".join(lines) if lines else "(no output)"
        reason = f"{why}; pane {pane.short} kept on {old}. Its last lines: {tail}"
        dash.error(f"handover failed: {reason}")
        dash.notify(f"handover of pane {pane.short} failed: {why}; kept on {old} (^A e)")
        if request.from_cli:
            self._answer(pane.short, request.ack(False, reason, failed=True))
            request.from_cli = False
        engine.emit(ev.PaneReplaced(pane.short))
        engine.changed()

    def before_reap(self) -> None:
        """A successor on trial that exited is judged before the reap could end
        the pane: its original goes back instead (`Engine.reap`)."""
        if any(t.successor.poll() is not None for t in self.trials.values()):
            self.judge()

    def stop_kept(self) -> None:
        """At shutdown: the originals still kept end with their successors' panes.
        Blocks (the kill ladder): run it off the loop."""
        for on_trial in list(self.trials.values()):
            original = on_trial.original
            if original is not None:
                original.force_stop()

    def login_screen_seen(self, agent: str) -> str:
        """Why `agent` looks not logged in, from what this dashboard has seen (a
        successor stopped at its login screen, a pane of it at one now), or ""."""
        if agent in self.not_logged_in:
            return f"{agent} showed its login screen at a handover earlier"
        for pane in self._engine.dash.live_panes:
            if pane.agent == agent and pane.state() is PaneState.NEEDS_YOU:
                if pane.reason() == NEEDS_LOGIN:
                    return f"pane {pane.short} shows {agent}'s login screen"
        return ""

    def login_missing(self, agent: str, cwd: str | None = None, running: str | None = None) -> str:
        """Why `agent` looks not logged in before it starts, or "" (logged in, or
        zirv cannot tell): its credentials clearly absent from its own files and
        the environment its pane gets, or a login screen this dashboard saw.
        `running`: the pane's harness now; it runs, so its files are not judged."""
        if agent == running:
            return self.login_screen_seen(agent)
        adapter = adapters.get(agent)
        env = dict(os.environ, **(adapter.extra_env if adapter else {}))
        return credentials.missing(agent, env, cwd) or self.login_screen_seen(agent)
