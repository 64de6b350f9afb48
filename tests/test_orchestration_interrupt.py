"""`interrupt` is the harness's interrupt key, not a kill: a shell worker's running
command stops and the shell (the worker) lives on."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.intakehelpers import drive, live_dashboard, plain_shell_env
from tests.test_spawn import make_repo
from zirv_dash.runtime.orchestration import CTRL_C, ESC, INTERRUPT_KEYS, interrupt_pane


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    plain_shell_env(monkeypatch)
    return make_repo(tmp_path / "work" / "repo")


def test_interrupt_stops_the_turn_and_keeps_the_worker(repo: Path) -> None:
    with live_dashboard(repo) as (dash, intake):
        pane = dash.spawn("shell")
        drive(dash, intake, lambda: "$" in pane.last_screen_line())
        pane.send(b"sleep 30\r")
        # The job holds the terminal: a Ctrl+C sent before the shell has handed
        # it the foreground reaches only the shell, and the job runs on.
        assert pane.pty is not None
        drive(dash, intake, lambda: not pane.pty.leader_in_foreground())
        started = time.monotonic()
        assert interrupt_pane(dash, pane.short) is None
        drive(dash, intake, lambda: pane.last_screen_line() == "$")  # back at its prompt
        assert time.monotonic() - started < 20 and pane.alive
        assert interrupt_pane(dash, "nosuch00") == "pane nosuch00 is not live"


def test_harnesses_whose_turn_esc_interrupts() -> None:
    assert INTERRUPT_KEYS["claude"] == ESC and INTERRUPT_KEYS["codex"] == ESC
    assert INTERRUPT_KEYS.get("demo", CTRL_C) == CTRL_C
