"""Mail and nudge delivery into panes, and the adapter gate, driven by events.

A watcher route on the repo mailbox and the session registry (where `.nudge`
markers live) runs a sweep on every change. Between changes nothing is read
from disk: the tick only retries panes that had something waiting and just
became injectable (no I/O), plus one timer armed for the next delivery deadline
(the delayed Enter, a confirmation window, the moment a pane may go idle). Only
if watching fails does the tick sweep.

File work stays off the loop: before a sweep, a thread reads every message in
the mailbox once (bounded reads, cached by inode/size/mtime in `mail`), so the
sweep itself, which types into panes and must run on the loop, finds each
message already parsed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path

from zirv_dash import paths
from zirv_dash.config import layers as config
from zirv_dash.delegation import report_notes
from zirv_dash.harnesses import adapters
from zirv_dash.mail import mailbox as mail
from zirv_dash.mail.delivery import NUDGE_QUEUED, DeliveryEngine, NudgeResult
from zirv_dash.panes import registry
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime.host import WatchingHost
from zirv_dash.runtime.watch import Route

log = logging.getLogger("zirv.sessions")

DRAFT_BADGE = "draft"
"""After a badge: its mail has waited over a minute for what the operator typed."""
WATCH_STARTUP_SECS = 2.0
"""Sweep on the tick for this long after the watcher starts (it may miss the
first changes while it sets up)."""
MIN_TIMER = 0.01
GATE_FILE = ".settings.toml"


def prefetch_mailbox(slug: str) -> int:
    """Read and cache every message of mailbox `slug` (in a worker thread); how
    many were readable. Problems are left for the sweep to report."""
    try:
        return len(mail.list_messages(slug, problems=[]))
    except (OSError, mail.MailError):
        return 0


def gate_dirs(repo: Path) -> list[Path]:
    """The directories holding the adapter gate files that exist (a directory
    that does not exist cannot be watched)."""
    return [d for d in (repo / ".zirv", paths.operator_dir()) if d.is_dir()]


def read_gate(repo: Path) -> config.AdapterGate:
    """The gate files read afresh (in a worker thread: bounded reads); raises
    ConfigError for a broken file."""
    return config.load_adapter_gate(repo, adapters.names())


def apply_gate(gate: config.AdapterGate, fresh: config.AdapterGate) -> str | None:
    """Update `gate` in place, so every holder (spawn validation, the spawn
    dialog, restore) sees the change; a notice when something changed. New
    refusals are added before old ones go, so a validation reading the gate from
    another thread never sees a name that stays disabled as enabled."""
    if fresh.disabled == gate.disabled:
        return None
    now_off = sorted(set(fresh.disabled) - set(gate.disabled))
    now_on = sorted(set(gate.disabled) - set(fresh.disabled))
    gate.disabled.update(fresh.disabled)
    for name in now_on:
        gate.disabled.pop(name, None)
    parts = [f"{', '.join(now_off)} disabled"] if now_off else []
    parts += [f"{', '.join(now_on)} enabled"] if now_on else []
    return "adapter gate reloaded: " + "; ".join(parts)


def mail_relevant(path: str) -> bool:
    """Changes that can mean new mail, a nudge marker or a pane (de)registered."""
    name = os.path.basename(path)
    if name.startswith(".") or not name.endswith((".md", ".json", ".nudge")):
        return False
    parent = os.path.basename(os.path.dirname(path))
    return parent not in ("read", "full")


def gate_relevant(path: str) -> bool:
    return os.path.basename(path) == GATE_FILE


class MailController:
    def __init__(self, engine: WatchingHost) -> None:
        self._engine = engine
        self.delivery = DeliveryEngine(engine.dash)
        if engine.dash.manage_state:  # delegation records are kept only then
            self.delivery.reports = report_notes.finder(engine.dash.repo)
        self._watch_started = 0.0
        self.known_panes: frozenset[str] = frozenset()
        self._sweeping = False
        self._again = False
        self._held_shown: set[str] = set()

    # -- wiring ----------------------------------------------------------------------

    def start(self) -> None:
        engine = self._engine
        dash = engine.dash
        self._watch_started = time.monotonic()
        try:
            mailbox = mail.mailbox_dir(dash.slug)
            sessions = registry.sessions_dir()
        except (OSError, mail.MailError) as exc:
            dash.notify(f"mail: file watching unavailable ({exc}); checking every second")
            return
        for name, root in (("mail", mailbox), ("sessions", sessions)):
            engine.watcher.add(Route(name, root, mail_relevant, self.sweep_soon, safety=True))
        for index, directory in enumerate(gate_dirs(dash.repo)):
            engine.watcher.add(Route(f"gate-{index}", directory, gate_relevant, self.reload_gate))

    def tick(self) -> None:
        """Once a second (a fallback; event-driven work should not wait for it)."""
        engine = self._engine
        held = {s for s in self.delivery.draft_held if self.delivery.held_by_draft(s)}
        if held != self._held_shown:
            self._held_shown = held
            engine.changed()  # a row's badge now says its mail waits for a draft
        shorts = frozenset(p.short for p in engine.dash.live_panes)
        starting = time.monotonic() - self._watch_started < WATCH_STARTUP_SECS
        if not engine.watcher.watching or starting or shorts != self.known_panes:
            self.sweep_soon()
            return
        self.retry()

    def state_changed(self) -> None:
        """A pane changed state: something waiting may be injectable now."""
        if self._engine.quitting:
            return  # panes ending at quit must not drop the nudges waiting on disk
        if self.delivery.inflight or self.delivery.pending_panes():
            self.retry()

    def badge(self, pane: Pane) -> str:
        """The sidebar badge for a pane (e.g. unread mail `✉2`), or "". Mail that
        has waited over a minute for what the operator typed there says so
        (`✉2 draft`): it is not lost, the pane's line is theirs until sent."""
        count = self.delivery.unread.get(pane.short, 0)
        if not count:
            return ""
        held = self.delivery.held_by_draft(pane.short)
        return f"✉{count} {DRAFT_BADGE}" if held else f"✉{count}"

    # -- sweeping --------------------------------------------------------------------

    def sweep_soon(self) -> None:
        """Read the mailbox in a thread, then sweep (on the loop) from the cache."""
        engine = self._engine
        if engine.quitting or not engine.started:
            return
        if self._sweeping:
            self._again = True
            return
        self._sweeping = True
        engine.run_task(self._sweep_off_loop(), "mail sweep")

    async def _sweep_off_loop(self) -> None:
        try:
            while True:
                self._again = False
                await asyncio.to_thread(prefetch_mailbox, self._engine.dash.slug)
                self.sweep()
                if not self._again:
                    break
        finally:
            self._sweeping = False

    def sweep(self) -> None:
        engine = self._engine
        if engine.quitting:
            return  # never type into a pane that is being asked to quit
        dash = engine.dash
        self.known_panes = frozenset(p.short for p in dash.live_panes)
        try:
            notices = self.delivery.sweep()
        except Exception as exc:  # noqa: BLE001 - a bad state dir must not take the dashboard down
            log.exception("mail sweep failed")
            dash.error(f"mail sweep: {exc}")
            notices = []
        for notice in notices:
            dash.notify(notice)
        self._arm()
        engine.changed()

    def retry(self) -> None:
        delivery = self.delivery
        if (delivery.inflight or delivery.pending_panes()) and delivery.retry_pending():
            self._engine.changed()
        self._arm()

    def _arm(self) -> None:
        engine = self._engine
        now = time.monotonic()
        deadline = self.delivery.next_deadline(now)
        if deadline is None:
            engine.cancel_timer("delivery")
            return
        engine.call_later("delivery", max(MIN_TIMER, deadline - now), self._due)

    def _due(self) -> None:
        if self._engine.quitting:
            return
        if self.delivery.retry_pending():
            self._engine.changed()
        self._arm()

    # -- commands ------------------------------------------------------------------------

    def nudge(self, pane: Pane, text: str) -> NudgeResult:
        """Type `text` into `pane` now if it is at its prompt, else queue it."""
        result = self.delivery.nudge(pane, text)
        if result is NudgeResult.DELIVERED:
            self._engine.dash.notify(f"nudge typed into pane {pane.short}")
        elif result is NudgeResult.QUEUED:
            self._engine.dash.notify(NUDGE_QUEUED)
        self._arm()
        self._engine.changed()
        return result

    def type_command(self, pane: Pane, text: str, *, kind: str) -> bool:
        """Type `text` (a harness command such as `/compact`) if `pane` is at its
        recognised input prompt and the operator is not typing there; else False
        and nothing is written."""
        delivery = self.delivery
        if not delivery.injectable(pane):
            return False
        if pane.kind != "native" and not pane.at_input_prompt():
            return False  # idle by a hook, but the screen is not its prompt: a dialog
        if not delivery.inject(pane, text, kind=kind):
            return False
        self._arm()
        self._engine.changed()
        return True

    # -- the adapter gate ----------------------------------------------------------------

    def reload_gate(self) -> None:
        self._engine.run_task(self._reload_gate(), "adapter gate")

    async def _reload_gate(self) -> None:
        dash = self._engine.dash
        try:
            fresh = await asyncio.to_thread(read_gate, dash.repo)
        except config.ConfigError as exc:
            dash.error(f"adapter gate not reloaded (the previous one applies): {exc}")
            return
        notice = apply_gate(dash.gate, fresh)
        if notice:
            log.info("%s", notice)
            dash.notify(notice)
