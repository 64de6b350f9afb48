"""What the menu, the inspector and the restore roster see of an `Intake`.

`Intake` (core.py) satisfies both protocols; its parts import only this module,
so the import arrow runs from the intake down to them and never back."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from zirv_dash import spawn
from zirv_dash.dash import roster
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.intake.sweep import Kept, Spawner


class RestoreIntake(Protocol):
    """The intake as the restore roster reads and fills it."""

    @property
    def dash(self) -> Dashboard: ...

    @property
    def enabled(self) -> bool: ...

    @property
    def state(self) -> Path: ...

    @property
    def spawner(self) -> Spawner: ...

    @property
    def report_to(self) -> dict[str, str]: ...

    @property
    def reported(self) -> set[str]: ...

    @property
    def parents(self) -> dict[str, str | None]: ...

    @property
    def titles(self) -> dict[str, str]: ...


class MenuIntake(Protocol):
    """The intake as the pane menu and the inspector read it."""

    @property
    def dash(self) -> Dashboard: ...

    @property
    def state(self) -> Path: ...

    @property
    def channel(self) -> spawn.DashChannel | None: ...

    @property
    def kept(self) -> dict[str, Kept]: ...

    @property
    def report_to(self) -> dict[str, str]: ...

    @property
    def reported(self) -> set[str]: ...

    @property
    def parents(self) -> dict[str, str | None]: ...

    @property
    def candidates(self) -> list[roster.RosterPane]: ...

    @property
    def deferred(self) -> list[roster.RosterPane]: ...
