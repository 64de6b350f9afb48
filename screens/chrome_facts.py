"""What the chrome's widgets show: roster rows, header, pane header and footer facts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from widgets.glyphs import glyph
from widgets.header_bar import HeaderFacts, Tab
from widgets.pane_header import PaneHeaderFacts
from widgets.roster_rows import RosterRow
from zirv_dash.attention.states import PaneState
from zirv_dash.cli.opening_frame import footer_hint
from zirv_dash.context.health import ADVISE_MARK, cost_text, tokens_text
from zirv_dash.keymap import ACTION_BY_ID, describe_key
from zirv_dash.panes.pane import Pane

if TYPE_CHECKING:
    from screens.host import DashboardHost


def roster_rows(
    screen: DashboardHost, states: dict[str, PaneState], focused: Pane | None
) -> list[RosterRow]:
    """One sidebar row per pane, in the dashboard's order."""
    return [
        RosterRow(
            key=p.short,
            name=p.title,
            harness=p.agent,
            state=states[p.short],
            focused=p is focused,
            selected=p is focused,
            dim=not p.alive,
            marker=screen.broadcast.marker(p.short),
            badge=screen.engine.mail_badge(p),
            note=p.ended_note(),
            context=_context_mark(screen, p),
        )
        for p in screen.dash.panes
    ]


def _tab_badge(screen: DashboardHost, pane: Pane) -> str:
    """A tab's badge: unread mail, and ⚠ once the rot verdict advises (a tab has
    no room for the fill glyph; the inspector has the figures)."""
    health = screen.dash.health.get(pane.short)
    advises = health is not None and health.verdict not in (None, "healthy")
    warn = ADVISE_MARK if advises and pane.alive else ""
    return " ".join(b for b in (screen.engine.mail_badge(pane), warn) if b)


def _context_mark(screen: DashboardHost, pane: Pane) -> str:
    health = screen.dash.health.get(pane.short)
    return health.row_mark() if health is not None and pane.alive else ""


def header_facts(
    screen: DashboardHost,
    states: dict[str, PaneState],
    focused: Pane | None,
    sidebar: bool,
    tick: int,
) -> HeaderFacts:
    """The header's counts, notice and hints; a tab per pane while the sidebar is hidden."""
    dash = screen.dash
    sessions, working, needs = dash.counts(states)
    unacked = dash.errors.unacked
    tabs = None
    if not sidebar:
        tabs = [
            Tab(
                name=screen.broadcast.marker(p.short)
                + (p.title if p.role == "orchestrator" else p.short[:4]),
                state=states[p.short],
                focused=p is focused,
                badge=_tab_badge(screen, p),
            )
            for p in dash.panes
        ]
    return HeaderFacts(
        sessions=sessions,
        working=working,
        needs_you=needs,
        ended=len(dash.panes) - sessions,
        notice=dash.current_notice() or screen.broadcast.header_text() or None,
        errors=len(unacked),
        latest_error=unacked[0].text if unacked else "",
        tip=screen.tip,
        hints=header_hints(screen, focused),
        usage=usage_today(screen),
        tabs=tabs,
        tick=tick if tabs else 0,
    )


def usage_today(screen: DashboardHost) -> str:
    """`Σ 1.2M tok · ~$3.40 today` over this dashboard's panes (records stamped
    today, local time); "" until a reading has any. The cost is an estimate."""
    readings = [h.reading for h in screen.dash.health.values() if h.reading is not None]
    tokens = sum(r.today_tokens for r in readings)
    if not tokens:
        return ""
    costs = [r.today_cost_usd for r in readings if r.today_tokens]
    cost = None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)
    return f"Σ {tokens_text(tokens)} tok · {cost_text(cost)} today"


def pane_header_facts(
    screen: DashboardHost, focused: Pane, state: PaneState, age: str, tick: int
) -> PaneHeaderFacts:
    """The focused pane's header; `age` is the time in the state shown (empty: none)."""
    extra = ""
    if focused.exit_code is not None and not focused.spawn_error:
        # Next to the state word: the exit code, or the signal that stopped it.
        stopped = state is PaneState.STOPPED
        words = focused.ended_words()
        extra = words.removeprefix("stopped by ") if stopped else f"exit {focused.exit_code}"
    extra = extra or screen.engine.swap_note(focused)
    return PaneHeaderFacts(
        harness=focused.agent,
        role=focused.role,
        model=focused.model,
        cwd=focused.current_cwd,
        state=state,
        title=focused.model_view.title[:40],
        age=age,
        tick=tick,
        extra=extra,
    )


def footer(screen: DashboardHost, focused: Pane, state: PaneState) -> tuple[tuple[str, ...], str]:
    """The footer's segments about the focused pane, and its hint."""
    segments = [f"{focused.agent} {focused.short}"]
    if focused.kind == "native":
        segments.append("in-process session")
    elif focused.pty is None:
        segments.append("no process")
    elif not screen.options.deterministic:
        segments.append(f"pid {focused.pty.pid}")
    if focused.scroll_offset:
        segments.append(f"scrolled back {focused.scroll_offset}")
    if focused.exit_code is not None:
        segments.append(f"{glyph(state, 0)[0]} {focused.ended_words()}")
    prefix = describe_key(screen.keys.keymap.prefix)
    # The opening frame draws the same hint before the UI loads.
    hint = footer_hint(screen.keys.keymap, hosted=screen.hosted)
    if screen.keys.armed:
        hint = f"{prefix} … waiting for a chord (? for help)"
    return tuple(segments), hint


def header_hints(screen: DashboardHost, focused: Pane | None) -> list[tuple[str, str]]:
    """Up to four clickable chord hints, chosen by what the focused pane can do."""
    keymap = screen.keys.keymap
    prefix = describe_key(keymap.prefix)
    labels: dict[str, str] = {}
    if focused is None:
        wanted = ["spawn", "errors", "help"]
    elif not focused.alive:
        wanted = ["inspect", "context_menu", "help"]
        # ^A r only where a relaunch can work: an ended row with a kept
        # request whose harness did start (a missing binary would fail again).
        from zirv_dash.intake import menu_entries

        entries = {e.label: e for e in menu_entries(screen.engine.intake.intake, focused)}
        restore = entries.get("restore")
        if restore is not None and restore.enabled and not focused.spawn_error:
            wanted.insert(1, "restore_row")
            if (focused.exit_code or 0) != 0:
                labels["restore_row"] = "retry"
        elif screen.engine.intake.restartable(focused):
            wanted.insert(1, "restore_row")
            labels["restore_row"] = "restart"
    else:
        wanted = ["context_menu", "nudge", "mail", "help"]
    if screen.dash.errors.unacked and "errors" not in wanted:
        wanted[-2] = "errors"
    hints = []
    for action in wanted:
        chords = keymap.chords_for(action)
        if chords:
            label = labels.get(action, ACTION_BY_ID[action].label)
            hints.append((f"{prefix} {describe_key(chords[0])}", label))
    return hints
