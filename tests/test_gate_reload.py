"""The adapter gate (`.zirv/.settings.toml`) is re-read while the dashboard runs:
a harness disabled after start is refused to `zirv agent` from then on."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from screens.dashboard import DashboardScreen
from tests.apphelpers import dash_screen, make_app, wait_for
from zirv_dash import spawn
from zirv_dash.config.layers import AdapterGate

pytestmark = pytest.mark.timeout(60)

ORCH = "0a1b2c3d-0000-4000-8000-0000000000aa"


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    (path / ".zirv").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path.resolve()


async def _write_until(
    pilot: Pilot[Any], path: Path, text: str, done: Any, timeout: float = 15.0
) -> None:
    """Write `path` until `done()` holds: the watcher may still be starting when
    the first write lands (a rewrite is a fresh change event)."""
    deadline = time.monotonic() + timeout
    while True:
        path.write_text(text)
        try:
            await wait_for(pilot, done, timeout=1.5)
            return
        except AssertionError:
            if time.monotonic() > deadline:
                raise


async def _request(pilot: Pilot[Any], screen: DashboardScreen, repo: Path) -> dict[str, Any]:
    channel = screen.engine.intake.channel
    assert channel is not None
    body = {"agent": "demo", "prompt": "say hi", "cwd": str(repo), "requested_by": "x"}
    path = spawn.write_request(channel.requests, body)
    ack_file = spawn.ack_path(channel.requests, spawn.request_id(path))
    await wait_for(pilot, ack_file.exists, timeout=10)
    ack: dict[str, Any] = json.loads(ack_file.read_text())
    return ack


async def test_a_harness_disabled_after_start_is_refused(repo: Path) -> None:
    app = make_app(repo, agent="shell", session_ids=[ORCH])
    app.options.manage_state = True
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        gate = dash.gate
        await wait_for(
            pilot, lambda: len(dash.panes) == 1 and screen.engine.intake.channel is not None
        )
        gate_file = repo / ".zirv" / ".settings.toml"
        await _write_until(
            pilot, gate_file, "[agents.demo]\nenabled = false\n", lambda: not gate.enabled("demo")
        )
        assert dash.gate is gate  # updated in place: every holder sees it
        assert "disabled in" in (gate.refusal("demo") or "")
        ack = await _request(pilot, screen, repo)
        assert not ack["ok"] and "demo" in ack["reason"] and "disabled" in ack["reason"]
        assert len(dash.panes) == 1
        # Enabling it again is seen too.
        await _write_until(
            pilot, gate_file, "[agents.demo]\nenabled = true\n", lambda: gate.enabled("demo")
        )
        ack = await _request(pilot, screen, repo)
        assert ack["ok"], ack


async def test_a_broken_gate_file_keeps_the_previous_gate_and_says_why(repo: Path) -> None:
    app = make_app(repo, agent="shell", session_ids=[ORCH])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        gate_file = repo / ".zirv" / ".settings.toml"
        await _write_until(
            pilot,
            gate_file,
            "[agents.demo]\nenabled = false\n",
            lambda: not dash.gate.enabled("demo"),
        )
        await _write_until(
            pilot,
            gate_file,
            "[agents.demo]\nenabled = 'no'\n",
            lambda: any("adapter gate not reloaded" in e.text for e in dash.errors.entries),
        )
        assert not dash.gate.enabled("demo")


def test_apply_gate_adds_new_refusals_before_dropping_old() -> None:
    from zirv_dash.runtime.mail_ctl import apply_gate

    gate = AdapterGate({"codex": "disabled in a"})
    notice = apply_gate(gate, AdapterGate({"demo": "disabled in b"}))
    assert gate.disabled == {"demo": "disabled in b"}
    assert notice == "adapter gate reloaded: demo disabled; codex enabled"
    assert apply_gate(gate, AdapterGate({"demo": "disabled in b"})) is None
