"""What the dashboard does about a verdict: advise, type the compact command, offer a restart.

Upstream's interventions, as far as `[score] auto` allows (off < advise <
compact < restart; operator-only, default advise), each once per episode (a
verdict acted on is not acted on again until it changes), each announced in a
notice and the decision log:

- `advise`: the row shows ⚠ (the chrome reads the verdict); a notice says why.
- `compact`: the harness's own compact command is typed only when the pane is
  at its recognised input prompt and the operator is not typing there (the
  same test mail delivery uses), never into a dialog; until then it waits for
  the pane's next state change.
- `restart`: a same-harness handover is offered, not forced: the notice names
  the keys (`Ctrl+A o`, then the picker's current row) that start a fresh
  session through the swap path with its handoff packet (never a resume of
  the rotten conversation: `SwapRequest.fresh`).

Usage-limit notices on a pane's screen (the circuit breaker) and the fallback
handover they lead to are `runtime.usage_acts`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from zirv_dash.context import decisions
from zirv_dash.context.health import PaneHealth, tokens_text
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime.host import ContextHost

log = logging.getLogger("zirv.context")

LEVELS = ("off", "advise", "compact", "restart")
COMPACT_COMMANDS: dict[str, str] = {
    # claude-code 2.1.197: the `compact` command ("Free up context by summarizing
    # the conversation so far"); codex 0.171.0: `/compact` ("summarize conversation
    # to prevent hitting the context limit"); gemini-cli 0.61.0 and qwen-code
    # 0.15.10: the `compress` slash command.
    "claude": "/compact",
    "codex": "/compact",
    "gemini": "/compress",
    "qwen": "/compress",
}


class ContextActs:
    def __init__(self, engine: ContextHost) -> None:
        self._engine = engine
        self.acted: dict[str, str] = {}
        """The verdict last acted on per pane (once per episode)."""
        self.compact_due: set[str] = set()
        """Panes whose compact command waits for their input prompt."""
        self.offered: set[str] = set()
        """Panes offered a restart (the inspector says so)."""

    @property
    def level(self) -> str:
        auto = str(getattr(self._engine.dash.settings.score, "auto", "advise"))
        return auto if auto in LEVELS else "advise"

    def allows(self, action: str) -> bool:
        return LEVELS.index(self.level) >= LEVELS.index(action)

    def forget(self, short: str) -> None:
        self.acted.pop(short, None)
        self.compact_due.discard(short)
        self.offered.discard(short)

    # -- verdicts --------------------------------------------------------------------------

    def verdict(self, pane: Pane, health: PaneHealth) -> None:
        verdict = health.verdict
        if verdict is None:
            return
        if verdict == "healthy":
            self.forget(pane.short)  # the episode is over (a compaction, a new session)
            return
        if self.acted.get(pane.short) == verdict or not self.allows("advise"):
            return
        self.acted[pane.short] = verdict
        why = _why(health)
        self._announce("advise", pane, f"pane {pane.short}: context {why} — {verdict}")
        if verdict in ("compact", "restart") and self.allows("compact"):
            if pane.agent in COMPACT_COMMANDS or pane.kind == "native":
                self.compact_due.add(pane.short)
                self.try_compact(pane)
        if verdict == "restart" and self.allows("restart"):
            self.offered.add(pane.short)
            self._announce(
                "restart-offer",
                pane,
                f"pane {pane.short}: context rot ({why}) — Ctrl+A o, then ⏎ on its current "
                f"row, starts a fresh {pane.agent} session with a handoff packet",
            )

    def state_changed(self, pane: Pane, health: PaneHealth | None) -> None:
        if pane.short in self.compact_due:
            self.try_compact(pane)

    def try_compact(self, pane: Pane) -> bool:
        """Type the compact command if the pane is at its input prompt now."""
        command = "/compact" if pane.kind == "native" else COMPACT_COMMANDS.get(pane.agent)
        if command is None or not pane.alive:
            self.compact_due.discard(pane.short)
            return False
        if not self._engine.mail.type_command(pane, command, kind="compact"):
            return False  # not at its prompt, or the operator is typing: next state change
        self.compact_due.discard(pane.short)
        self._announce("compact", pane, f"pane {pane.short}: typed {command} at its prompt")
        return True

    def _announce(self, kind: str, pane: Pane, text: str) -> None:
        announce(self._engine.dash, kind, pane, text, {"verdict": self.acted.get(pane.short)})


def announce(
    dash: Dashboard, kind: str, pane: Pane, text: str, fields: Mapping[str, object]
) -> None:
    """A decision about `pane`: a notice, a decision-log line (a failure to write it
    is an error shown in `Ctrl+A e`, never raised), and the log."""
    dash.notify(text)
    problem = decisions.record(
        kind,
        session=pane.session_id,
        short=pane.short,
        harness=pane.agent,
        detail=text,
        fields=fields,
    )
    if problem:
        dash.error(problem)
    log.info("%s", text)


def _why(health: PaneHealth) -> str:
    """`82% full · rot score 70` (what the figures say, `–` where unknown)."""
    reading = health.reading
    parts = []
    if reading is not None and reading.percent is not None:
        parts.append(f"{reading.percent:.0f}% full")
    elif reading is not None:
        parts.append(f"{tokens_text(reading.tokens)} tokens")
    if health.score is not None:
        parts.append(f"rot score {health.score.score}")
    return " · ".join(parts) or "unknown"
