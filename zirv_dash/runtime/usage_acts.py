"""The circuit breaker on a pane's screen, and the fallback handover it leads to.

When a pane's harness stops on its own documented usage-limit notice (each
CLI's exact words: `context.limits`), that vendor's windows count as full until
the notice's reset time: the trip is recorded for `zirv ctx usage` and for
steering new work, announced, and logged. With `[fallback] enabled`, the pane
is then handed to the next enabled, ready harness of `[fallback] order` that
has headroom, through the ordinary swap path (the successor starts before the
old child is asked to quit, with the handoff packet; any failure leaves the
original running), at an equivalent tier: a tier the pane's model has on the
catalogue's ladder, the new harness's default when the pane had no model, and
no fallback at all for a pinned model with no known tier (never a guess).
Only a pane that stopped moves: the screen is read on its state changes, when
the turn is over.
"""

from __future__ import annotations

import time

from zirv_dash.config.context_policy import fallback_policy, pace_config
from zirv_dash.context import fallback, limits, usage
from zirv_dash.harnesses.fallback_facts import equivalent_tier, harness_facts, vendors
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime.context_acts import announce
from zirv_dash.runtime.host import FallbackHost

SCREEN_TAIL = 12
"""Rows read for a notice, up from the last one drawn: every CLI prints it just
above its composer."""


class UsageActs:
    def __init__(self, engine: FallbackHost) -> None:
        self._engine = engine
        self.tripped: dict[str, str] = {}
        """Panes whose screen showed a limit notice (short → the notice), so one
        notice is acted on once."""
        self.story: dict[str, list[str]] = {}
        """What fallback did to each pane, for its inspector and record."""

    def forget(self, short: str) -> None:
        self.tripped.pop(short, None)

    def state_changed(self, pane: Pane) -> None:
        if not pane.alive or pane.kind == "native" or pane.pty is None:
            return
        if self._engine.swaps.on_trial(pane.short):
            # A successor on trial: if it fails, the original comes back with the
            # notice it had, which must not trip (and fall back) a second time.
            return
        lines = pane.model_view.lines()
        while lines and not lines[-1].strip():
            lines = lines[:-1]  # an inline TUI (claude) draws from the top down
        tail = "\n".join(lines[-SCREEN_TAIL:])
        notice = limits.match(pane.agent, tail)
        if notice is None:
            self.tripped.pop(pane.short, None)  # the notice scrolled away: a new one counts
            return
        if self.tripped.get(pane.short) == notice.text:
            return
        self.tripped[pane.short] = notice.text
        self._tripped(pane, notice)

    def _tripped(self, pane: Pane, notice: limits.LimitNotice) -> None:
        dash = self._engine.dash
        problem = limits.record_trip(notice)
        if problem:
            dash.error(problem)
        when = ""
        if notice.resets_at is not None:
            when = f"; resets {time.strftime('%H:%M', time.localtime(notice.resets_at))}"
        self._log("usage-limit", pane, f"pane {pane.short}: {pane.agent} hit its usage limit{when}")
        settings = dash.settings.fallback
        if not settings.enabled:
            return
        self._fall_back(pane)

    def _fall_back(self, pane: Pane) -> None:
        dash = self._engine.dash
        tier, why_not = equivalent_tier(pane.model)
        if why_not is not None:
            self._log("fallback-refused", pane, f"pane {pane.short}: no fallback ({why_not})")
            return
        settings = dash.settings
        policy = fallback_policy(settings)
        windows = usage.read_windows(pace=pace_config(settings))
        target = fallback.next_harness(
            pane.agent, policy, harness_facts(policy.order, dash.gate), windows, vendors()
        )
        if target is None:
            self._log(
                "fallback-refused",
                pane,
                f"pane {pane.short}: no fallback (no other harness of "
                f"{' -> '.join(dash.settings.fallback.order)} is enabled, ready and has headroom)",
            )
            return
        ack = self._engine.swaps.request(pane.short, target, tier, force=True)
        if not ack.ok:
            self._log(
                "fallback-refused", pane, f"pane {pane.short}: fallback failed ({ack.reason})"
            )
            return
        line = f"{pane.agent} → {target} ({tier or 'its default model'}) after its usage limit"
        self.story.setdefault(pane.short, []).append(line)
        self._log("fallback", pane, f"pane {pane.short}: {line}", to=target, tier=tier)

    def _log(self, kind: str, pane: Pane, text: str, **fields: str | None) -> None:
        announce(self._engine.dash, kind, pane, text, fields)
