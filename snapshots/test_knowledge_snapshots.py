"""How the knowledge overlay looks: records, a malformed one, a search."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from screens.knowledge import KnowledgeScreen
from snapshots.snaphelpers import quiet_demo, settled, snap_app, snap_repo
from tests.apphelpers import wait_for

__all__ = ["quiet_demo"]

RECORDS = {
    "decisions/0001-pty.md": (
        "---\nid: D-001\ntitle: Panes never share a PTY\nstatus: accepted\n"
        "guards: [zirv_dash/ptysession.py, zirv_dash/pane.py]\n---\n"
        "Each pane owns one PTY; the dashboard only reads it.\n\n"
        "Consequences: a crashed child takes only its own pane down.\n"
    ),
    "decisions/0002-mail.md": (
        "---\nid: D-002\ntitle: Mail before the wake-up marker\nstatus: proposed\n"
        "guards:\n  - zirv_dash/nudge.py\n---\nLosing a wake-up never loses the message.\n"
    ),
    "decisions/0003-broken.md": "---\nid: D-003\ntitle: never closed\n",
    "specs/mail.md": (
        "---\nid: S-001\ntitle: Mail delivery\nstatus: draft\nconfidence: 0.8\n"
        "paths: [zirv_dash/mail.py, zirv_dash/delivery.py]\n---\n"
        "Mail is stored before any wake-up marker.\n"
    ),
}


@pytest.fixture(autouse=True)
def zavet(snap_home: Path) -> None:
    """The records, in this test's own repo (under its private HOME)."""
    base = snap_repo() / ".zavet"
    for relative, text in RECORDS.items():
        path = base / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def opened(*keys: str) -> Any:
    base = settled(1)

    async def run_before(pilot: Pilot[Any]) -> None:
        await base(pilot)
        await pilot.press("ctrl+a", "k")
        app = pilot.app

        def loaded() -> bool:
            screen = app.screen
            return isinstance(screen, KnowledgeScreen) and screen.knowledge is not None

        await wait_for(pilot, loaded)
        await pilot.press(*keys)
        await pilot.pause(0.3)

    return run_before


def test_knowledge_overlay(snap_compare: Any) -> None:
    assert snap_compare(snap_app(), terminal_size=(120, 40), run_before=opened())


def test_knowledge_malformed_record(snap_compare: Any) -> None:
    assert snap_compare(snap_app(), terminal_size=(100, 30), run_before=opened("down", "down"))


def test_knowledge_search(snap_compare: Any) -> None:
    assert snap_compare(snap_app(), terminal_size=(120, 40), run_before=opened(*"wake-up"))
