"""The multiplexer's state, without any UI: panes, focus, zoom, errors, notices.

The engine (`zirv_dash.runtime`) owns the event loop side and calls in here;
everything that decides *what* happens (which pane is focused, whether a spawn
is allowed, what the header counts say, how quitting proceeds) lives here so it
can be tested without a loop or a terminal.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zirv_dash import paths
from zirv_dash.attention.states import PaneState
from zirv_dash.attention.turn_signal import TurnSignalServer
from zirv_dash.config.layers import AdapterGate
from zirv_dash.context.health import PaneHealth
from zirv_dash.dash import mcp_launch
from zirv_dash.dash.ending import PaneEnding
from zirv_dash.dash.errorlog import ErrorEntry as ErrorEntry
from zirv_dash.dash.errorlog import ErrorLog as ErrorLog
from zirv_dash.dash.pane_kinds import NativePanes, native_spec
from zirv_dash.harnesses import adapters, catalogue
from zirv_dash.harnesses.adapters import Adapter
from zirv_dash.harnesses.native_kind import NATIVE as NATIVE
from zirv_dash.panes.escape_watch import ESCAPE_SCAN as ESCAPE_SCAN
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.session_env import child_env
from zirv_dash.panes.spec import PaneSpec
from zirv_dash.repo import worktree as worktrees

if TYPE_CHECKING:  # `config.Settings` imports pydantic, which plain settings never need
    from zirv_dash.config.layers import Settings

log = logging.getLogger("zirv.dashboard")

NOTICE_TTL = 4.0
ENDED_ROWS_MAX = 8


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


class Dashboard(PaneEnding):
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
        self.native_panes: NativePanes | None = None
        """Opens native panes (set by the engine: the kind lives in its floor)."""
        self.on_pane_added: list[Callable[[Pane], None]] = []
        self.health: dict[str, PaneHealth] = {}
        """Each pane's context health (set by the engine's context controller)."""
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
        (`Dashboard.native_panes`); argv, extra args and env do not apply to it."""
        if agent == NATIVE:
            return self._spawn_native(
                prompt, cwd, role, headless, session_id, requested_by, focus, worktree
            )
        adapter = self._admit(agent)
        if prompt and prompt.lstrip().startswith("-"):
            raise DashError("prompt must not begin with '-' (argv injection guard)")
        model = self._resolve_model(agent, model)
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
        return self._start_pane(spec, extra_env, focus)

    def _admit(self, agent: str) -> Adapter:
        """The harness `agent`, if it is known, enabled and there is room for a pane."""
        adapter = adapters.get(agent)
        if adapter is None:
            raise DashError(
                f"unknown harness {agent!r}; choose one of {', '.join(adapters.names())}"
            )
        refusal = self.gate.refusal(agent)
        if refusal:
            raise DashError(f"harness {agent} is {refusal}")
        self._check_room()
        return adapter

    def _resolve_model(self, agent: str, model: str | None) -> str | None:
        try:
            # A tier name ("deep") resolves exactly as a handover resolves it,
            # wherever the spawn came from (dialog, request, restore).
            return catalogue.resolve_requested(agent, model, self.settings)
        except catalogue.ResolveError as exc:
            raise DashError(str(exc)) from exc

    def _start_pane(self, spec: PaneSpec, extra_env: Mapping[str, str] | None, focus: bool) -> Pane:
        """A harness pane: its child started with its socket, channel and record."""
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
        self._register_mcp(pane)
        socket_path = self._bind_signal(pane)
        env = child_env(
            pane.session_id,
            spec.agent,
            socket_path=socket_path,
            dash_requests=self._mint_channel(pane),
            headless=spec.headless,
            parent_session=spec.requested_by,
            extra=extra_env,
        )
        if not pane.start(env):
            self.error(f"{spec.agent} pane {pane.short} could not start: {pane.spawn_error}")
            self._release(pane)
        else:
            self.register(pane, reachable=socket_path is not None)
        self._added(pane, focus)
        return pane

    def _register_mcp(self, pane: Pane) -> None:
        pane.spec.argv = [*pane.spec.argv, *self.mcp_args(pane.agent, pane.session_id)]

    def mcp_args(self, agent: str, session_id: str) -> list[str]:
        """zirv's MCP bridge for one launch of a claude or codex child (launch-only,
        bound to `session_id`; `[mcp] auto_register = false` turns it off): the
        pane's first child and every handover successor alike."""
        if not self.manage_state or not self.settings.mcp.auto_register:
            return []
        try:
            return mcp_launch.launch_args(agent, session_id, self.repo)
        except OSError as exc:
            short = paths.short_id(session_id)
            self.error(f"pane {short}: zirv's MCP bridge not registered ({exc})")
            return []

    def _spawn_native(
        self,
        prompt: str | None,
        cwd: str | None,
        role: str,
        headless: bool,
        session_id: str | None,
        requested_by: str | None,
        focus: bool,
        worktree: bool,
    ) -> Pane:
        """The same limits, cwd and worktree rules. A launch prompt is submitted as
        the first input, as a harness takes its own; a bad route fails the pane
        (it shows why) rather than refusing it."""
        kind = self.native_panes
        if kind is None:
            raise DashError("native panes are opened by the engine; none runs here")
        self._check_room()
        session_id = session_id or paths.new_session_id()
        if worktree:
            cwd = self._worktree_cwd(paths.short_id(session_id))
        spec = native_spec(
            cwd or str(self.repo),
            role=role,
            session_id=session_id,
            prompt=prompt,
            headless=headless,
            requested_by=requested_by,
        )
        pane = kind.new_pane(spec, self.pane_columns, self.pane_rows)
        self.panes.append(pane)
        if not pane.start({}):
            self.error(f"native pane {pane.short} could not start: {pane.spawn_error}")
        else:
            # Its own channel carries `zirv ctx kill`'s request (it has no process).
            self._mint_channel(pane)
            rewrite: Callable[[], None] | None = None
            if self.manage_state:
                self.register(pane, reachable=True)
                rewrite = functools.partial(self.register, pane, reachable=True)
            kind.started(pane, prompt, rewrite)
        self._added(pane, focus)
        return pane

    def adopt(self, pane: Pane, *, focus: bool = False) -> None:
        """A pane opened elsewhere (a remote host's session, `zirv_dash.remote`):
        nothing is spawned or registered here, and the pane limit does not apply
        (it counts what this machine runs); the roster and focus as for any pane."""
        if self.default_colors is not None:
            pane.model_view.default_fg_rgb, pane.model_view.default_bg_rgb = self.default_colors
        self.panes.append(pane)
        self._added(pane, focus)

    def _added(self, pane: Pane, focus: bool) -> None:
        for hook in self.on_pane_added:
            hook(pane)
        if focus:
            self.focused = len(self.panes) - 1

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
