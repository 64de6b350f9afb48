"""An operator nudge that meets an approval dialog waits on disk, not only in
memory: a dashboard that dies (its delivery state lost, as with `kill -9`) and
is started again delivers it once to the restored pane at its next idle
boundary, and never types it into the dialog (real demo panes on real PTYs)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_delivery import drive, text
from zirv_dash.attention.states import PaneState
from zirv_dash.config.layers import load_settings
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.mail import nudge_queue
from zirv_dash.mail.delivery import DeliveryEngine, NudgeResult
from zirv_dash.panes.pane import Pane

pytestmark = pytest.mark.timeout(40)

SESSION = "5e5e5e5e-0000-4000-8000-00000000d00d"
NOTE = "[zirv ▸ nudge from operator] check the failing test"


def board(repo: Path) -> Dashboard:
    settings = load_settings(repo, flags={"dash": {"idle_quiet_ms": 300}})
    return Dashboard(settings, repo, manage_state=True)


@pytest.fixture
def boards(tmp_path: Path) -> Iterator[list[Dashboard]]:
    made: list[Dashboard] = []
    yield made
    for dash in made:
        dash.shutdown_all(grace=0.2)


def at_dialog(dash: Dashboard, engine: DeliveryEngine) -> Pane:
    """The demo pane of session SESSION, idle, then showing its approval dialog."""
    pane = dash.spawn("demo", session_id=SESSION)
    drive(dash, engine, lambda: pane.state() is PaneState.IDLE or pane.is_idle())
    pane.send(b"/ask\r", typed=False)
    drive(dash, engine, lambda: pane.state() is PaneState.NEEDS_YOU)
    return pane


KILLED_WITH_A_NUDGE = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from tests.test_nudge_durable import SESSION, at_dialog, board
    from zirv_dash.mail.delivery import DeliveryEngine, NudgeResult

    dash = board(Path(sys.argv[1]))
    engine = DeliveryEngine(dash)
    pane = at_dialog(dash, engine)
    assert engine.nudge(pane, "check the\\nfailing test") is NudgeResult.QUEUED
    engine.sweep()
    assert "failing test" not in "\\n".join(pane.model_view.lines())
    print(pane.short, pane.pty.pid, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # the dashboard dies with the nudge queued
    """
)


def test_a_nudge_held_by_a_dialog_survives_a_dashboard_killed_with_9(
    tmp_path: Path, boards: list[Dashboard]
) -> None:
    got = subprocess.run(
        [sys.executable, "-c", KILLED_WITH_A_NUDGE, str(tmp_path)],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert got.returncode == -signal.SIGKILL, got.stderr[-2000:]
    short, child = got.stdout.split()
    try:
        os.kill(int(child), signal.SIGKILL)  # its demo child, if the hangup left it
    except ProcessLookupError:
        pass
    [stored] = nudge_queue.pending(short)
    assert stored.text == "check the\nfailing test"
    assert stored.path is not None and stored.path.stat().st_mode & 0o777 == 0o600

    second = board(tmp_path)
    boards.append(second)
    fresh = DeliveryEngine(second)
    restored = at_dialog(second, fresh)  # restored: same session, and a dialog again
    assert restored.short == short
    fresh.sweep()
    deadline = time.monotonic() + 0.6
    drive(second, fresh, lambda: time.monotonic() > deadline)
    assert "failing test" not in text(restored)
    assert nudge_queue.pending(restored.short)  # still waiting, still on disk
    restored.send(b"y", typed=False)  # the operator answers the dialog
    drive(second, fresh, lambda: f"Working on: {NOTE}" in text(restored))
    assert not nudge_queue.pending(restored.short)
    # Once: further sweeps and idle boundaries type nothing more.
    drive(second, fresh, lambda: restored.is_idle())
    fresh.sweep()
    deadline = time.monotonic() + 0.6
    drive(second, fresh, lambda: time.monotonic() > deadline)
    assert text(restored).count(f"Working on: {NOTE}") == 1
    # A third dashboard finds nothing to deliver.
    assert not DeliveryEngine(second).nudges and not nudge_queue.pending(short)


def test_a_nudge_typed_at_once_leaves_nothing_on_disk(
    tmp_path: Path, boards: list[Dashboard]
) -> None:
    dash = board(tmp_path)
    boards.append(dash)
    engine = DeliveryEngine(dash)
    pane = dash.spawn("demo", session_id=SESSION)
    drive(dash, engine, lambda: pane.is_idle())
    assert engine.nudge(pane, "now") is NudgeResult.DELIVERED
    assert not nudge_queue.pending(pane.short)


def test_a_cli_nudge_held_by_a_dialog_survives_a_dashboard_restart(
    tmp_path: Path, boards: list[Dashboard]
) -> None:
    """`zirv ctx nudge` stores its text as mail first: a restarted dashboard
    delivers it once, after the restored pane's dialog is answered."""
    first = board(tmp_path)
    boards.append(first)
    engine = DeliveryEngine(first)
    pane = at_dialog(first, engine)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZIRV_CTX_SESSION")}
    got = subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", "ctx", "nudge", pane.short, "-m", "cli note"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert got.returncode == 0, got.stdout + got.stderr
    engine.sweep()
    assert "cli note" not in text(pane)
    first.shutdown_all(grace=0.2)

    second = board(tmp_path)
    boards.append(second)
    fresh = DeliveryEngine(second)
    restored = at_dialog(second, fresh)
    fresh.sweep()
    assert "cli note" not in text(restored) and restored.short in fresh.waiting
    restored.send(b"y", typed=False)
    drive(second, fresh, lambda: "Working on: [zirv ▸ mail" in text(restored))
    drive(second, fresh, lambda: restored.is_idle())
    fresh.sweep()
    assert text(restored).count("Working on: [zirv ▸ mail") == 1  # once
