"""The dashboard side of delegation and lifecycle, without any UI.

Import a name from the module that defines it: `core` (`Intake`), `sweep`
(the part of a sweep that may run off the loop, and the intake's small
records), `launching`, `stopping`, `report` (report-back mail), `restore` (the
restore roster), `rows` (ended rows), `menu` and `reasons` (the pane menu and
inspector as data), `views` (what those parts see of the intake). The few
names below stay importable from the package for the engine and the screens.
"""

from __future__ import annotations

from zirv_dash.intake.core import Intake
from zirv_dash.intake.menu import (
    MenuEntry,
    Section,
    dashboard_sections,
    format_sections,
    inspect_sections,
    menu_entries,
)

__all__ = [
    "Intake",
    "MenuEntry",
    "Section",
    "dashboard_sections",
    "format_sections",
    "inspect_sections",
    "menu_entries",
]
