"""Mail, nudges, delivery into panes and attention badges (issue 4).

A mixin of DashboardScreen: it may use the screen's `dash`, `views`, `_spawn`,
`_show_focused` and `_update_chrome`. The screen calls the hooks below.

Event-driven: a watchfiles worker watches the repo mailbox and the session
registry (where `.nudge` markers live) and runs a sweep on every change. Between
changes nothing is read from disk: the 1 s tick only retries panes that had
something waiting and just became injectable (no I/O), plus one timer armed for
the next delivery deadline (the delayed Enter, a confirmation window, or the
moment a waiting pane may go idle). Only if watching fails does the tick sweep.

File work stays off the event loop: before a sweep, a thread reads every message
in the mailbox once (bounded reads, cached by inode/size/mtime in `mail`), so the
sweep itself, which must run on the loop because it types into panes, only
lists the directory and finds each message already parsed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.timer import Timer
from textual.worker import get_current_worker

from zirv_dash import adapters, config, mail, paths, registry
from zirv_dash.delivery import NUDGE_QUEUED, DeliveryEngine, NudgeResult
from zirv_dash.pane import Pane

if TYPE_CHECKING:
    from textual.app import App

    from zirv_dash.dashboard import Dashboard

log = logging.getLogger("zirv.sessions")

WATCH_DEBOUNCE_MS = 300
WATCH_STEP_MS = 100
WATCH_SAFETY_MS = 30_000
"""A full sweep this often even while watching (a missed event costs at most this)."""
WATCH_STARTUP_SECS = 2.0
"""Sweep on the tick for this long after the watcher starts (it may miss the
first changes while it sets up)."""
MIN_TIMER = 0.01


def prefetch_mailbox(slug: str) -> int:
    """Read and cache every message of mailbox `slug` (in a worker thread); how
    many were readable. Problems are left for the sweep to report."""
    try:
        return len(mail.list_messages(slug, problems=[]))
    except (OSError, mail.MailError):
        return 0


GATE_FILE = ".settings.toml"


def gate_dirs(repo: Path) -> list[Path]:
    """The directories holding the adapter gate files that exist (a directory
    that does not exist cannot be watched)."""
    return [d for d in (repo / ".zirv", paths.operator_dir()) if d.is_dir()]


def _gate_relevant(_change: Any, path: str) -> bool:
    return os.path.basename(path) == GATE_FILE


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


def _relevant(_change: Any, path: str) -> bool:
    """Changes that can mean new mail, a nudge marker or a pane (de)registered."""
    name = os.path.basename(path)
    if name.startswith(".") or not name.endswith((".md", ".json", ".nudge")):
        return False
    parent = os.path.basename(os.path.dirname(path))
    return parent not in ("read", "full")


class SessionsActions:
    if TYPE_CHECKING:
        dash: Dashboard
        app: App[Any]

        def _update_chrome(self) -> None: ...
        def set_timer(self, delay: float, callback: Any, *, name: str | None = None) -> Timer: ...

    _delivery: DeliveryEngine | None = None
    _delivery_timer: Timer | None = None
    _watching: bool = False
    _watch_started: float = 0.0
    _known_panes: frozenset[str] = frozenset()

    # -- hooks -----------------------------------------------------------------------

    def _sessions_mounted(self) -> None:
        """The screen is mounted and the first panes are starting."""
        self._delivery = DeliveryEngine(self.dash)
        self._sessions_watch()
        self._gate_watch()

    def _sessions_tick(self) -> None:
        """Once a second (a fallback; event-driven work should not wait for it)."""
        engine = self._delivery
        if engine is None:
            return
        shorts = frozenset(p.short for p in self.dash.live_panes)
        starting = time.monotonic() - self._watch_started < WATCH_STARTUP_SECS
        if not self._watching or starting or shorts != self._known_panes:
            self._sessions_sweep_off_loop()
            return
        if (engine.inflight or engine.pending_panes()) and engine.retry_pending():
            self._update_chrome()
            self._arm_delivery_timer()

    def _sessions_badge(self, pane: Pane) -> str:
        """The sidebar badge for a pane (e.g. unread mail `✉2`), or ""."""
        engine = self._delivery
        count = engine.unread.get(pane.short, 0) if engine is not None else 0
        return f"✉{count}" if count else ""

    # -- sweeping --------------------------------------------------------------------

    @work(exclusive=True, group="sessions-sweep")
    async def _sessions_sweep_off_loop(self) -> None:
        """Read the mailbox in a thread, then sweep (on the loop) from the cache."""
        await asyncio.to_thread(prefetch_mailbox, self.dash.slug)
        if not self.is_mounted:  # type: ignore[attr-defined]
            return  # the dashboard closed while the thread read
        self._sessions_sweep()

    def _sessions_sweep(self) -> None:
        if self._quitting:  # type: ignore[attr-defined]
            return  # never type into a pane that is being asked to quit
        engine = self._delivery
        if engine is None:
            return
        self._known_panes = frozenset(p.short for p in self.dash.live_panes)
        try:
            notices = engine.sweep()
        except Exception as exc:  # a bad state dir must not take the dashboard down
            log.exception("mail sweep failed")
            self.dash.error(f"mail sweep: {exc}")
            notices = []
        for notice in notices:
            self.dash.notify(notice)
        self._arm_delivery_timer()
        self._update_chrome()

    def _arm_delivery_timer(self) -> None:
        engine = self._delivery
        if engine is None:
            return
        if self._delivery_timer is not None:
            self._delivery_timer.stop()
            self._delivery_timer = None
        now = time.monotonic()
        deadline = engine.next_deadline(now)
        if deadline is None:
            return
        self._delivery_timer = self.set_timer(
            max(MIN_TIMER, deadline - now), self._delivery_due, name="delivery"
        )

    def _delivery_due(self) -> None:
        self._delivery_timer = None
        if self._quitting:  # type: ignore[attr-defined]
            return
        engine = self._delivery
        if engine is None:
            return
        if engine.retry_pending():
            self._update_chrome()
        self._arm_delivery_timer()

    @work(exclusive=True, group="sessions-watch")
    async def _sessions_watch(self) -> None:
        """Sweep whenever the mailbox or the registry changes."""
        worker = get_current_worker()
        try:
            from watchfiles import awatch

            watched = [mail.mailbox_dir(self.dash.slug), registry.sessions_dir()]
            self._watching = True
            self._watch_started = time.monotonic()
            async for _changes in awatch(
                *watched,
                watch_filter=_relevant,
                debounce=WATCH_DEBOUNCE_MS,
                step=WATCH_STEP_MS,
                rust_timeout=WATCH_SAFETY_MS,
                yield_on_timeout=True,
                stop_event=worker.cancelled_event,
            ):
                await asyncio.to_thread(prefetch_mailbox, self.dash.slug)
                self._sessions_sweep()
        except Exception as exc:
            log.warning("watching mail and sessions failed (%s); sweeping every second", exc)
            self.dash.notify("mail: file watching unavailable; checking every second")
        finally:
            self._watching = False

    @work(exclusive=True, group="gate-watch", exit_on_error=False)
    async def _gate_watch(self) -> None:
        """Re-read `.zirv/.settings.toml` (repo and operator) whenever one changes,
        so a harness disabled while the dashboard runs is refused from then on."""
        worker = get_current_worker()
        watched = gate_dirs(self.dash.repo)
        if not watched:
            return
        try:
            from watchfiles import awatch

            async for _changes in awatch(
                *watched,
                watch_filter=_gate_relevant,
                debounce=WATCH_DEBOUNCE_MS,
                step=WATCH_STEP_MS,
                recursive=False,
                stop_event=worker.cancelled_event,
            ):
                await self._gate_reload()
        except Exception as exc:  # noqa: BLE001 - the gate read at start still applies
            log.warning("watching the adapter gate failed (%s); it applies as read at start", exc)

    async def _gate_reload(self) -> None:
        try:
            fresh = await asyncio.to_thread(read_gate, self.dash.repo)
        except config.ConfigError as exc:
            self.dash.error(f"adapter gate not reloaded (the previous one applies): {exc}")
            self._update_chrome()
            return
        notice = apply_gate(self.dash.gate, fresh)
        if notice:
            log.info("%s", notice)
            self.dash.notify(notice)
            self._update_chrome()

    # -- actions ---------------------------------------------------------------------

    def do_mail(self) -> None:
        from screens.mail import MailScreen, MailTarget

        dash = self.dash
        intake = getattr(self, "_intake", None)
        titles: dict[str, str] = getattr(intake, "titles", {}) if intake is not None else {}
        targets = [
            MailTarget(p.short, p.agent, p.session_id, title=titles.get(p.short, ""))
            for p in dash.live_panes
        ]

        def done(_: None) -> None:
            self._sessions_sweep_off_loop()

        self.app.push_screen(
            MailScreen(
                dash.slug,
                dash.settings.mail,
                from_session=dash.short,
                # What you compose in the dashboard is from you, not from the
                # orchestrator pane (and the dashboard's id is no pane's).
                from_agent=mail.OPERATOR,
                targets=targets,
            ),
            done,
        )

    def do_nudge(self) -> None:
        from screens.nudge import NudgeScreen

        pane = self.dash.focused_pane
        target = pane if pane is not None and pane.alive else None

        def done(text: str | None) -> None:
            if not text or target is None or self._delivery is None:
                return
            result = self._delivery.nudge(target, text)
            if result is NudgeResult.DELIVERED:
                self.dash.notify(f"nudge typed into pane {target.short}")
            elif result is NudgeResult.QUEUED:
                self.dash.notify(NUDGE_QUEUED)
            self._arm_delivery_timer()
            self._update_chrome()

        self.app.push_screen(NudgeScreen(target.short if target else None), done)
