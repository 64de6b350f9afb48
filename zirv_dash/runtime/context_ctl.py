"""Context health for every pane: the transcripts followed, scored, shown, and acted on.

Each live pane of a harness that writes a transcript (claude, codex, gemini,
qwen) gets a `SessionWatch`; a native pane reads its own journal. Readings
update as the files grow: the engine's one file watcher has a route per
transcript directory, and a pane's state change looks again (a transcript
appears with the first prompt, before its directory may exist). A long file
catches up one bounded step at a time, a short timer apart, so the loop is
never held. What the readings say reaches the chrome (`Dashboard.health`), a
sibling of the pane's registry record (`zirv ctx status`), and the
interventions (`runtime.context_acts`).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from pathlib import Path

from zirv_dash import paths
from zirv_dash.config.context_policy import prices, score_config
from zirv_dash.context.health import PaneHealth
from zirv_dash.context.native import NativeReader
from zirv_dash.context.score import score_turns
from zirv_dash.context.session_watch import SessionWatch, readable
from zirv_dash.handover import swap
from zirv_dash.panes import registry
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime.context_acts import ContextActs
from zirv_dash.runtime.host import FallbackHost
from zirv_dash.runtime.usage_acts import UsageActs
from zirv_dash.runtime.watch import Route

log = logging.getLogger("zirv.context")

STEP_GAP = 0.01
"""Seconds between two catch-up steps of a long transcript: the loop's other
work (keys, frames) runs in between."""
PUBLISH_GAP = 2.0
"""The status sibling is rewritten at most this often per pane."""
CONTEXT_SUFFIX = ".context"


class ContextController:
    def __init__(self, engine: FallbackHost) -> None:
        self._engine = engine
        settings = engine.dash.settings
        self._config = score_config(settings)
        self._prices = prices(settings)
        self.watches: dict[str, SessionWatch] = {}
        self.native: dict[str, NativeReader] = {}
        self._keys: dict[str, tuple[str, str, tuple[str, ...]]] = {}
        """The (harness, session id, argv) each watch was made for: a handover changes them."""
        self._roots: dict[Path, str] = {}
        self._before: dict[str, Path] = {}
        """The file a pane's predecessor wrote: never its successor's (a handover)."""
        self._published: dict[str, float] = {}
        self.acts = ContextActs(engine)
        self.limits = UsageActs(engine)

    @property
    def health(self) -> dict[str, PaneHealth]:
        return self._engine.dash.health

    # -- panes come and go -----------------------------------------------------------------

    def start(self) -> None:
        self.sync()

    def sync(self) -> None:
        """Follow every live pane (new ones, a handover's new harness); drop the rest."""
        dash = self._engine.dash
        live = {p.short: p for p in dash.live_panes}
        for short in [s for s in self._keys if s not in live]:
            self._drop(short)
        for short, pane in live.items():
            key = (pane.agent, pane.session_id, tuple(pane.spec.argv))
            if self._keys.get(short) == key:
                continue
            successor = short in self._keys  # a handover: its child started just now
            self._drop(short)
            self._keys[short] = key
            self._follow(pane, time.time() if successor else pane.created_at)
        self._route_roots()

    def _follow(self, pane: Pane, started_at: float) -> None:
        if pane.kind == "native":
            session = getattr(pane, "session", None)
            journal = getattr(session, "journal", None)
            if journal is not None:
                self.native[pane.short] = NativeReader(journal, self._prices)
                self.health[pane.short] = PaneHealth("native")
            return
        if not readable(pane.agent):
            self.health[pane.short] = PaneHealth(pane.agent, status="unsupported")
            return
        watch = SessionWatch(
            pane.agent,
            pane.session_id,
            Path(pane.cwd or self._engine.dash.repo),
            started_at,
            self._config,
            self._prices,
            pinned=swap.resume_id(pane) is not None,
        )
        self.watches[pane.short] = watch
        self.health[pane.short] = watch.health()
        self._look(pane.short)

    def _drop(self, short: str) -> None:
        self._keys.pop(short, None)
        old = self.watches.pop(short, None)
        if old is not None and old.path is not None:
            self._before[short] = old.path
        self.native.pop(short, None)
        self._engine.cancel_timer(f"context:{short}")
        self.acts.forget(short)
        self.limits.forget(short)
        # An ended row keeps its last reading (the inspector still shows it).

    def close(self) -> None:
        for root, name in self._roots.items():
            self._engine.watcher.remove(name)
            log.debug("context: stopped watching %s", root)
        self._roots.clear()

    # -- the engine's signals ----------------------------------------------------------------

    def state_changed(self, pane: Pane) -> None:
        """A turn began or ended: look at its transcript, and at its screen."""
        self.sync()
        if pane.short in self.native:
            self._read_native(pane.short)
        elif pane.short in self.watches:
            self._look(pane.short)
        self.acts.state_changed(pane, self.health.get(pane.short))
        self.limits.state_changed(pane)

    def _changed_under(self, root: Path) -> None:
        for short, watch in list(self.watches.items()):
            if watch.root() == root:
                self._look(short)

    # -- reading ---------------------------------------------------------------------------

    def _look(self, short: str) -> None:
        watch = self.watches.get(short)
        if watch is None:
            return
        if watch.path is None:
            taken = {w.path for w in self.watches.values() if w.path is not None}
            if short in self._before:
                taken.add(self._before[short])
            if not watch.find(frozenset(taken)):
                self._route_roots()
                return
            log.info("context: pane %s reads %s", short, watch.path)
            self._route_roots()
        self._step(short)

    def _step(self, short: str) -> None:
        watch = self.watches.get(short)
        if watch is None:
            return
        if watch.step():
            self._publish(short, watch.health())
        if watch.behind():
            self._engine.call_later(f"context:{short}", STEP_GAP, lambda: self._step(short))

    def _read_native(self, short: str) -> None:
        reader = self.native.get(short)
        if reader is None:
            return
        try:
            reading = reader.read()
        except OSError as exc:
            self._publish(short, PaneHealth("native", status=f"cannot read: {exc}"))
            return
        score = score_turns(reader.turns(), reading.tokens, reading.window, self._config)
        self._publish(short, PaneHealth("native", reading, score, "ok"))

    def _publish(self, short: str, health: PaneHealth) -> None:
        self.health[short] = health
        self._engine.changed()
        pane = self._engine.dash.pane_by_short(short)
        if pane is not None and not health.behind:
            self.acts.verdict(pane, health)
        now = time.monotonic()
        if now - self._published.get(short, 0.0) >= PUBLISH_GAP or not health.behind:
            self._published[short] = now
            self._write_sibling(short, health)

    def _write_sibling(self, short: str, health: PaneHealth) -> None:
        """`<sessions>/<short>.context`: what `zirv ctx status` shows of the pane."""
        dash = self._engine.dash
        if not dash.manage_state:
            return
        body = {
            "status": health.status,
            "harness": health.harness,
            "context": health.to_json(),
            "fallback": self.limits.story.get(short, []),
        }
        try:
            paths.atomic_write(registry.sibling_path(short, CONTEXT_SUFFIX), json.dumps(body))
        except (OSError, ValueError) as exc:
            log.warning("context: %s", exc)

    # -- watching the transcript directories --------------------------------------------------

    def _route_roots(self) -> None:
        wanted: dict[Path, list[SessionWatch]] = {}
        for watch in self.watches.values():
            root = watch.root()
            if root is not None and root.is_dir():
                wanted.setdefault(root, []).append(watch)
        for root in [r for r in self._roots if r not in wanted]:
            self._engine.watcher.remove(self._roots.pop(root))
        for root in wanted:
            if root in self._roots:
                continue
            name = f"context:{root}"
            self._roots[root] = name
            self._engine.watcher.add(Route(name, root, _transcript_like, self._handler(root)))

    def _handler(self, root: Path) -> Callable[[], None]:
        return lambda: self._changed_under(root)


def _transcript_like(path: str) -> bool:
    return path.endswith((".jsonl", ".json"))
