"""The multiplexer's state, without any UI: panes, focus, zoom, errors, notices.

The engine (`zirv_dash.runtime`) owns the event loop side and calls in here;
everything that decides *what* happens (which pane is focused, whether a spawn
is allowed, what the header counts say, how quitting proceeds) lives here so it
can be tested without a loop or a terminal.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zirv_dash import paths
from zirv_dash.attention.turn_signal import TurnSignalError, TurnSignalServer
from zirv_dash.config.layers import AdapterGate
from zirv_dash.dash.errorlog import ErrorEntry as ErrorEntry
from zirv_dash.dash.errorlog import ErrorLog as ErrorLog
from zirv_dash.harnesses import adapters, catalogue
from zirv_dash.harnesses.native_kind import NATIVE as NATIVE
from zirv_dash.panes import registry
from zirv_dash.panes.escape_watch import ESCAPE_SCAN as ESCAPE_SCAN
from zirv_dash.panes.escape_watch import EscapeWatch
from zirv_dash.panes.pane import Pane, PaneSpec, PaneState
from zirv_dash.panes.ptysession import Ladder, PtySession
from zirv_dash.panes.session_env import child_env
from zirv_dash.repo import worktree as worktrees

if TYPE_CHECKING:  # `config.Settings` imports pydantic, which plain settings never need
    from zirv_dash.config.layers import Settings

log = logging.getLogger("zirv.dashboard")

NOTICE_TTL = 4.0
ENDED_ROWS_MAX = 8
STOP_SIGNALS = frozenset({signal.SIGHUP, signal.SIGINT, signal.SIGKILL, signal.SIGTERM})
"""Exit by one of these is a stop (`zirv ctx kill`, a hang-up), not a crash."""
QUICK_EXIT_SECS = 10.0
"""A non-zero exit this soon after launch is a failure to start."""


class DashError(Exception):
    """A refused request; the message is shown to the user as is."""


@dataclass
class EndedRow:
    """A finished pane kept in the roster (frozen facts, no PTY)."""

    short: str
    title: str
    agent: str
    exit_code: int
    exited_at: float
    pane: Pane


class Dashboard(EscapeWatch):
    def __init__(
        self,
        settings: Settings,
        repo: Path,
        gate: AdapterGate | None = None,
        manage_state: bool = True,
    ) -> None:
        self.settings = settings
        self.repo = repo
        self.gate = gate or AdapterGate()
        self.panes: list[Pane] = []
        self.ended: list[EndedRow] = []
        self.focused = 0
        self.zoomed = False
        self.sidebar_forced: bool | None = None
        self.errors = ErrorLog()
        self.listener: Callable[[str, str], None] | None = None
        """Told of every error and notice ("error"/"notice", text): the engine's events."""
        self.notice: str | None = None
        self.notice_until = 0.0
        self.notice_done: tuple[str, ...] = ()
        """The panes a showing "◆ … done" notice stands for (none for any other)."""
        self.pane_columns = 80
        self.pane_rows = 24
        self.short = paths.short_id(paths.new_session_id())
        self.slug = paths.repo_slug(repo)
        self.manage_state = manage_state
        """Publish panes in the session registry and bind their turn-signal sockets."""
        self.signals: dict[str, TurnSignalServer] = {}
        self._reaped: set[str] = set()
        self.channels: dict[str, str] = {}
        """Each pane's private spawn-request channel (short id → directory)."""
        self.pane_channel: Callable[[Pane], str | None] | None = None
        """Mints a pane's private spawn-request channel (set by the intake)."""
        self.on_pane_added: list[Callable[[Pane], None]] = []
        self.default_colors: tuple[tuple[int, int, int], tuple[int, int, int]] | None = None
        """(foreground, background) the panes are drawn with; children asking
        (OSC 10/11, e.g. to pick a light or dark theme) are told these."""
        self._escapes_checked = time.monotonic()
        self.escaped_dir: Path | None = None
        """Where processes that left a pane's session are recorded (real dashboards)."""
        if manage_state:
            self._watch_escapes()

    # -- panes --------------------------------------------------------------------------

    @property
    def live_panes(self) -> list[Pane]:
        return [p for p in self.panes if p.alive]

    @property
    def focused_pane(self) -> Pane | None:
        if not self.panes:
            return None
        self.focused = max(0, min(self.focused, len(self.panes) - 1))
        return self.panes[self.focused]

    def spawn(
        self,
        agent: str,
        *,
        prompt: str | None = None,
        model: str | None = None,
        cwd: str | None = None,
        role: str = "worker",
        headless: bool = False,
        session_id: str | None = None,
        extra_args: list[str] | None = None,
        argv: list[str] | None = None,
        requested_by: str | None = None,
        focus: bool = True,
        extra_env: Mapping[str, str] | None = None,
        worktree: bool = False,
    ) -> Pane:
        """Open a pane. Raises DashError (with the reason) when refused.

        `worktree`: the pane runs in its own git worktree (branch `zirv/<short>`),
        used as its cwd; one prepared earlier by `worktrees.create` off the UI
        loop for this session id is reused, else it is created here (blocking).

        `agent` "native" opens zirv's own conversation session instead of a child
        (`zirv_dash.runtime.native_pane`); argv, extra args and env do not apply to it."""
        if agent == NATIVE:  # imported late: the providers pull in the HTTP client
            from zirv_dash.runtime.native_pane import open_native_pane

            return open_native_pane(
                self, prompt, cwd, role, headless, session_id, requested_by, focus, worktree
            )
        adapter = adapters.get(agent)
        if adapter is None:
            raise DashError(
                f"unknown harness {agent!r}; choose one of {', '.join(adapters.names())}"
            )
        refusal = self.gate.refusal(agent)
        if refusal:
            raise DashError(f"harness {agent} is {refusal}")
        self._check_room()
        if prompt and prompt.lstrip().startswith("-"):
            raise DashError("prompt must not begin with '-' (argv injection guard)")
        try:
            # A tier name ("deep") resolves exactly as a handover resolves it,
            # wherever the spawn came from (dialog, request, restore).
            model = catalogue.resolve_requested(agent, model, self.settings)
        except catalogue.ResolveError as exc:
            raise DashError(str(exc)) from exc
        if worktree:
            session_id = session_id or paths.new_session_id()
            cwd = self._worktree_cwd(paths.short_id(session_id))
        if argv is None:
            # claude uses our session id, so a handover can `--resume` it later.
            session_id = session_id or paths.new_session_id()
            pin = adapter.pin_args(session_id) if agent == "claude" else []
            extra = [*pin, *(extra_args or [])]
            argv = adapter.interactive_argv(prompt, model, extra, headless=headless)
        spec = PaneSpec(
            agent=agent,
            adapter=adapter,
            argv=argv,
            cwd=cwd or str(self.repo),
            role=role,
            # What it runs with where zirv knows it (the demo's default rung);
            # argv is left alone, so the harness still picks its own default.
            model=model or catalogue.implicit_model(agent),
            prompt=prompt,
            headless=headless,
            requested_by=requested_by,
        )
        if session_id:
            spec.session_id = session_id
        pane = Pane(
            spec,
            self.pane_columns,
            self.pane_rows,
            self.settings.dash.scrollback_bytes,
            self.settings.dash.idle_quiet_ms,
        )
        if self.default_colors is not None:
            pane.model_view.default_fg_rgb, pane.model_view.default_bg_rgb = self.default_colors
        self.panes.append(pane)
        socket_path = self._bind_signal(pane)
        env = child_env(
            pane.session_id,
            agent,
            socket_path=socket_path,
            dash_requests=self._mint_channel(pane),
            headless=headless,
            parent_session=requested_by,
            extra=extra_env,
        )
        if not pane.start(env):
            self.error(f"{agent} pane {pane.short} could not start: {pane.spawn_error}")
            self._release(pane)
        else:
            self.register(pane, reachable=socket_path is not None)
        for hook in self.on_pane_added:
            hook(pane)
        if focus:
            self.focused = len(self.panes) - 1
        return pane

    def _check_room(self) -> None:
        live = len(self.live_panes)
        if live >= self.settings.dash.max_panes:
            raise DashError(
                f"pane limit reached ({live} live panes, dash.max_panes = "
                f"{self.settings.dash.max_panes})"
            )

    def _worktree_cwd(self, short: str) -> str:
        # Branched from the dashboard repo's HEAD (a cwd elsewhere in it is not
        # a different base); the record is keyed by the dashboard repo, where
        # the review overlay and the reclaim look for it.
        try:
            record = worktrees.load(self.repo, short) or worktrees.create(self.repo, short)
        except worktrees.WorktreeError as exc:
            raise DashError(f"own worktree: {exc}") from exc
        return record.path

    def _mint_channel(self, pane: Pane) -> str | None:
        """The pane's private spawn-request channel, minted once and kept for the
        pane's life (a handover successor inherits it)."""
        if self.pane_channel is None:
            return None
        channel = self.pane_channel(pane)
        if channel:
            self.channels[pane.short] = channel
        return channel

    # -- registry and turn signals -------------------------------------------------------

    def _bind_signal(self, pane: Pane) -> str | None:
        if not self.manage_state:
            return None
        path = registry.socket_path(pane.short)
        try:
            self.signals[pane.short] = TurnSignalServer.bind(path)
        except (TurnSignalError, OSError) as exc:
            self.error(f"pane {pane.short}: turn-signal socket unavailable ({exc}); unreachable")
            return None
        return str(path)

    def register(self, pane: Pane, reachable: bool) -> None:
        if not self.manage_state:
            return
        if pane.kind == NATIVE:  # no child process: the session runs in ours
            from zirv_dash.runtime.native_pane import native_record

            native = native_record(pane, self)
            if native is not None:
                self._write_record(pane, native)
            return
        if pane.pty is None:
            return
        record = registry.SessionRecord.new(
            pane.session_id,
            pane.agent,
            self.repo,
            "chat" if pane.role == "orchestrator" else "dash",
            pane.pty.pid,
            reachable=reachable,
            owner_pid=os.getpid(),
            role=pane.role,
        )
        if pane.model:
            record.extra["model"] = pane.model
        self._write_record(pane, record)

    def _write_record(self, pane: Pane, record: registry.SessionRecord) -> None:
        try:
            registry.register(record)
        except OSError as exc:
            self.error(f"registry: could not record pane {pane.short}: {exc}")

    def _release(self, pane: Pane) -> None:
        """Drop a pane's registry record and socket (its process is gone)."""
        server = self.signals.pop(pane.short, None)
        if server is not None:
            with contextlib.suppress(OSError):
                server.close()
        if self.manage_state:
            with contextlib.suppress(OSError, ValueError):
                registry.unregister(pane.short)

    def pane_by_short(self, short: str) -> Pane | None:
        for pane in self.panes:
            if pane.short == short:
                return pane
        return None

    def focus(self, index: int) -> bool:
        if 0 <= index < len(self.panes):
            self.focused = index
            return True
        return False

    def next_pane(self) -> None:
        if self.panes:
            self.focused = (self.focused + 1) % len(self.panes)

    def prev_pane(self) -> None:
        if self.panes:
            self.focused = (self.focused - 1) % len(self.panes)

    def next_needing_you(self) -> bool:
        """Focus the next pane (after the focused one) that needs you."""
        count = len(self.panes)
        for step in range(1, count + 1):
            index = (self.focused + step) % count
            if self.state_of(self.panes[index]) is PaneState.NEEDS_YOU:
                self.focused = index
                return True
        return False

    def resize_panes(self, columns: int, rows: int) -> None:
        self.pane_columns, self.pane_rows = max(1, columns), max(1, rows)
        for pane in self.panes:
            pane.resize(self.pane_columns, self.pane_rows)

    # -- state --------------------------------------------------------------------------

    def state_of(self, pane: Pane, now: float | None = None) -> PaneState:
        return pane.state(now)

    def counts(self, states: Mapping[str, PaneState] | None = None) -> tuple[int, int, int]:
        """(sessions, working, needs you) for the header; `states` (short → state)
        when the caller has just computed them."""
        now = time.monotonic()
        sessions = working = needs = 0
        for pane in self.panes:
            state = states[pane.short] if states is not None else self.state_of(pane, now)
            if pane.alive:
                sessions += 1
            if state in (PaneState.WORKING, PaneState.STARTING):
                working += 1
            elif state is PaneState.NEEDS_YOU:
                needs += 1
        return sessions, working, needs

    def working_panes(self) -> list[Pane]:
        now = time.monotonic()
        return [
            p
            for p in self.panes
            if self.state_of(p, now)
            in (PaneState.WORKING, PaneState.STARTING, PaneState.NEEDS_YOU, PaneState.UNKNOWN)
        ]

    # -- messages -----------------------------------------------------------------------

    def error(self, text: str) -> None:
        self.errors.add(text)
        if self.listener is not None:
            self.listener("error", text)

    def notify(self, text: str, done: Sequence[str] = ()) -> None:
        """Show `text` in the notice line; `done`: the panes it says finished."""
        self.notice = text
        self.notice_until = time.monotonic() + NOTICE_TTL
        self.notice_done = tuple(done)
        if self.listener is not None:
            self.listener("notice", text)

    def current_notice(self) -> str | None:
        if self.notice and time.monotonic() < self.notice_until:
            return self.notice
        return None

    def current_done(self) -> tuple[str, ...]:
        """The panes the showing done notice names or counts (none if none shows)."""
        return self.notice_done if self.current_notice() is not None else ()

    # -- exit -------------------------------------------------------------------------------

    def reap(self) -> list[Pane]:
        """Panes whose child exited since the last call (they keep their last screen)."""
        self.check_escapes()
        ended = []
        for pane in self.panes:
            if pane.short in self._reaped:
                continue
            if pane.exit_code is None and pane.poll_exit() is None:
                continue
            # Reported once, including panes whose child never started.
            self._reaped.add(pane.short)
            ended.append(pane)
            self._release(pane)
            if pane.spawn_error:
                continue  # already explained when it failed to start
            code = pane.exit_code or 0
            age = (pane.exited_at or time.time()) - pane.created_at
            if self.was_stopped(pane):
                # Ended on purpose (the menu's stop, a kill request, `zirv ctx
                # kill`): not a failure, so no error.
                self.notify(f"pane {_pane_name(pane)} stopped")
            elif code != 0 and age < QUICK_EXIT_SECS:
                self.error(
                    f"{pane.agent} pane {pane.short} exited with code {code} "
                    f"{age:.0f}s after launch: {pane.last_screen_line()[:160] or '(no output)'}"
                )
            elif code != 0:
                self.error(f"pane {_pane_name(pane)} ended (exit {code})")
            else:
                self.notify(f"pane {_pane_name(pane)} ended (exit 0)")
        return ended

    @property
    def all_ended(self) -> bool:
        return bool(self.panes) and not self.live_panes

    @property
    def close_when_all_ended(self) -> bool:
        """Every pane ended and none of them failed at start.

        A program that could not start or failed at once (`SHELL=/bin/false`, a
        harness missing its login) keeps the dashboard open on its ended row, with
        its exit status, its last screen and the error in `^A e`; closing would
        leave the user with nothing but a return code."""
        # Only panes the user opened count: a worker a request launched and that
        # failed is explained in its row; it must not hold the dashboard open.
        return self.all_ended and not any(
            self.failed_at_start(p) for p in self.panes if p.spec.requested_by is None
        )

    @staticmethod
    def was_stopped(pane: Pane) -> bool:
        """Ended by our ladder, or by a signal someone sends to stop a program."""
        if pane.pty is not None and pane.pty.stopped:
            return True
        code = pane.exit_code or 0
        return code - 128 in STOP_SIGNALS

    @classmethod
    def failed_at_start(cls, pane: Pane) -> bool:
        if pane.spawn_error:
            return True
        if not pane.exit_code or cls.was_stopped(pane) or pane.last_input_at is not None:
            return False  # a clean exit, a stop, or one the user asked for (`exit 3`)
        age = (pane.exited_at or time.time()) - pane.created_at
        return age < QUICK_EXIT_SECS

    def shutdown_all(self, grace: float = 5.0) -> None:
        """Quit every pane and verify that nothing of their sessions is left.

        A pane gets its typed quit sequence only when its screen is known to be
        the harness's ordinary input prompt: typed into a dialog, the Enter would
        answer it for the user (a pre-selected "Yes, trust this folder"). Every
        other pane gets its harness's clean-quit signals. Then one ladder per
        pane, all stepped together: grace, SIGKILL to every process group of the
        session, until /proc shows none. Ended panes are swept too (a job the
        shell left running)."""
        ladders: list[tuple[Pane, PtySession, Ladder]] = []
        for pane in self.panes:
            pty = pane.pty
            if pty is None or (pane.exit_code is not None and pty.session_ended()):
                continue
            ladder = pty.stop_for(
                pane.agent,
                pane.adapter.quit_sequence,
                typed_ok=pane.exit_code is None and pane.at_input_prompt(),
                grace=grace,
                defer_submit=pane.adapter.defer_submit,
            )
            ladders.append((pane, pty, ladder))
        while ladders:
            finished = [ladder.step() for _, _, ladder in ladders]  # step every one
            if all(finished):
                break
            time.sleep(0.02)
        self.check_escapes(force=True)  # what left a session was reparented to us
        for pane, pty, ladder in ladders:
            if ladder.survivors:
                self.error(f"shutdown {pane.short}: pids {ladder.survivors} survived SIGKILL")
            pty.finish()
            if pane.exit_code is None:
                pane.exit_code = pty.exit_code if pty.exit_code is not None else -1
                pane.exited_at = pane.exited_at or time.time()
        for pane in self.panes:
            self._release(pane)


def _pane_name(pane: Pane) -> str:
    """`1b2c3d4e (demo)`, or `'fix tests' (1b2c3d4e)` when it has a title of its own."""
    if pane.title and pane.title != pane.short:
        return f"'{pane.title}' ({pane.short})"
    return f"{pane.short} ({pane.agent})"
