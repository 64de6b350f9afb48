"""Restored panes come back in the directory they ran in (the roster keeps `cwd`),
and a roster entry that is refused or corrected reaches the error log (`^A e`)."""

from __future__ import annotations

import json
import shlex
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from zirv_dash.config.layers import load_settings
from zirv_dash.dash import roster
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.intake import Intake
from zirv_dash.panes.pane import Pane

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "work" / "repo"
    (path / "sub dir").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path.resolve()


def wait(pane: Pane, cond: Callable[[], bool], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met; screen: {pane.model_view.lines()}")
        pane.read_available()
        pane.pump(1 << 20)
        time.sleep(0.02)


def close(dash: Dashboard) -> None:
    for pane in dash.live_panes:
        if pane.agent == "shell":
            pane.send(b"exit\r")
    dash.shutdown_all(grace=1.0)


def write_entries(state: Path, slug: str, entries: list[dict[str, object]]) -> None:
    path = roster.roster_path(state, slug)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"written": int(time.time()), "panes": entries}))


def test_the_roster_records_each_panes_cwd(repo: Path, isolated_state: Path) -> None:
    dash = Dashboard(load_settings(repo), repo, manage_state=True)
    intake = Intake(dash)
    intake.start()
    try:
        dash.spawn("shell", role="orchestrator")
        worker = dash.spawn("shell", cwd=str(repo / "sub dir"), focus=False)
        by_short = {e.short: e for e in intake.roster_entries()}
        assert by_short[worker.short].cwd == str(repo / "sub dir")
        intake.on_quit()  # as at a dashboard quit: the roster, then the panes
    finally:
        close(dash)
        intake.on_quit()
    doc = json.loads(roster.roster_path(isolated_state, dash.slug).read_text())
    assert {p["short"]: p["cwd"] for p in doc["panes"]}[worker.short] == str(repo / "sub dir")


def test_a_restored_pane_runs_in_its_recorded_cwd(repo: Path, isolated_state: Path) -> None:
    dash = Dashboard(load_settings(repo), repo, manage_state=True)
    intake = Intake(dash)
    intake.start()
    try:
        dash.spawn("shell", role="orchestrator")
        entry = roster.RosterPane(
            "shell",
            "abcdef12-0000-4000-8000-00000000000a",
            short="abcdef12",
            title="wrk sh",
            cwd=str(repo / "sub dir"),
        )
        write_entries(isolated_state, dash.slug, [entry.to_json()])
        [pane] = intake.restore(intake.take_restore_offer())
        assert pane.spec.cwd == str(repo / "sub dir")
        # The shell says whether it runs there (a long path printed by `pwd` would
        # wrap in the pane); the quotes keep the typed line from reading as the answer.
        want = shlex.quote(str(repo / "sub dir"))
        pane.send(f'[ "$PWD" = {want} ] && echo "cwd-""right" || echo "cwd-""wrong"\r'.encode())
        wait(pane, lambda: any("cwd-right" in line for line in pane.model_view.lines()))
    finally:
        close(dash)
        intake.on_quit()


def test_refused_and_corrected_entries_reach_the_error_log(
    repo: Path, isolated_state: Path
) -> None:
    dash = Dashboard(load_settings(repo), repo, manage_state=True)
    intake = Intake(dash)
    intake.start()
    try:
        dash.spawn("shell", role="orchestrator")
        moved = roster.RosterPane(
            "shell",
            "11111111-0000-4000-8000-000000000001",
            short="11111111",
            cwd=str(repo / "gone"),
        )
        bad = roster.RosterPane("shell", "22222222-0000-4000-8000-000000000002").to_json()
        bad["title"] = "a\x00b"
        write_entries(isolated_state, dash.slug, [moved.to_json(), bad])
        offer = intake.take_restore_offer()
        assert [e.short for e in offer] == ["11111111"] and offer[0].cwd is None
        texts = [e.text for e in dash.errors.entries]
        assert any("is not an existing directory" in t for t in texts), texts
        assert any("entry 2 not restored" in t for t in texts), texts
        [pane] = intake.restore(offer)
        assert pane.spec.cwd == str(repo)  # the repository root
    finally:
        close(dash)
        intake.on_quit()
