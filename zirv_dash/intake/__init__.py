"""The dashboard side of delegation and lifecycle, without any UI.

Split by concern; every name other modules use is importable from
`zirv_dash.intake` itself:

- `core`: `Intake`, the channel, sweeps, launches, stops, deadlines, ended rows;
- `sweep`: `SweepJob` (the part of a sweep that may run off the event loop) and
  the small records the intake keeps (`Owner`, `Kept`, `Outcome`);
- `report`: report-back mail and the delegation-result record;
- `restore`: the restore roster, offered at start and written on quit;
- `menu`: the pane menu and the inspector as data (screens render them).
"""

from __future__ import annotations

from zirv_dash.intake.core import ENDED_ROWS_MAX, NO_CHANNEL, PRUNE_EVERY, STOP_GRACE, Intake
from zirv_dash.intake.menu import (
    CLEAN_EXIT,
    ENDED,
    MENU_LABELS,
    NO_CWD,
    NO_REQUEST,
    NOT_FINISHED,
    NOT_OURS,
    STILL_RUNNING,
    THE_DASHBOARD,
    MenuEntry,
    Section,
    dashboard_sections,
    disabled_reason_restore,
    format_sections,
    inspect_sections,
    menu_entries,
    menu_letters,
)
from zirv_dash.intake.report import (
    REPORT_TAIL_BYTES,
    REPORT_TAIL_LINES,
    ReportBack,
    report_body,
    requester_label,
    screen_tail,
)
from zirv_dash.intake.restore import RosterRestore
from zirv_dash.intake.sweep import Kept, Outcome, Owner, Planned, Spawner, SweepJob, as_role

__all__ = [
    "CLEAN_EXIT",
    "ENDED",
    "ENDED_ROWS_MAX",
    "MENU_LABELS",
    "NOT_FINISHED",
    "NOT_OURS",
    "NO_CHANNEL",
    "NO_CWD",
    "NO_REQUEST",
    "PRUNE_EVERY",
    "REPORT_TAIL_BYTES",
    "REPORT_TAIL_LINES",
    "STILL_RUNNING",
    "STOP_GRACE",
    "THE_DASHBOARD",
    "Intake",
    "Kept",
    "MenuEntry",
    "Outcome",
    "Owner",
    "Planned",
    "ReportBack",
    "RosterRestore",
    "Section",
    "Spawner",
    "SweepJob",
    "as_role",
    "dashboard_sections",
    "disabled_reason_restore",
    "format_sections",
    "inspect_sections",
    "menu_entries",
    "menu_letters",
    "report_body",
    "requester_label",
    "screen_tail",
]
