"""How the handover picker looks: rows with the current one marked, and the empty case."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from snapshots.snaphelpers import app_of, quiet_demo, snap_app
from tests.apphelpers import dash_screen, wait_for

__all__ = ["quiet_demo"]


@pytest.fixture(autouse=True)
def no_vendor_clis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows depend on what is installed: only the built-in harnesses here."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    git = shutil.which("git")
    if git:
        (bin_dir / "git").symlink_to(git)
    monkeypatch.setenv("PATH", str(bin_dir))


def open_picker(needle: str, disable: tuple[str, ...] = ()) -> Any:
    async def run_before(pilot: Pilot[Any]) -> None:
        dash = dash_screen(app_of(pilot)).dash

        def ready() -> bool:
            if len(dash.panes) != 1:
                return False
            pane = dash.panes[0]
            lines = pane.model_view.lines()
            return any(ln.startswith(needle) for ln in lines) and pane.is_idle() and not pane.inbox

        await wait_for(pilot, ready)
        for name in disable:  # after the pane started: the gate also guards spawning
            dash.gate.disabled[name] = "disabled in .zirv/.settings.toml"
        await pilot.press("ctrl+a", "o")
        await pilot.pause(0.4)

    return run_before


def test_handover_picker_marks_the_current_row(snap_compare: Any) -> None:
    app = snap_app(agent="shell", flags={"dash": {"idle_quiet_ms": 100}})
    assert snap_compare(app, terminal_size=(120, 40), run_before=open_picker("$"))


def test_handover_picker_with_nothing_to_swap_to(snap_compare: Any) -> None:
    app = snap_app(agent="demo", flags={"dash": {"idle_quiet_ms": 100}})
    run_before = open_picker(">", disable=("shell", "demo"))
    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)
