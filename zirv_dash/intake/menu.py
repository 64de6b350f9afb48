"""The pane menu and the inspector as data: entries with their disabled reasons,
and titled sections of key/value rows. Screens render them; nothing here draws."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from zirv_dash.context.health import inspector_rows
from zirv_dash.harnesses import catalogue
from zirv_dash.intake.reasons import (
    CLEAN_EXIT,
    ENDED,
    NO_CWD,
    NO_REQUEST,
    NOT_FINISHED,
    NOT_OURS,
    STILL_RUNNING,
    THE_DASHBOARD,
    disabled_reason_restore,
)
from zirv_dash.intake.rows import ended_row
from zirv_dash.intake.views import MenuIntake
from zirv_dash.mail import mailbox as mail
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.words import STATE_WORDS
from zirv_dash.repo import gitinfo
from zirv_dash.textfmt import age_text as _age

MENU_LABELS = (
    "inspect",
    "focus",
    "nudge",
    "mail",
    "handover",
    "stop",
    "restore",
    "open worktree",
    "evidence",
    "retry",
    "dismiss",
)


@dataclass(frozen=True)
class MenuEntry:
    letter: str
    label: str
    disabled: str | None = None

    @property
    def enabled(self) -> bool:
        return self.disabled is None


def menu_letters(labels: Sequence[str]) -> list[str]:
    """The first letter of each label still free, else the next free one in it."""
    used: set[str] = set()
    out: list[str] = []
    for label in labels:
        pick = next((c for c in label.lower() if c.isalpha() and c not in used), "")
        if pick:
            used.add(pick)
        out.append(pick)
    return out


def menu_entries(intake: MenuIntake, pane: Pane | None) -> list[MenuEntry]:
    """Every upstream entry, in order, each with its disabled reason (or None)."""
    reasons: dict[str, str | None]
    if pane is None:
        reasons = {label: THE_DASHBOARD for label in MENU_LABELS}
        reasons["inspect"] = None
        reasons["mail"] = None
    else:
        ours = pane in intake.dash.panes
        ended = not pane.alive
        kept = intake.kept.get(pane.short)
        attached = None if ours and not ended else (ENDED if ours else NOT_OURS)
        retry: str | None
        restore: str | None
        dismiss: str | None
        if not ours:
            retry = restore = dismiss = NOT_OURS
        else:
            restore = disabled_reason_restore(pane, kept) or None
            if not ended:
                retry = STILL_RUNNING
            elif (pane.exit_code or 0) == 0:
                retry = CLEAN_EXIT
            else:
                retry = None if kept else NO_REQUEST
            dismiss = None if ended_row(intake.dash, pane) is not None else NOT_FINISHED
        reasons = {
            "inspect": None,
            "focus": attached,
            "nudge": ENDED if ended else None,
            "mail": None,
            "handover": attached,
            "stop": attached,
            "restore": restore,
            "open worktree": None if pane.cwd else NO_CWD,
            "evidence": None,
            "retry": retry,
            "dismiss": dismiss,
        }
    letters = menu_letters(MENU_LABELS)
    return [
        MenuEntry(letter, label, reasons[label])
        for letter, label in zip(letters, MENU_LABELS, strict=True)
    ]


Section = tuple[str, list[tuple[str, str]]]


def inspect_sections(
    intake: MenuIntake, pane: Pane, now: float | None = None, ages: bool = True
) -> list[Section]:
    """The inspector's sections for one row: identity, status, evidence, signal, errors.

    `ages=False` shows `–` for every age (deterministic screenshots)."""
    moment = time.monotonic() if now is None else now
    dash = intake.dash
    state = pane.state(moment)
    reports_to = intake.report_to.get(pane.short)
    parent = intake.parents.get(pane.short) or (reports_to if reports_to != mail.OPERATOR else None)
    identity = [
        ("short", pane.short),
        ("harness", pane.agent),
        ("model", pane.model or catalogue.implicit_model(pane.agent) or "–"),
        ("role", pane.role),
        ("group", "–"),
        ("parent", parent or "–"),
        ("cwd", pane.cwd or "–"),
        ("branch", gitinfo.branch(pane.cwd) or "–"),
    ]
    if pane.short in intake.kept:
        identity.append(("request", "kept (restore / retry available once ended)"))
    started = time.time() - pane.created_at
    status = [
        ("lifecycle", "ended" if not pane.alive else STATE_WORDS.get(state, str(state))),
        ("attention", STATE_WORDS.get(state, str(state))),
        ("mode", "headless" if pane.spec.headless else "interactive"),
        ("started", f"{_age(started)} ago" if ages else "–"),
    ]
    if pane.exit_code is not None:
        # One row each: when it ended, and how (the code once, not twice).
        exited = time.time() - (pane.exited_at or time.time())
        status.append(("ended", f"{_age(exited)} ago" if ages else "–"))
        status.append(("exit code", str(pane.exit_code)))
    reason = pane.reason(moment)
    evidence = [("winning", reason or f"pane state: {STATE_WORDS.get(state, str(state))}")]
    signal_rows = [
        ("transport", "socket bound" if pane.short in dash.signals else "unreachable"),
        ("attached", "yes" if pane.pty is not None and pane.alive else "no"),
    ]
    if pane.short in intake.report_to:
        done = "sent" if pane.short in intake.reported else "pending"
        signal_rows.append(("report", f"to {intake.report_to[pane.short]} ({done})"))
    errors = [("error", e.text) for e in dash.errors.entries if pane.short in e.text]
    sections: list[Section] = [
        ("identity", identity),
        ("status", status),
        ("context", inspector_rows(dash.health.get(pane.short), ages)),
        ("evidence", evidence),
        ("signal", signal_rows),
        ("errors", errors or [("error", "none recorded")]),
    ]
    return sections


def dashboard_sections(intake: MenuIntake) -> list[Section]:
    """The inspector for the dashboard itself (subject `dashboard · {short}`)."""
    dash = intake.dash
    live = dash.live_panes
    orch = next((p for p in dash.panes if p.role == "orchestrator"), None)
    channel = intake.channel.root if intake.channel is not None else None
    return [
        (
            "harness",
            [("harness", orch.agent if orch else "–"), ("short", orch.short if orch else "–")],
        ),
        (
            "sessions",
            [("live", str(len(live))), ("ended", str(len(dash.panes) - len(live)))],
        ),
        (
            "dashboard",
            [
                ("state dir", str(intake.state)),
                ("channel", str(channel) if channel else "none (delegation runs inline)"),
                ("mouse", "on" if dash.settings.dash.mouse else "off"),
                ("sidebar", f"{dash.settings.dash.sidebar_cols} columns"),
                ("max panes", str(dash.settings.dash.max_panes)),
                ("restore", f"{len(intake.candidates) + len(intake.deferred)} waiting"),
            ],
        ),
    ]


def format_sections(sections: Sequence[Section]) -> list[str]:
    """`{section}` headings and `{key:<12}{value}` lines."""
    out: list[str] = []
    for title, rows in sections:
        out.append(title)
        out += [f"{key:<12}{value}" for key, value in rows]
    return out
